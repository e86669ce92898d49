"""The top bar's count of matches at own pace waiting for a person's move, kept live by the site socket
over real websockets and the Redis channel layer: a move tells both people at the table their new count
(each page recounts for its own person), and nobody else."""

import pytest
from asgiref.sync import sync_to_async

from gameplay import services
from gameplay.models import Match
from tables import services as table_services
from tables.models import Pace
from tests.channels import open_socket
from tests.factories import make_user
from tests.gameplay.helpers import first_legal
from tests.social.test_site_socket import frame

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def own_pace_match(host, guest) -> Match:
    table = services.table_create(
        host=host,
        game="classic",
        options={"players": 2},
        turn_clock=45,
        is_private=False,
        pace_hours=Pace.DAY_1,
    )
    table_services.seat_take(table_id=table.pk, user=guest)
    return Match.objects.get(table=table)


def play_first_legal(match: Match) -> int:
    """The seat to move plays its first legal card; the seat whose turn it is then."""
    match.refresh_from_db()
    mover, action = first_legal(match)
    services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
    match.refresh_from_db()
    return match.to_act


async def test_a_move_at_own_pace_tells_both_players_their_count_over_the_site_socket():
    ana, ion, eve = [await sync_to_async(make_user)(name) for name in ("ana", "ion", "eve")]
    match = await sync_to_async(own_pace_match)(ana, ion)
    by_seat = {0: ana, 1: ion}
    pages = {user.pk: await open_socket("/ws/me/?lang=en", user) for user in (ana, ion)}
    bystander = await open_socket("/ws/me/?lang=en", eve)
    now_to_act = await sync_to_async(play_first_legal)(match)
    waiting_for = by_seat[now_to_act]
    for user in (ana, ion):
        told = await frame(pages[user.pk], "turns")
        assert told["count"] == (1 if user == waiting_for else 0)
    assert await bystander.receive_nothing(timeout=1)
    for socket in (*pages.values(), bystander):
        await socket.disconnect()
