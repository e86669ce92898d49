"""Storing a practice match played offline, once ``practice.uploads`` has checked it and the engine has
replayed it to its end: the one writer's door for it. It is written as a finished match at a closed
table of its own, with its players, moves and score sheet, as if it had been played here."""

from collections.abc import Callable
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction

from tables import services as table_services

from ..engine.replay import Replayed
from ..games import presenter
from ..models import Match, Move, Participant, RoundResult
from . import store


@transaction.atomic(durable=True)
def practice_match_store(
    *,
    user,
    game: str,
    options: dict,
    seed: int,
    bots: list[str],
    started_at: datetime,
    finished_at: datetime,
    replayed: Replayed,
    digest: str,
    room_check: Callable[[], None],
) -> Match:
    """The replayed practice match of ``user`` against ``bots`` (seat 1 on), written as a finished match at
    a closed table of its own; ``digest`` names it (saved once, see ``Match.practice_digest``). The
    person's row is held (``FOR NO KEY UPDATE``, which rows naming them may still be added beside)
    while ``room_check`` counts their practice matches (raising to refuse, which stores nothing), so
    two saves at once cannot both take the last place."""
    get_user_model().objects.select_for_update(no_key=True).get(pk=user.pk)
    room_check()
    moves = replayed.moves
    table = table_services.table_new_practice(
        host=user,
        game=game,
        options=options,
        bot_levels=bots,
        started_at=started_at,
        finished_at=finished_at,
    )
    match = Match.objects.create(
        table=table,
        game=game,
        options=options,
        seed=seed,
        state=replayed.game.state_to_json(replayed.state),
        version=len(moves),
        moves_made=len(moves),
        status=Match.Status.FINISHED,
        result=store.result(moves[-1].round_over.public),  # the last move ended the match
        deal_events=next((move.dealt for move in reversed(moves) if move.dealt is not None), []),
        finished_at=finished_at,
        turn_started_at=finished_at,
        practice=True,
        practice_digest=digest,
    )
    Match.objects.filter(pk=match.pk).update(started_at=started_at)  # not "now", as it was added
    match.started_at = started_at
    Participant.objects.bulk_create(
        [Participant(match=match, seat=0, user=user, name=user.username)]
        + [Participant(match=match, seat=seat, bot_level=level) for seat, level in enumerate(bots, 1)]
    )
    Move.objects.bulk_create(
        Move(
            match=match,
            seq=seq,
            seat=move.seat,
            action=move.action,
            events=move.events,
            actor=Move.Actor.PLAYER if move.seat == 0 else Move.Actor.BOT,
        )
        for seq, move in enumerate(moves, 1)
    )
    show = presenter(match.game)
    RoundResult.objects.bulk_create(
        RoundResult(match=match, number=ended.number, summary=show.round_summary(ended.public))
        for ended in (move.round_over for move in moves)
        if ended
    )
    return match
