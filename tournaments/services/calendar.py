"""The calendar's lines, written by an administrator in the admin. A line is checked as the tournaments
it will make would be, when it is saved: a line that cannot make a playable tournament is refused then,
not found out by beat every minute."""

from datetime import UTC, datetime

from django.db import transaction
from django.utils.translation import gettext as _

from ..models import Kind, Schedule
from .entering import shape_check
from .shared import TournamentError

FEWEST_MINUTES_APART = 10
"""Lines closer than the shortest tournament would flood the calendar."""
AHEAD_MINUTES = (5, 7 * 24 * 60)
"""How long before its start a tournament is made: time to join it, and never more than a week."""


AMERICANA_FOR_TWO = {"players": 2, "target": 101}
CLASSIC_FOR_TWO = {"players": 2, "match": "points8"}
EXAMPLE_LINES = (
    {
        "name": "Hourly Americana arena",
        "kind": Kind.ARENA,
        "game": "americana",
        "options": AMERICANA_FOR_TWO,
        "turn_clock": 20,
        "minutes": 45,
        "first_start": datetime(2026, 12, 7, 0, 0, tzinfo=UTC),
        "every_minutes": 60,
        "ahead_minutes": 60,
    },
    {
        "name": "Nightly classic Swiss",
        "kind": Kind.SWISS,
        "game": "classic",
        "options": CLASSIC_FOR_TWO,
        "turn_clock": 45,
        "minutes": 25,
        "rounds": 7,
        "first_start": datetime(2026, 12, 7, 19, 0, tzinfo=UTC),
        "every_minutes": 1440,
        "ahead_minutes": 720,
    },
    {
        "name": "Weekend long arena",
        "kind": Kind.ARENA,
        "game": "americana",
        "options": {"players": 4, "target": 301},
        "turn_clock": 20,
        "minutes": 120,
        "first_start": datetime(2026, 12, 12, 16, 0, tzinfo=UTC),
        "every_minutes": 10080,
        "ahead_minutes": 2880,
    },
)
"""A calendar to start from (``manage.py examplecalendar``): an hourly Americana arena, a nightly
classic Swiss event (21:00 in Romania), a long arena every Saturday."""


def _may_edit(by) -> None:
    if not by.is_superuser:
        raise TournamentError(_("Only an administrator changes the calendar."))


def schedule_check(*, schedule: Schedule) -> None:
    """Refuse (``TournamentError``) a line that cannot make a playable tournament; otherwise leave its
    match options in the engine's own form, and no rounds on an arena line."""
    if not " ".join(schedule.name.split()):
        raise TournamentError(_("Give the calendar line a name."))
    if not isinstance(schedule.options, dict):
        raise TournamentError(_('The match options are a JSON object, such as {"players": 2}.'))
    players = schedule.options.get("players")
    schedule.options = shape_check(
        kind=schedule.kind,
        game=schedule.game,
        players=players if isinstance(players, int) else 0,
        options=schedule.options,
        turn_clock=schedule.turn_clock,
        minutes=schedule.minutes,
        rounds=schedule.rounds,
    )
    if schedule.kind == Kind.ARENA:
        schedule.rounds = 0
    if schedule.every_minutes < FEWEST_MINUTES_APART:
        raise TournamentError(
            _("Make its tournaments at least %(minutes)d minutes apart.") % {"minutes": FEWEST_MINUTES_APART}
        )
    if not AHEAD_MINUTES[0] <= schedule.ahead_minutes <= AHEAD_MINUTES[1]:
        raise TournamentError(
            _("Make each tournament from %(fewest)d minutes to a week before it starts.")
            % {"fewest": AHEAD_MINUTES[0]}
        )
    if schedule.max_players < schedule.players_at_table:
        raise TournamentError(_("Let at least a table's worth of players in."))
    if (
        schedule.rating_min is not None
        and schedule.rating_max is not None
        and schedule.rating_min > schedule.rating_max
    ):
        raise TournamentError(_("The lowest rating to enter is above the highest."))


def schedule_save(*, schedule: Schedule, by) -> Schedule:
    """A new or changed calendar line, checked and saved. Tournaments it made already keep their shape:
    the change applies to those it makes from now on."""
    _may_edit(by)
    schedule_check(schedule=schedule)
    schedule.save()
    return schedule


def schedule_delete(*, schedule: Schedule, by) -> None:
    """A calendar line removed. The tournaments it made stay (upcoming ones still run), no longer linked
    to a line."""
    _may_edit(by)
    schedule.delete()


@transaction.atomic(durable=True)
def schedule_add_examples() -> list[Schedule]:
    """Add ``EXAMPLE_LINES`` that are not in the calendar yet (by name), switched off: a superuser
    switches each on in the admin, or changes it first. The lines added."""
    added = []
    for values in EXAMPLE_LINES:
        if Schedule.objects.filter(name=values["name"]).exists():
            continue
        schedule = Schedule(**values, active=False)
        schedule_check(schedule=schedule)
        schedule.save()
        added.append(schedule)
    return added
