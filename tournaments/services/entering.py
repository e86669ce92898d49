"""Coming and going: a person joins a tournament (or comes back to it), pauses or withdraws (or sits
down in the lobby, which pauses them), and the tournament page's heartbeat says they are still there.
A private tournament made by a player."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import limits
from accounts.selectors import is_established
from gameplay import services as gameplay_services
from ratings.models import Rating
from ratings.selectors import shown_ratings
from social import services as social_services
from tables.models import Game, Table, TurnClock
from tables.services import TableError

from ..models import Entry, Kind, Tournament
from .arena import arena_pair
from .shared import TournamentError, busy, free_of_tables, spend_entry_change

PRIVATE_MAX_PLAYERS = 64
LENGTHS = {Kind.ARENA: (10, 120), Kind.SWISS: (5, 60)}
"""Minutes: an arena's length, or a Swiss round's time limit, from shortest to longest."""
SWISS_ROUNDS = (2, 11)


def entry_refusal(tournament: Tournament, user) -> str:
    """Why ``user`` may not enter ``tournament`` by its rules (empty: they may). A private
    tournament's matches are casual, so anyone with its link may play; a public one's are rated, so
    it takes established accounts, and its own minimum of rated matches and rating band. A bot account
    enters none: its matches are played against people on its host's or its challengers' tables."""
    if not user.is_active:
        return _("This account cannot play.")
    if user.is_bot_account:
        return _("Tournaments are for people: a bot account cannot enter one.")
    if tournament.is_private:
        return ""
    if not is_established(user):
        return _("Tournaments are rated: your account must be confirmed and a few days old to enter.")
    rating = Rating.objects.filter(user=user, game=tournament.game).first()
    matches = rating.matches if rating else 0
    if matches < tournament.min_rated_matches:
        return _("This tournament takes players with %(count)d rated matches of its game or more.") % {
            "count": tournament.min_rated_matches
        }
    shown = shown_ratings(user_ids=[user.pk], game=tournament.game)[user.pk]
    if tournament.rating_min is not None and shown < tournament.rating_min:
        return _("This tournament takes ratings of %(rating)d or more.") % {"rating": tournament.rating_min}
    if tournament.rating_max is not None and shown > tournament.rating_max:
        return _("This tournament takes ratings of %(rating)d or less.") % {"rating": tournament.rating_max}
    return ""


def tournament_join(*, user, tournament_id: int, token: str = "", address: str | None = None) -> Entry:
    """``user`` joins (or, paused, comes back to) a tournament that has not ended. Joining twice
    changes nothing. Never while at a table elsewhere; it takes them out of the pairing pool. A private
    tournament needs its link's ``token``. An arena pairs at once, after the join commits."""
    spend_entry_change(user, address)
    with transaction.atomic(durable=True):
        # One join of a person at a time (a double click, a second tab, the pool in another tab).
        get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        tournament = Tournament.objects.select_for_update(no_key=True).filter(pk=tournament_id).first()
        if tournament is None or tournament.is_over:
            raise TournamentError(_("This tournament is over."))
        entry = Entry.objects.select_for_update().filter(tournament=tournament, user=user).first()
        if entry is not None and entry.disqualified_at is not None:
            raise TournamentError(_("You were disqualified from this tournament."))
        if entry is None:
            _check_new_entry(tournament, user, token)
        # Out of the pool first: a pairing that holds their pool entry is waited for, and a table it
        # made meanwhile is seen by the check below.
        social_services.pool_leave_within(user_ids=[user.pk])
        if busy([user.pk], except_tables=[entry.table_id] if entry and entry.table_id else []):
            raise TournamentError(_("You are at a table: finish its match or leave it first."))
        now = timezone.now()
        if entry is None:
            rating = shown_ratings(user_ids=[user.pk], game=tournament.game)[user.pk]
            entry = Entry.objects.create(
                tournament=tournament, user=user, rating=rating, joined_at=now, seen_at=now
            )
        else:
            entry.paused, entry.seen_at = False, now
            entry.save(update_fields=["paused", "seen_at"])
    _pair_if_arena(tournament)
    return entry


def _check_new_entry(tournament: Tournament, user, token: str) -> None:
    invited = secrets.compare_digest(token.encode(), tournament.join_token.encode())
    if tournament.is_private and not invited and tournament.created_by_id != user.pk:
        raise TournamentError(_("This tournament is private: ask its creator for the link."))
    if tournament.kind == Kind.SWISS and tournament.status != Tournament.Status.UPCOMING:
        raise TournamentError(
            _("This Swiss tournament has started: its rounds are made for those who joined.")
        )
    if (refusal := entry_refusal(tournament, user)) != "":
        raise TournamentError(refusal)
    if Entry.objects.filter(tournament=tournament).count() >= tournament.max_players:
        raise TournamentError(_("This tournament is full."))


def _pair_if_arena(tournament: Tournament) -> None:
    if tournament.kind == Kind.ARENA and tournament.status == Tournament.Status.RUNNING:
        arena_pair(tournament_id=tournament.pk)


def tournament_withdraw(*, user, tournament_id: int, address: str | None = None) -> Entry | None:
    """``user`` stops playing: before the start they leave the tournament (None); once it runs, they
    are paused (not seated again; their points stay, and they may come back). A match they are
    playing goes on."""
    spend_entry_change(user, address)
    with transaction.atomic(durable=True):
        # The tournament's row first (the lock order): a start under way is waited for, so nobody
        # leaves a tournament that is starting with them and telling them so.
        tournament = Tournament.objects.select_for_update(no_key=True).filter(pk=tournament_id).first()
        entry = Entry.objects.select_for_update().filter(tournament=tournament, user=user).first()
        if tournament is None or entry is None:
            return None
        if tournament.is_over:
            raise TournamentError(_("This tournament is over."))
        if tournament.status == Tournament.Status.UPCOMING:
            entry.delete()
            return None
        entry.paused = True
        entry.save(update_fields=["paused"])
    return entry


def paused_for_seat(sender, *, table: Table, user, **kwargs) -> None:
    """``tables.signals.person_sitting``: a person sitting down at a lobby table is paused in every
    tournament they play in. Their entries are locked first (only they: the tournament's row is a
    pairing's to hold, and a lobby seat waiting for it would deadlock with a pairing waiting for the
    entry), so a pairing that holds them is waited for; if it seated them meanwhile, the lobby's seat
    is refused."""
    entries = list(
        Entry.objects.select_for_update(of=("self",)).filter(
            user=user, paused=False, tournament__status=Tournament.Status.RUNNING
        )
    )
    sent_to = {entry.table_id for entry in entries if entry.table_id not in (None, table.pk)}
    if Table.objects.filter(pk__in=sent_to, status__in=Table.NOT_OVER).exists():
        raise TableError(_("Your tournament has just seated you: play that match first."))
    Entry.objects.filter(pk__in=[entry.pk for entry in entries]).update(paused=True)


def tournament_seen(*, tournament_id: int, user_ids: list[int]) -> dict[int, int]:
    """The pages of ``user_ids`` showing the tournament are still open (their process's heartbeat); the
    tournament tables, not over yet, that any of them was sent to, by person (a page that missed the
    news opens it)."""
    now = timezone.now()
    with transaction.atomic(durable=True):
        # Rows a pairing or a score holds are skipped, not waited for: the next beat stamps them.
        free = Entry.objects.select_for_update(skip_locked=True).filter(
            tournament_id=tournament_id, user_id__in=user_ids
        )
        Entry.objects.filter(pk__in=list(free.values_list("pk", flat=True))).update(seen_at=now)
    seated = Entry.objects.filter(tournament_id=tournament_id, user_id__in=user_ids).exclude(free_of_tables())
    return dict(seated.values_list("user_id", "table_id"))


def _spend_creation(user, address: str | None) -> None:
    if shortfall := limits.spend_person_and_address(
        "tournaments-created",
        user.pk,
        address,
        count=settings.TOURNAMENTS_CREATED_PER_DAY,
        address_count=settings.TOURNAMENTS_CREATED_PER_ADDRESS_PER_DAY,
        seconds=86400,
        refusal=_("You have created as many tournaments as a day allows: try again tomorrow."),
        address_refusal=_("Many tournaments were created from your network today: try again tomorrow."),
    ):
        raise TournamentError(shortfall.said)


def shape_check(
    *, kind: str, game: str, players: int, options: dict, turn_clock: int, minutes: int, rounds: int
) -> dict:
    """The tournament's match options, checked by the game's rules, and its shape checked; the
    options to store."""
    if kind not in Kind.values or game not in Game.values:
        raise TournamentError(_("Choose a kind of tournament and a game."))
    if players not in (2, 3, 4):
        raise TournamentError(_("Choose how many play at a table: 2, 3 or 4."))
    if turn_clock not in TurnClock.values or turn_clock == TurnClock.NONE:
        raise TournamentError(_("Choose a turn clock."))
    shortest, longest = LENGTHS[kind]
    if not shortest <= minutes <= longest:
        raise TournamentError(
            _("Choose a length from %(shortest)d to %(longest)d minutes.")
            % {"shortest": shortest, "longest": longest}
        )
    if kind == Kind.SWISS and not SWISS_ROUNDS[0] <= rounds <= SWISS_ROUNDS[1]:
        raise TournamentError(
            _("Choose from %(fewest)d to %(most)d rounds.")
            % {"fewest": SWISS_ROUNDS[0], "most": SWISS_ROUNDS[1]}
        )
    try:
        return gameplay_services.options_validate(game=game, options={**options, "players": players})
    except TableError as error:
        raise TournamentError(str(error)) from None


def tournament_create_private(
    *,
    by,
    name: str,
    kind: str,
    game: str,
    players: int,
    options: dict,
    turn_clock: int,
    starts_in_minutes: int,
    minutes: int,
    rounds: int = 0,
    address: str | None = None,
) -> Tournament:
    """A private tournament for friends: joined through its link, its matches casual (private tables),
    its creator in it. ``TOURNAMENTS_CREATED_PER_DAY`` a person."""
    name = " ".join(name.split())[:80]
    if not name:
        raise TournamentError(_("Give the tournament a name."))
    if not 1 <= starts_in_minutes <= 7 * 24 * 60:
        raise TournamentError(_("Start it within a week."))
    checked = shape_check(
        kind=kind,
        game=game,
        players=players,
        options=options,
        turn_clock=turn_clock,
        minutes=minutes,
        rounds=rounds,
    )
    _spend_creation(by, address)
    starts_at = timezone.now() + timedelta(minutes=starts_in_minutes)
    with transaction.atomic(durable=True):
        tournament = Tournament.objects.create(
            name=name,
            kind=kind,
            game=game,
            options=checked,
            turn_clock=turn_clock,
            minutes=minutes,
            rounds=rounds if kind == Kind.SWISS else 0,
            starts_at=starts_at,
            ends_at=starts_at + timedelta(minutes=minutes) if kind == Kind.ARENA else None,
            is_private=True,
            created_by=by,
            max_players=PRIVATE_MAX_PLAYERS,
        )
        rating = shown_ratings(user_ids=[by.pk], game=game)[by.pk]
        Entry.objects.create(
            tournament=tournament, user=by, rating=rating, joined_at=timezone.now(), seen_at=timezone.now()
        )
    return tournament
