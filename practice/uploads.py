"""Checking a practice match played offline before it is saved to its player's history: its shape
(every field, every text short, nothing nested deep, its times sensible), whether it was saved before
(a digest, read without replaying it), the person's budget of uploads and the room in their history,
and a replay through the engine to the match's end. Once it passes, gameplay's one writer stores it
(``gameplay.services.practice_match_store``); ``views.save`` is the door the browser knocks on."""

import hashlib
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts import limits
from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.engine.replay import Replayed, ReplayError, replay
from gameplay.games import words
from gameplay.models import Match
from tables.models import BotLevel

PRACTICE_CLOCK_SLACK = timedelta(minutes=10)
"""How far ahead of the server's clock a device's clock may run."""
PRACTICE_MAX_AGE = timedelta(days=366)
"""How long after its start a practice match may still be saved (a device keeps it until then)."""
PRACTICE_MAX_DEPTH = 3
"""Lists and objects in an upload nest no deeper than its moves: the upload, its list of moves, a move."""
PRACTICE_MAX_TEXT = 64
"""No text in an upload is longer: a game, a card, a time, the practice's version."""
PRACTICE_BUDGET = "practice-upload:{user_id}"
"""The name of a person's budget of practice uploads (``accounts.limits``)."""
BOTS_WANTED = gettext_noop("Name each bot's level (easy, normal or hard), one for each other seat.")
TOO_DEEP = gettext_noop(
    "The upload is nested too deep: a practice match is an object, with a list of moves, each an object."
)


class PracticeRefused(Exception):
    """An uploaded practice match that is not saved; the text says why, in the active language."""


class PracticeThrottled(PracticeRefused):
    """The person sent more uploads, or more refused ones, than their budget allows: ``wait`` is how
    many seconds until the next is taken."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        now = timezone.now()
        later = now + timedelta(minutes=math.ceil(wait / 60))  # said in whole minutes, rounded up
        super().__init__(
            _("You are saving practice matches faster than the site takes them: try again in %(wait)s.")
            % {"wait": timeuntil(later, now, depth=2)}
        )


@dataclass(frozen=True)
class PracticeUpload:
    """A practice match as the browser sends it, its shape checked (whether it replays is not yet)."""

    game: str
    options: object
    seed: object
    bots: list[str]
    actions: list
    started_at: datetime
    finished_at: datetime


def _moment(value: object) -> datetime | None:
    """An ISO 8601 date and time with its time zone, or None."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _practice_parsed(upload: object) -> object:
    """The upload as Python: parsed when it is JSON text (a request's body), as it is otherwise."""
    if not isinstance(upload, bytes | str):
        return upload
    try:
        return json.loads(upload)
    except RecursionError:  # Python's parser recurses once per level of nesting
        raise PracticeRefused(_(TOO_DEEP)) from None
    except ValueError:  # bytes that are not UTF-8 too
        raise PracticeRefused(_("The upload is not valid JSON.")) from None


def _practice_bounded(data: object, depth: int = 0) -> None:
    """``PracticeRefused`` unless every text in ``data`` (found at ``depth`` in the upload) is short,
    every number within 64 bits and nothing nested deeper than a move: so no refusal echoes a megabyte
    back, and nothing that reads the upload (an error's ``repr``, the engine) recurses deep. One pass,
    without recursion."""
    pending = [(data, depth)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth == PRACTICE_MAX_DEPTH:
                raise PracticeRefused(_(TOO_DEEP))
            children = [*value, *value.values()] if isinstance(value, dict) else value
            pending.extend((child, depth + 1) for child in children)
        elif (isinstance(value, str) and len(value) > PRACTICE_MAX_TEXT) or (
            isinstance(value, int | float) and not abs(value) < 2**64  # NaN too
        ):
            raise PracticeRefused(
                _("The upload holds a text longer than %(count)d characters or a number beyond 64 bits.")
                % {"count": PRACTICE_MAX_TEXT}
            )


def _practice_upload(data: object) -> PracticeUpload:
    """The upload's fields, or ``PracticeRefused`` saying which is wrong. The engine checks the game,
    the options and the seed when it replays."""
    if not isinstance(data, dict):
        raise PracticeRefused(_("The upload must be a JSON object."))
    # The moves, nearly all of it, are bounded as the engine reads them (``_practice_digest``).
    _practice_bounded({key: value for key, value in data.items() if key != "actions"})
    if data.get("seat") != 0:
        raise PracticeRefused(_("In a practice match the player sits at seat 0."))
    bots = data.get("bots")
    if not isinstance(bots, list) or not all(level in BotLevel.values for level in bots):
        raise PracticeRefused(_(BOTS_WANTED))
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise PracticeRefused(_("The moves must be a list."))
    if len(actions) > settings.PRACTICE_MAX_ACTIONS:
        raise PracticeRefused(
            _("A practice match has at most %(count)d moves.") % {"count": settings.PRACTICE_MAX_ACTIONS}
        )
    started_at, finished_at = _moment(data.get("started_at")), _moment(data.get("finished_at"))
    latest = timezone.now() + PRACTICE_CLOCK_SLACK
    if not (started_at and finished_at and started_at <= finished_at <= latest):
        raise PracticeRefused(
            _("Start and end must be ISO 8601 times with a time zone, the start first, not in the future.")
        )
    if started_at < latest - PRACTICE_CLOCK_SLACK - PRACTICE_MAX_AGE:
        raise PracticeRefused(
            _("A practice match is saved within %(days)d days of its start; this one is older.")
            % {"days": PRACTICE_MAX_AGE.days}
        )
    bundle = data.get("bundle")
    if not isinstance(bundle, str) or not 0 < len(bundle) <= 64:
        raise PracticeRefused(_("The upload must name the version of the practice it was played with."))
    return PracticeUpload(
        game=data.get("game"),
        options=data.get("options"),
        seed=data.get("seed"),
        bots=bots,
        actions=actions,
        started_at=started_at,
        finished_at=finished_at,
    )


def _practice_digest(user, upload: PracticeUpload) -> str | None:
    """What names this person's match once saved: a digest of its game, options, seed, bots and moves
    in the engine's own form, read without replaying it, so a match sent again costs nothing. None
    when they are not even well formed: such an upload never replays (the replay says why, quoting the
    first move that is not one, which is checked to be small enough to quote)."""
    try:
        game = get_game(upload.game)
        options = game.options_to_json(game.options_from_json(upload.options))
    except ValueError:
        return None
    actions = []
    for action in upload.actions:
        try:
            actions.append(game.action_to_json(game.action_from_json(action)))
        except (ValueError, TypeError, RecursionError):  # RecursionError: quoting a deep one
            _practice_bounded(action, depth=2)  # a move sits in a list in the upload
            return None
    record = {
        "user": user.pk,
        "game": upload.game,
        "options": options,
        "seed": upload.seed,
        "bots": upload.bots,
        "actions": actions,
    }
    return hashlib.sha256(json.dumps(record, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _practice_replayed(upload: PracticeUpload) -> tuple[Replayed, dict]:
    """The upload replayed through the engine to the match's end, and its options in the engine's own
    form; or ``PracticeRefused`` naming the step."""
    try:
        replayed = replay(upload.game, upload.options, upload.seed, upload.actions)
    except ReplayError as error:
        reason = words.explain(error.template, error.params)
        if not error.step:
            raise PracticeRefused(reason) from None
        raise PracticeRefused(
            _("Move %(step)d does not replay: %(reason)s") % {"step": error.step, "reason": reason}
        ) from None
    if not replayed.game.is_over(replayed.state):
        raise PracticeRefused(
            _("The match is not finished: it stops after move %(count)d.") % {"count": len(upload.actions)}
        )
    options = gameplay_services.options_validate(game=upload.game, options=upload.options)
    if len(upload.bots) != options["players"] - 1:
        raise PracticeRefused(_(BOTS_WANTED))
    return replayed, options


def _practice_budget(
    user, address: str | None, steps: float, *, owe: bool = False
) -> limits.Shortfall | None:
    """Spend ``steps`` of the person's upload budget and, from a browser, of their ``address``'s
    (``accounts.limits.spend_all``, shared by every server process): None when spent, else the one
    short and the seconds until the steps are there."""
    budgets = [
        limits.Budget(
            PRACTICE_BUDGET.format(user_id=user.pk),
            settings.PRACTICE_UPLOADS_PER_HOUR / 3600,
            settings.PRACTICE_UPLOAD_BURST,
        )
    ]
    if address is not None:
        budgets.append(
            limits.Budget(
                PRACTICE_BUDGET.format(user_id=f"addr:{address}"),
                settings.PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR / 3600,
                settings.PRACTICE_UPLOAD_ADDRESS_BURST,
            )
        )
    return limits.spend_all(*budgets, cost=steps, owe=owe)


def _practice_spend(user, address: str | None, steps: float) -> None:
    """Take ``steps`` of the person's budget, or ``PracticeThrottled`` saying when to send again.
    ``steps=0`` only asks whether the person is in debt (refused unread then). An upload refused
    here after it was read still costs its reading, one step owed: whoever sends again at once what
    they cannot afford is soon refused unread. The wait said counts that step, and the one step an
    upload needs at least after a debt."""
    shortfall = _practice_budget(user, address, steps)
    if shortfall is None:
        return
    if steps:
        _practice_budget(user, address, 1, owe=True)
    raise PracticeThrottled(shortfall.wait + 1 / shortfall.budget.rate)


@contextmanager
def _refusal_charged(user, address: str | None) -> Iterator[None]:
    """An upload refused in here costs its sender ``settings.PRACTICE_REFUSED_UPLOAD_STEPS``, owed by
    one who has no steps left: a forger pays more than a player saving their matches."""
    try:
        yield
    except PracticeRefused:
        _practice_budget(user, address, settings.PRACTICE_REFUSED_UPLOAD_STEPS, owe=True)
        raise


def _practice_room(user) -> None:
    """``PracticeRefused`` when the person's history already keeps as many practice matches as it may."""
    kept = settings.PRACTICE_MATCHES_KEPT
    if Match.objects.filter(practice=True, table__host=user).count() >= kept:
        raise PracticeRefused(
            ngettext(
                "Your history already keeps %(count)d practice match, the most it keeps for one person, "
                "so this one is not saved. It stays on this device, in the list of practice matches below.",
                "Your history already keeps %(count)d practice matches, the most it keeps for one person, "
                "so this one is not saved. It stays on this device, in the list of practice matches below.",
                kept,
            )
            % {"count": kept}
        )


def _practice_steps(moves: int) -> float:
    """An upload's share of the budget: the work of saving it grows with its moves."""
    return max(1.0, settings.PRACTICE_UPLOAD_BURST * moves / settings.PRACTICE_MAX_ACTIONS)


def practice_record(*, user, upload: object, address: str | None = None) -> tuple[Match, bool]:
    """Save a practice match played offline (the upload's JSON text, or the value it holds; see
    ``PracticeUpload``) to ``user``'s history once it replays through the engine to its end:
    (the match, True) when saved now, (the match, False) when this very match was saved before.
    ``PracticeRefused`` says what is wrong; ``PracticeThrottled`` when the person sends too many.

    What it costs the person, from a budget of ``settings.PRACTICE_UPLOAD_BURST`` steps refilled at
    ``PRACTICE_UPLOADS_PER_HOUR``: nothing for a match saved before (found by its digest, before any
    replay); for one replayed, a step, or its share of the burst for a long one (the longest allowed
    takes it whole); ``PRACTICE_REFUSED_UPLOAD_STEPS`` more for one refused, owed even with nothing
    left, and until the debt is paid every upload is refused unread. A person keeps at most
    ``PRACTICE_MATCHES_KEPT``. The browser's ``address`` (None when not from one) spends the same
    from a budget of its own (``PRACTICE_UPLOAD_ADDRESS_BURST``, ``PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR``),
    whatever its accounts. The replay runs before any transaction opens; saving is one durable
    transaction."""
    _practice_spend(user, address, 0)  # in debt for refused uploads: not even read
    with _refusal_charged(user, address):
        checked = _practice_upload(_practice_parsed(upload))
        digest = _practice_digest(user, checked)
    saved = Match.objects.filter(practice_digest=digest).first() if digest else None
    if saved is not None:
        return saved, False
    _practice_room(user)
    _practice_spend(user, address, _practice_steps(len(checked.actions)))
    with _refusal_charged(user, address):
        replayed, options = _practice_replayed(checked)
    try:
        return _practice_store(user, checked, options, replayed, digest), True
    except IntegrityError:  # the same upload, saved a moment ago by a second request
        return Match.objects.get(practice_digest=digest), False


def _practice_store(user, upload: PracticeUpload, options: dict, replayed: Replayed, digest: str) -> Match:
    """The replayed upload, stored by gameplay's one writer, which checks the person's room again while
    it holds their row."""
    return gameplay_services.practice_match_store(
        user=user,
        game=upload.game,
        options=options,
        seed=upload.seed,
        bots=upload.bots,
        started_at=upload.started_at,
        finished_at=upload.finished_at,
        replayed=replayed,
        digest=digest,
        room_check=lambda: _practice_room(user),
    )
