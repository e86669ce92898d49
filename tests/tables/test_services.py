"""Seats, tables and their rules, on PostgreSQL."""

import threading

import pytest
from django.db import connection

from gameplay import services as gameplay_services
from gameplay.models import Match
from tables import services
from tables.models import Seat, Table
from tests.factories import make_user

AMERICANA_DEFAULTS = {
    "players": 4,
    "jokers": False,
    "jack_draws_two": False,
    "court_follows": False,
    "target": 101,
}


def new_table(host, game="americana", options=None, **extra) -> Table:
    kwargs = {"turn_clock": 45, "is_private": False, **extra}
    return gameplay_services.table_create(host=host, game=game, options=options or {"players": 2}, **kwargs)


def test_create_fills_defaults_and_seats_the_host(ana):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={}, turn_clock=20, is_private=False
    )
    assert table.options == AMERICANA_DEFAULTS
    seats = list(table.seats.order_by("position"))
    assert [s.position for s in seats] == [0, 1, 2, 3]
    assert seats[0].user == ana
    assert all(s.is_free for s in seats[1:])
    assert table.status == Table.Status.WAITING


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("americana", {"players": 5}),
        ("americana", {"target": 100}),
        ("classic", {"players": 4, "match": "points9"}),
        ("classic", {"lead": "loser"}),
        ("chess", {}),
    ],
)
def test_create_refuses_invalid_options_with_a_reason(ana, game, options):
    with pytest.raises(services.TableError) as error:
        gameplay_services.table_create(host=ana, game=game, options=options, turn_clock=45, is_private=False)
    assert str(error.value)
    assert not Table.objects.exists()


def test_no_clock_only_for_private_tables(ana):
    with pytest.raises(services.TableError, match="Only private tables"):
        new_table(ana, turn_clock=0)
    assert new_table(ana, turn_clock=0, is_private=True).turn_clock == 0


def test_classic_teams_take_four_seats(ana):
    table = new_table(ana, game="classic", options={"players": 4, "match": "games2", "lead": "winner"})
    assert table.seats.count() == 4
    assert table.options == {"players": 4, "match": "games2", "lead": "winner"}


def test_the_match_starts_when_the_last_seat_fills(ana, ion):
    table = new_table(ana, options={"players": 3})
    services.seat_take(table_id=table.pk, user=ion)
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING
    assert not Match.objects.exists()
    services.bot_add(table_id=table.pk, by=ana, position=2, level="hard")
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert table.started_at is not None
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.PLAYING
    assert match.state and match.version == 0


def test_a_user_sits_once_per_table(ana):
    table = new_table(ana, options={"players": 3})
    with pytest.raises(services.TableError, match="already sit"):
        services.seat_take(table_id=table.pk, user=ana, position=1)


def test_taken_seat_and_started_and_closed_tables_refuse_joins(ana, ion):
    table = new_table(ana, options={"players": 3})
    with pytest.raises(services.TableError, match="Someone else just took this seat"):
        services.seat_take(table_id=table.pk, user=ion, position=0)
    gameplay_services.table_close(table_id=table.pk, reason="test")
    with pytest.raises(services.TableError, match="This table is closed"):
        services.seat_take(table_id=table.pk, user=ion)
    full = new_table(ana)
    services.seat_take(table_id=full.pk, user=ion)
    with pytest.raises(services.TableError, match="already started"):
        services.seat_take(table_id=full.pk, user=make_user("eva"))


def test_only_the_host_manages_bots_and_kicks(ana, ion):
    table = new_table(ana, options={"players": 4})
    services.seat_take(table_id=table.pk, user=ion, position=1)
    with pytest.raises(services.TableError, match="Only the host"):
        services.bot_add(table_id=table.pk, by=ion, position=2, level="easy")
    with pytest.raises(services.TableError, match="Only the host"):
        services.player_kick(table_id=table.pk, by=ion, position=0)
    services.bot_add(table_id=table.pk, by=ana, position=2, level="easy")
    with pytest.raises(services.TableError, match="not free"):
        services.bot_add(table_id=table.pk, by=ana, position=2, level="easy")
    with pytest.raises(services.TableError, match="bot level"):
        services.bot_add(table_id=table.pk, by=ana, position=3, level="genius")
    services.bot_remove(table_id=table.pk, by=ana, position=2)
    services.player_kick(table_id=table.pk, by=ana, position=1)
    assert all(seat.is_free for seat in Seat.objects.filter(table=table, position__in=[1, 2]))


def test_leaving_host_hands_the_table_on_or_closes_it(ana, ion):
    table = new_table(ana, options={"players": 3})
    services.seat_take(table_id=table.pk, user=ion)
    services.seat_leave(table_id=table.pk, user=ana)
    table.refresh_from_db()
    assert table.host == ion
    services.seat_leave(table_id=table.pk, user=ion)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_invitation_seats_whoever_opens_it_while_a_seat_is_free(ana, ion):
    table = new_table(ana, options={"players": 2}, is_private=True)
    assert len(table.invite_token) >= 20
    assert services.invitation_accept(token=table.invite_token, user=ion) == table
    assert table.seats.get(position=1).user == ion
    # Opening it again is harmless: already seated.
    services.invitation_accept(token=table.invite_token, user=ion)
    with pytest.raises(services.TableError, match="not valid"):
        services.invitation_accept(token="forged-token", user=ion)
    with pytest.raises(services.TableError, match="already started"):
        services.invitation_accept(token=table.invite_token, user=make_user("eva"))


def test_play_now_starts_against_normal_bots_at_once(ana):
    table = gameplay_services.play_now(user=ana, game="classic")
    assert table.status == Table.Status.PLAYING
    assert table.is_private
    seats = list(table.seats.order_by("position"))
    assert seats[0].user == ana
    assert [s.bot_level for s in seats[1:]] == ["normal"] * (len(seats) - 1)
    assert Match.objects.filter(table=table, status="playing").count() == 1


def finish(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    Match.objects.filter(table=table).update(status=Match.Status.FINISHED)


def test_rematch_keeps_seats_and_options(ana, ion):
    table = new_table(ana, options={"players": 3, "target": 301})
    services.seat_take(table_id=table.pk, user=ion, position=1)
    services.bot_add(table_id=table.pk, by=ana, position=2, level="hard")
    with pytest.raises(services.TableError, match="once the match is over"):
        gameplay_services.rematch_offer(table_id=table.pk, by=ion)
    finish(table)
    rematch = gameplay_services.rematch_offer(table_id=table.pk, by=ion)
    assert rematch.rematch_of == table
    assert rematch.options == table.options and rematch.game == table.game
    seats = {s.position: s for s in rematch.seats.all()}
    assert seats[1].user == ion and rematch.host == ion
    assert seats[0].user is None and seats[0].reserved_for == ana
    assert seats[2].bot_level == "hard"
    with pytest.raises(services.TableError, match="kept for another player"):
        services.seat_take(table_id=rematch.pk, user=make_user("eva"), position=0)
    assert gameplay_services.rematch_offer(table_id=table.pk, by=ana) == rematch
    rematch.refresh_from_db()
    assert rematch.status == Table.Status.PLAYING
    assert rematch.seats.get(position=0).user == ana


def test_only_players_offer_a_rematch(ana, ion):
    table = new_table(ana)
    services.bot_add(table_id=table.pk, by=ana, position=1, level="easy")
    finish(table)
    with pytest.raises(services.TableError, match="Only the players"):
        gameplay_services.rematch_offer(table_id=table.pk, by=ion)


def test_closing_a_table_aborts_its_match(ana):
    table = gameplay_services.play_now(user=ana, game="americana")
    gameplay_services.table_close(table_id=table.pk, reason="Closed by a moderator.")
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.ABORTED
    assert match.abort_reason == "Closed by a moderator."
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED


def test_replacing_a_player_puts_a_bot_in_the_seat(ana, ion):
    table = new_table(ana)
    services.seat_take(table_id=table.pk, user=ion)
    gameplay_services.player_replace_with_bot(table_id=table.pk, position=1)
    seat = table.seats.get(position=1)
    assert seat.user is None and seat.bot_level == "normal"


@pytest.mark.django_db(transaction=True)
def test_two_people_clicking_the_same_free_seat_at_once_one_wins():
    host, first, second = make_user("host"), make_user("first"), make_user("second")
    table = new_table(host, options={"players": 3})
    barrier = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def click(user) -> None:
        try:
            barrier.wait()
            services.seat_take(table_id=table.pk, user=user, position=1)
            outcomes[user.username] = "seated"
        except services.TableError as error:
            outcomes[user.username] = str(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=click, args=(user,)) for user in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes.values()) == ["Someone else just took this seat. Choose another.", "seated"]
    assert Seat.objects.get(table=table, position=1).user.username in outcomes
    assert Seat.objects.filter(table=table, user__isnull=False).count() == 2
