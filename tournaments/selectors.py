"""The tournaments' reads: the lists of the tournaments page, who may see a tournament, its live part
(the same for every viewer, so one render serves them all), the viewer's own place, and the trophies
on a profile."""

import secrets
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet

from tables.models import Table

from .models import Entry, Pairing, Tournament, Trophy
from .standing import ranked

FINISHED_LISTED = 20
"""The finished tournaments the list shows, newest first."""
STANDING_SHOWN = 100
"""The standing's rows a tournament's page shows: a thousand would weigh on every push; the viewer's
own place is in their box."""


def _playing() -> Q:
    """Entries (seen from their tournament) still playing: not paused, not disqualified."""
    return Q(entries__paused=False, entries__disqualified_at__isnull=True)


def visible_to(viewer) -> Q:
    """Tournaments ``viewer`` may see listed: public ones, and the private ones they created or entered."""
    public = Q(is_private=False)
    if not viewer.is_authenticated:
        return public
    entered = Exists(Entry.objects.filter(tournament=OuterRef("pk"), user_id=viewer.pk))
    return public | Q(created_by_id=viewer.pk) | entered


@dataclass(frozen=True)
class TournamentLists:
    upcoming: QuerySet
    running: QuerySet
    finished: QuerySet
    """Finished or cancelled; each with ``winners`` (the place-1 trophy, if any)."""


def tournament_lists(*, viewer) -> TournamentLists:
    """The tournaments page's three lists; each tournament carries ``playing`` (entered, not paused,
    not disqualified)."""
    shown = (
        Tournament.objects.filter(visible_to(viewer))
        .annotate(playing=Count("entries", filter=_playing()))
        .order_by("starts_at")
    )
    first = Trophy.objects.filter(place=1).select_related("user")
    winners = Prefetch("trophies", queryset=first, to_attr="winners")
    over = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    return TournamentLists(
        upcoming=shown.filter(status=Tournament.Status.UPCOMING),
        running=shown.filter(status=Tournament.Status.RUNNING),
        finished=shown.filter(status__in=over)
        .order_by("-finished_at", "-pk")
        .prefetch_related(winners)[:FINISHED_LISTED],
    )


HOME_LISTED = 3


def tournaments_soon(*, viewer) -> list[Tournament]:
    """What the home page shows: the running tournaments and the next to start, those running first."""
    lists = tournament_lists(viewer=viewer)
    return [*lists.running, *lists.upcoming][:HOME_LISTED]


def tournament_shown(*, tournament_id: int, viewer, token: str = "") -> Tournament | None:
    """The tournament if ``viewer`` may open its page: a public one; a private one for its creator,
    its entrants, and whoever holds its link's ``token``. None otherwise (the page is "not found")."""
    tournament = Tournament.objects.filter(pk=tournament_id).select_related("created_by").first()
    if tournament is None or not tournament.is_private:
        return tournament
    if token and secrets.compare_digest(token.encode(), tournament.join_token.encode()):
        return tournament
    return tournament if Tournament.objects.filter(visible_to(viewer), pk=tournament_id).exists() else None


@dataclass(frozen=True)
class StandingRow:
    rank: int
    user_id: int
    username: str
    erased: bool
    """A closed account: its name reads "a deleted player" (translated where it is rendered)."""
    points: int
    matches: int
    wins: int
    on_fire: bool
    paused: bool


def _standing(tournament: Tournament) -> list[StandingRow]:
    """Every row of the standing, disqualified people left out: the kept final places once finished,
    else the standing now (``standing.ranked``)."""
    fields = ("user_id", "points", "matches", "wins", "streak", "paused", "rank", "user__username")
    entries = Entry.objects.filter(tournament=tournament, disqualified_at__isnull=True).values(
        *fields, "user__erased_at"
    )
    by_user = {entry["user_id"]: entry for entry in entries}
    if tournament.status == Tournament.Status.FINISHED:
        order = sorted((entry["rank"] or len(by_user) + 1, user_id) for user_id, entry in by_user.items())
    else:
        order = [(row.rank, row.user) for row in ranked(tournament)]
    rows = []
    for rank, user_id in order:
        entry = by_user[user_id]
        rows.append(
            StandingRow(
                rank=rank,
                user_id=user_id,
                username=entry["user__username"],
                erased=entry["user__erased_at"] is not None,
                points=entry["points"],
                matches=entry["matches"],
                wins=entry["wins"],
                on_fire=entry["streak"] >= 2,
                paused=entry["paused"],
            )
        )
    return rows


@dataclass(frozen=True)
class TopTable:
    table_id: int
    players: list[StandingRow]


def _top_table(tournament: Tournament, standing: list[StandingRow]) -> TopTable | None:
    """The table being played whose best-placed player stands highest: the one worth watching."""
    if tournament.status != Tournament.Status.RUNNING:
        return None
    tables = Pairing.objects.filter(
        tournament=tournament, scored_at__isnull=True, table__status__in=Table.NOT_OVER
    ).values_list("table_id", "seats")
    by_user = {row.user_id: row for row in standing}
    best = None
    for table_id, seats in tables:
        players = [by_user[user_id] for user_id in seats if user_id in by_user]
        if players and (best is None or min(p.rank for p in players) < min(p.rank for p in best.players)):
            best = TopTable(table_id=table_id, players=sorted(players, key=lambda row: row.rank))
    return best


def _live(tournament: Tournament, standing: list[StandingRow]) -> dict:
    podium = []
    if tournament.status == Tournament.Status.FINISHED:
        podium = list(Trophy.objects.filter(tournament=tournament).select_related("user").order_by("place"))
    return {
        "tournament": tournament,
        "standing": standing[:STANDING_SHOWN],
        "standing_count": len(standing),
        "playing": sum(1 for row in standing if not row.paused),
        "top_table": _top_table(tournament, standing),
        "podium": podium,
    }


def live_context(*, tournament_id: int) -> dict:
    """What ``tournaments/_live.html`` renders: the status, the round, how many play, the standing's
    first rows, the top table, the podium, why it was cancelled. Nothing in it depends on who looks, so
    a process renders it once per language for all the page's viewers. ``cancelled_because`` may be a
    msgid: the template translates it."""
    tournament = Tournament.objects.get(pk=tournament_id)
    return _live(tournament, _standing(tournament))


@dataclass(frozen=True)
class MyEntry:
    """The viewer's own box on a tournament's page."""

    entry: Entry
    place: int | None
    table_id: int | None
    """The tournament table they are playing at, if a match there is still to come or being played."""


def page_context(*, tournament: Tournament, viewer) -> dict:
    """A tournament's page: its live part (``live_context``'s) and the viewer's own entry (``mine``),
    the standing read once for both."""
    standing = _standing(tournament)
    context = _live(tournament, standing)
    entry = None
    if viewer.is_authenticated:
        entry = Entry.objects.filter(tournament=tournament, user_id=viewer.pk).select_related("table").first()
    if entry is not None:
        place = next((row.rank for row in standing if row.user_id == viewer.pk), None)
        playing_at = entry.table_id if entry.table and entry.table.status in Table.NOT_OVER else None
        context["mine"] = MyEntry(entry=entry, place=place, table_id=playing_at)
    return context


def trophies_of(*, user_id: int) -> list[Trophy]:
    """A person's podium places, newest first, with their tournaments."""
    return list(Trophy.objects.filter(user_id=user_id).select_related("tournament").order_by("-won_at"))
