"""Seating: the tables a pairing made, made through gameplay and noted on the tournament's rows."""

from django.utils import timezone

from gameplay import services as gameplay_services
from social.models import Block

from .. import events
from ..models import Entry, Pairing, Tournament


def apart(user_ids: list[int]) -> frozenset[frozenset[int]]:
    """The pairs among ``user_ids`` of whom one blocked the other: never at one table."""
    pairs = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids).values_list(
        "blocker_id", "blocked_id"
    )
    return frozenset(frozenset(pair) for pair in pairs)


def seat_tables(
    tournament: Tournament, groups: list[list[int]], entries: dict[int, Entry], *, round: int = 0
) -> dict[int, int]:
    """Make a table for each group of people (user ids in seat order), its match started at once;
    note each on the group's entries. Call holding the tournament's and the entries' locks. Who was
    sent where (person → table), told to their pages once the transaction commits."""
    now = timezone.now()
    sent: dict[int, int] = {}
    for group in groups:
        table = gameplay_services.table_for_people(
            people=[entries[user_id].user for user_id in group],
            game=tournament.game,
            options=tournament.options,
            rated=not tournament.is_private,
            turn_clock=tournament.turn_clock,
            is_private=tournament.is_private,
        )
        Pairing.objects.create(
            tournament=tournament, table=table, round=round, seats=list(group), made_at=now
        )
        for user_id in group:
            entry = entries[user_id]
            entry.table = table
            entry.last_table_mates = [other for other in group if other != user_id]
            sent[user_id] = table.pk
    Entry.objects.bulk_update([entries[user_id] for user_id in sent], ["table", "last_table_mates"])
    if sent:
        events.tournament_seated(tournament.pk, sent)
        events.tournament_changed(tournament.pk)
    return sent
