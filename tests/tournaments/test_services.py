"""The tournaments' services on PostgreSQL and Redis: an arena and a Swiss event from the first join to
the podium, the doors that refuse, and what moderators do."""

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import moderators
from gameplay import services as gameplay_services
from social import services as social_services
from social.models import Notice, PoolEntry
from social.services import SocialError
from tables import services as table_services
from tables.models import Seat, Table
from tests.factories import make_user
from tests.faults.play import wait_for
from tournaments import services
from tournaments.models import Entry, Pairing, Score, Tournament
from tournaments.standing import ranked

from .conftest import (
    CLASSIC_QUICK,
    closing_connection,
    entered,
    held_by_another_session,
    open_tables,
    play_out,
    waiting_for_lock,
)

pytestmark = pytest.mark.django_db(transaction=True)


def seated_once(event: Tournament) -> dict[int, int]:
    """Person → their open table in ``event``; fails if anyone sits at two."""
    seen: dict[int, int] = {}
    for table_id, seats in open_tables(event).items():
        for user_id in seats:
            assert user_id not in seen, f"{user_id} sits at tables {seen[user_id]} and {table_id}"
            seen[user_id] = table_id
    return seen


def test_arena_starts_notifies_each_and_seats_the_waiting_by_standing(people):
    from .conftest import tournament

    event = tournament(starts_in=timedelta(seconds=30))
    for person in people[:5]:
        services.tournament_join(user=person, tournament_id=event.pk)
    assert Entry.objects.filter(tournament=event).count() == 5
    assert not Pairing.objects.exists()  # nobody is seated before the start

    services.tick()  # not yet due: nothing happens
    assert Tournament.objects.get(pk=event.pk).status == Tournament.Status.UPCOMING
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
    services.tick()

    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    notified = Notice.objects.filter(kind=Notice.Kind.TOURNAMENT_STARTING, subject=event.name)
    assert sorted(notified.values_list("recipient_id", flat=True)) == sorted(p.pk for p in people[:5])
    tables = open_tables(event)
    # Nearest in the standing (the rating order before any points): 1900 with 1800, 1700 with 1600.
    assert sorted(tables.values()) == [[people[0].pk, people[1].pk], [people[2].pk, people[3].pk]]
    assert all(len(seats) == 2 for seats in tables.values())
    for table_id, seats in tables.items():
        at_table = Seat.objects.filter(table_id=table_id).order_by("position")
        assert list(at_table.values_list("user_id", flat=True)) == seats
    seated_once(event)
    waiting = Entry.objects.get(tournament=event, user=people[4])
    assert waiting.table_id is None


def expected_points(match, seats: list[int]) -> dict[int, tuple[int, bool]]:
    """Person → (points by place, won) for a decided two-seat match: win 2, level 1, loss 0."""
    winners = match.result["winners"]
    if len(winners) == 1:
        return {user_id: (2, True) if seat in winners else (0, False) for seat, user_id in enumerate(seats)}
    return dict.fromkeys(seats, (1, False))


def test_arena_match_scores_by_place_streak_doubles_and_the_players_are_seated_again(running_arena, people):
    ana, ion = people[:2]
    services.tournament_join(user=ana, tournament_id=running_arena.pk)
    assert open_tables(running_arena) == {}  # one person is not a table
    services.tournament_join(user=ion, tournament_id=running_arena.pk)
    ((table_id, seats),) = open_tables(running_arena).items()

    match = play_out(table_id)
    pairing = Pairing.objects.get(table_id=table_id)
    assert pairing.scored_at is not None and pairing.counted  # scored by the match_finished signal
    expected = expected_points(match, seats)
    for user_id, (points, won) in expected.items():
        score = Score.objects.get(pairing=pairing, entry__user_id=user_id)
        assert (score.points, score.won, score.doubled, score.counted) == (points, won, False, True)
        entry = Entry.objects.get(tournament=running_arena, user_id=user_id)
        assert (entry.points, entry.matches, entry.wins, entry.streak) == (points, 1, int(won), int(won))
    # Free at once, and seated again by the same signal (two people: the crowd allows no other table).
    ((next_table, next_seats),) = open_tables(running_arena).items()
    assert next_table != table_id and sorted(next_seats) == sorted(seats)

    # Both have won twice in a row: the next win counts double (played until a match has a winner;
    # a level on the way ends the streak).
    for seed in range(1, 20):
        Entry.objects.filter(tournament=running_arena).update(streak=2, points=10)
        match = play_out(next_table, seed=seed)
        for user_id, (points, won) in expected_points(match, next_seats).items():
            score = Score.objects.get(pairing__table_id=next_table, entry__user_id=user_id)
            entry = Entry.objects.get(tournament=running_arena, user_id=user_id)
            assert score.points == (4 if won else points) and score.doubled == won
            assert (entry.points, entry.streak) == (10 + score.points, 3 if won else 0)
        if match.result["winners"]:
            break
        ((next_table, next_seats),) = open_tables(running_arena).items()
    assert match.result["winners"], "no match of twenty had a winner"


def test_a_person_whose_page_went_quiet_is_paused_and_not_seated(running_arena, people):
    quiet = timezone.now() - timedelta(minutes=5)
    for person in people[:3]:
        entered(running_arena, person)
    entered(running_arena, people[3], seen_at=quiet, free_since=quiet)

    sent = services.arena_pair(tournament_id=running_arena.pk)

    assert people[3].pk not in sent
    assert len(sent) == 2 and set(sent) <= {p.pk for p in people[:3]}
    seated_once(running_arena)


def test_a_crowd_is_seated_a_few_tables_a_transaction_until_all_are_made(running_arena, people, settings):
    settings.TOURNAMENT_TABLES_AT_ONCE = 1
    for person in people:
        entered(running_arena, person)

    sent = services.arena_pair(tournament_id=running_arena.pk)

    assert set(sent) == {person.pk for person in people}
    assert len(set(sent.values())) == 3
    assert seated_once(running_arena) == sent


def test_withdrawing_before_the_start_leaves_during_it_pauses_and_joining_again_comes_back(people):
    from .conftest import tournament

    upcoming = tournament()
    services.tournament_join(user=people[0], tournament_id=upcoming.pk)
    assert services.tournament_withdraw(user=people[0], tournament_id=upcoming.pk) is None
    assert not Entry.objects.filter(tournament=upcoming).exists()

    running = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))
    services.tournament_join(user=people[0], tournament_id=running.pk)
    paused = services.tournament_withdraw(user=people[0], tournament_id=running.pk)
    assert paused.paused and Entry.objects.get(pk=paused.pk).paused
    services.tournament_join(user=people[1], tournament_id=running.pk)
    assert open_tables(running) == {}  # the paused one is not seated

    back = services.tournament_join(user=people[0], tournament_id=running.pk)
    assert back.pk == paused.pk and not Entry.objects.get(pk=paused.pk).paused
    assert sorted(next(iter(open_tables(running).values()))) == sorted([people[0].pk, people[1].pk])


def test_the_end_keeps_ranks_gives_trophies_and_a_match_still_running_scores_nothing(running_arena, people):
    for person in people[:4]:
        services.tournament_join(user=person, tournament_id=running_arena.pk)
    (first, first_seats), (late, late_seats) = open_tables(running_arena).items()
    play_out(first)
    Tournament.objects.filter(pk=running_arena.pk).update(ends_at=timezone.now())

    services.tick()

    running_arena.refresh_from_db()
    assert running_arena.status == Tournament.Status.FINISHED and running_arena.finished_at is not None
    assert Table.objects.get(pk=late).status in Table.NOT_OVER  # finishes, but after the end
    standing = {entry.user_id: entry for entry in Entry.objects.filter(tournament=running_arena)}
    assert sorted(entry.rank for entry in standing.values()) == [1, 2, 3, 4]
    played = sorted(first_seats, key=lambda user_id: standing[user_id].rank)
    assert standing[played[0]].points >= standing[played[1]].points
    # The podium: only those who played a match (the late table's players had none counted).
    trophies = dict(running_arena.trophies.values_list("user_id", "place"))
    assert trophies == {user_id: standing[user_id].rank for user_id in first_seats}

    play_out(late)
    pairing = Pairing.objects.get(table_id=late)
    assert pairing.scored_at is not None and not pairing.counted
    assert all(not score.counted and score.points == 0 for score in pairing.scores.all())
    for user_id in late_seats:
        assert Entry.objects.get(pk=standing[user_id].pk).points == standing[user_id].points
    # The first table's players were seated again before the end; nobody was after it.
    assert not running_arena.pairings.filter(made_at__gt=running_arena.finished_at).exists()


def test_teams_both_partners_score_their_team_s_place(transactional_db, people):
    from .conftest import tournament

    four = people[:4]
    event = tournament(
        status=Tournament.Status.RUNNING,
        starts_in=timedelta(minutes=-1),
        options={"players": 4, "match": "games1", "lead": "rotate"},
    )
    for person in four:
        services.tournament_join(user=person, tournament_id=event.pk)
    ((table_id, seats),) = open_tables(event).items()
    # Best and worst partners (seats 0 and 2) against the middle two.
    assert seats == [four[0].pk, four[1].pk, four[3].pk, four[2].pk]
    match = play_out(table_id)
    rows = Score.objects.filter(pairing__table_id=table_id).select_related("entry")
    scores = {score.entry.user_id: score for score in rows}
    assert scores[seats[0]].points == scores[seats[2]].points
    assert scores[seats[1]].points == scores[seats[3]].points
    assert scores[seats[0]].side == scores[seats[2]].side != scores[seats[1]].side
    if match.result["winners"]:
        assert {scores[seats[0]].points, scores[seats[1]].points} == {2, 0}
    else:
        assert scores[seats[0]].points == scores[seats[1]].points == 1


def test_swiss_two_seats_byes_no_rematch_rounds_move_on_the_late_table_scores_level(swiss_event, people):
    five = people[:5]
    for person in five:
        services.tournament_join(user=person, tournament_id=swiss_event.pk)
    services.tick()
    swiss_event.refresh_from_db()
    assert swiss_event.status == Tournament.Status.RUNNING and swiss_event.round == 1

    met: set[frozenset[int]] = set()
    byes: list[int] = []
    for round_number in (1, 2, 3):
        swiss_event.refresh_from_db()
        assert swiss_event.round == round_number
        tables = open_tables(swiss_event)
        assert len(tables) == 2
        seated = seated_once(swiss_event)
        (bye,) = {p.pk for p in five} - set(seated)
        assert Score.objects.filter(entry__user_id=bye, round=round_number, pairing=None).count() == 1
        byes.append(bye)
        for seats in tables.values():
            assert frozenset(seats) not in met, f"round {round_number}: a rematch of {seats}"
            met.add(frozenset(seats))
        (first, _), (last, _) = tables.items()
        play_out(first)
        swiss_event.refresh_from_db()
        assert swiss_event.round == round_number  # the round waits for its last table
        if round_number < 3:
            play_out(last)
    assert len(set(byes)) == 3, f"a bye twice: {byes}"

    # The last round's late table: its time runs out, the tick stops it, and it scores as level.
    late_seats = open_tables(swiss_event)[last]
    Tournament.objects.filter(pk=swiss_event.pk).update(
        round_started_at=timezone.now() - timedelta(minutes=11)
    )
    services.tick()  # stops the late table
    services.tick()  # scores it (level) and, the last round over, finishes
    assert Table.objects.get(pk=last).status not in Table.NOT_OVER
    late = Score.objects.filter(pairing__table_id=last)
    assert sorted(late.values_list("entry__user_id", "points")) == sorted(
        (user_id, 1) for user_id in late_seats
    )

    swiss_event.refresh_from_db()
    assert swiss_event.status == Tournament.Status.FINISHED
    standing = ranked(swiss_event)
    assert [row.rank for row in standing] == [1, 2, 3, 4, 5]
    assert all(row.buchholz > 0 for row in standing)  # everyone met opponents who scored
    assert {entry.user_id: entry.rank for entry in Entry.objects.filter(tournament=swiss_event)} == {
        row.user: row.rank for row in standing
    }
    tie_breaks = [(row.points, row.buchholz, row.sonneborn_berger) for row in standing]
    assert tie_breaks == sorted(tie_breaks, reverse=True)
    assert swiss_event.trophies.count() == 3


def test_swiss_three_seats_tables_of_three_with_a_bye(transactional_db, people):
    from .conftest import tournament

    event = tournament(
        kind="swiss",
        rounds=2,
        minutes=10,
        starts_in=timedelta(seconds=-1),
        options={"players": 3, "match": "games1", "lead": "rotate"},
    )
    for person in people[:4]:
        services.tournament_join(user=person, tournament_id=event.pk)
    services.tick()
    ((table_id, seats),) = open_tables(event).items()
    assert len(seats) == 3
    (bye,) = {p.pk for p in people[:4]} - set(seats)
    match = play_out(table_id)
    scored = dict(Score.objects.filter(pairing__table_id=table_id).values_list("entry__user_id", "points"))
    assert sorted(scored.values()) in ([0, 1, 2], [1, 1, 1], [0, 2, 2], [0, 0, 2], [1, 1, 2], [0, 1, 1])
    assert len(match.result["winners"]) != 1 or max(scored.values()) == 2
    event.refresh_from_db()
    assert event.round == 2
    ((_, seats),) = open_tables(event).items()
    assert bye in seats  # the bye is not given twice


def test_joining_twice_keeps_one_entry(running_arena, people):
    first = services.tournament_join(user=people[0], tournament_id=running_arena.pk)
    again = services.tournament_join(user=people[0], tournament_id=running_arena.pk)
    assert first.pk == again.pk
    assert Entry.objects.filter(tournament=running_arena).count() == 1


def test_joining_while_at_a_lobby_table_is_refused(running_arena, people):
    lobby_table(people[0])
    with pytest.raises(services.TournamentError, match="You are at a table"):
        services.tournament_join(user=people[0], tournament_id=running_arena.pk)
    assert not Entry.objects.exists()


def lobby_table(host) -> Table:
    return gameplay_services.table_create(
        host=host, game="classic", options=CLASSIC_QUICK, turn_clock=45, is_private=False
    )


def test_joining_takes_the_person_out_of_the_pool_and_the_pool_refuses_a_tournament_player(
    running_arena, people
):
    social_services.pool_join(
        user=people[0], game="classic", players=2, length="points8", fill_with_bots=False
    )
    assert PoolEntry.objects.filter(user=people[0]).exists()
    services.tournament_join(user=people[0], tournament_id=running_arena.pk)
    assert not PoolEntry.objects.filter(user=people[0]).exists()
    with pytest.raises(SocialError, match="playing in a tournament"):
        social_services.pool_join(
            user=people[0], game="classic", players=2, length="points8", fill_with_bots=False
        )


def test_sitting_down_in_the_lobby_pauses_the_tournament_entry(running_arena, people):
    services.tournament_join(user=people[0], tournament_id=running_arena.pk)
    table = lobby_table(people[1])
    table_services.seat_take(table_id=table.pk, user=people[0])
    assert Entry.objects.get(user=people[0]).paused
    services.tournament_join(user=people[2], tournament_id=running_arena.pk)
    assert open_tables(running_arena) == {}  # the paused one is not seated


def test_a_full_tournament_refuses_a_newcomer_but_not_one_who_is_in(people):
    from .conftest import tournament

    event = tournament(max_players=2)
    for person in people[:2]:
        services.tournament_join(user=person, tournament_id=event.pk)
    with pytest.raises(services.TournamentError, match="full"):
        services.tournament_join(user=people[2], tournament_id=event.pk)
    services.tournament_join(user=people[0], tournament_id=event.pk)  # already in: changes nothing
    assert Entry.objects.filter(tournament=event).count() == 2


def test_entry_rules(transactional_db):
    from .conftest import established, tournament

    newcomer = make_user("newcomer", fresh=True)
    with pytest.raises(services.TournamentError, match="confirmed"):
        services.tournament_join(user=newcomer, tournament_id=tournament().pk)

    green = established("green", rating=1500, matches=3)
    needs_ten = tournament(min_rated_matches=10)
    with pytest.raises(services.TournamentError, match="10 rated matches"):
        services.tournament_join(user=green, tournament_id=needs_ten.pk)
    assert services.tournament_join(
        user=established("veteran", rating=1500, matches=12), tournament_id=needs_ten.pk
    )

    band = tournament(rating_min=1400, rating_max=1600)
    with pytest.raises(services.TournamentError, match="1400 or more"):
        services.tournament_join(user=established("low", rating=1300), tournament_id=band.pk)
    with pytest.raises(services.TournamentError, match="1600 or less"):
        services.tournament_join(user=established("high", rating=1700), tournament_id=band.pk)
    assert services.tournament_join(user=green, tournament_id=band.pk).rating == 1500


def test_a_private_tournament_takes_those_with_its_link(people):
    private = create_private(people[0])
    assert Entry.objects.filter(tournament=private, user=people[0]).exists()  # its creator is in
    with pytest.raises(services.TournamentError, match="private"):
        services.tournament_join(user=people[1], tournament_id=private.pk)
    with pytest.raises(services.TournamentError, match="private"):
        services.tournament_join(user=people[1], tournament_id=private.pk, token="guessed")
    services.tournament_join(user=people[1], tournament_id=private.pk, token=private.join_token)
    newcomer = make_user("newcomer", fresh=True)  # private matches are casual: anyone with the link
    services.tournament_join(user=newcomer, tournament_id=private.pk, token=private.join_token)
    assert Entry.objects.filter(tournament=private).count() == 3


def create_private(by, **shape) -> Tournament:
    values = {
        "name": "Friday   friends",
        "kind": "arena",
        "game": "classic",
        "players": 2,
        "options": {"match": "games1"},
        "turn_clock": 45,
        "starts_in_minutes": 10,
        "minutes": 30,
        **shape,
    }
    return services.tournament_create_private(by=by, **values)


def test_a_fourth_private_tournament_in_a_day_is_refused(people):
    made = [create_private(people[0]) for _ in range(3)]
    assert [event.name for event in made] == ["Friday friends"] * 3
    with pytest.raises(services.TournamentError, match="as many tournaments as a day allows"):
        create_private(people[0])
    assert Tournament.objects.filter(created_by=people[0]).count() == 3
    with pytest.raises(services.TournamentError, match="length"):
        create_private(people[1], minutes=500)
    # From a browser, the refusal still says whose budget ran out: the person's, or their network's.
    with pytest.raises(services.TournamentError, match="as many tournaments as a day allows"):
        create_private(people[0], address="203.0.113.9")
    for person in people[1:4]:
        create_private(person, address="203.0.113.7")
        create_private(person, address="203.0.113.7")
    with pytest.raises(services.TournamentError, match="from your network today"):
        create_private(people[4], address="203.0.113.7")


def test_a_tournament_with_too_few_people_is_cancelled_with_a_notice(people):
    from .conftest import tournament

    event = tournament(starts_in=timedelta(seconds=-1))
    services.tournament_join(user=people[0], tournament_id=event.pk)
    services.tick()
    event.refresh_from_db()
    assert event.status == Tournament.Status.CANCELLED and event.cancelled_because
    notice = Notice.objects.get(recipient=people[0])
    assert (notice.kind, notice.subject) == (Notice.Kind.TOURNAMENT_CANCELLED, event.name)
    with pytest.raises(services.TournamentError, match="over"):
        services.tournament_join(user=people[1], tournament_id=event.pk)


def test_joins_per_minute_are_budgeted(settings, people):
    from .conftest import tournament

    settings.TOURNAMENT_ENTRIES_PER_MINUTE = 2
    event = tournament()
    services.tournament_join(user=people[0], tournament_id=event.pk)
    services.tournament_withdraw(user=people[0], tournament_id=event.pk)
    with pytest.raises(services.TournamentError, match=r"too often: try again in \d+ s"):
        services.tournament_join(user=people[0], tournament_id=event.pk)
    assert not Entry.objects.filter(tournament=event).exists()
    services.tournament_join(user=people[1], tournament_id=event.pk)  # a budget is a person's


def test_disqualifying_takes_the_points_and_the_place_and_a_bot_takes_the_seat(running_arena, people):
    moderator = make_user("moderator", is_staff=True)
    for person in people[:4]:
        services.tournament_join(user=person, tournament_id=running_arena.pk)
    cheat = people[0]
    Entry.objects.filter(user=cheat).update(points=9)
    table_id = Entry.objects.get(user=cheat).table_id
    position = Seat.objects.get(table_id=table_id, user=cheat).position

    services.player_disqualify(
        tournament_id=running_arena.pk, user_id=cheat.pk, by=moderator, reason="  Played   two accounts "
    )

    entry = Entry.objects.get(user=cheat)
    assert entry.disqualified_at is not None and entry.points == 0
    assert cheat.pk not in {row.user for row in ranked(running_arena)}
    seat = Seat.objects.get(table_id=table_id, position=position)
    assert seat.user_id is None and seat.bot_level  # a bot plays the seat on
    action = running_arena.moderator_actions.get()
    assert (action.kind, action.player_id, action.by_id, action.reason) == (
        "disqualify",
        cheat.pk,
        moderator.pk,
        "Played two accounts",
    )
    with pytest.raises(services.TournamentError, match="disqualified"):
        services.tournament_join(user=cheat, tournament_id=running_arena.pk)
    with pytest.raises(services.TournamentError, match="already"):
        services.player_disqualify(tournament_id=running_arena.pk, user_id=cheat.pk, by=moderator, reason="x")

    # The match the bot finishes scores nothing for the disqualified person, and they are not seated.
    play_out(table_id)
    assert Entry.objects.get(user=cheat).points == 0
    assert cheat.pk not in seated_once(running_arena)


def test_disqualifying_after_the_end_moves_the_others_up_the_standing_and_the_podium(running_arena, people):
    moderator = make_user("moderator", is_staff=True)
    for person in people[:4]:
        services.tournament_join(user=person, tournament_id=running_arena.pk)
    for table_id in open_tables(running_arena):
        play_out(table_id)
    Tournament.objects.filter(pk=running_arena.pk).update(ends_at=timezone.now())
    services.tick()
    before = dict(Entry.objects.filter(tournament=running_arena).values_list("user_id", "rank"))
    winner = next(user_id for user_id, rank in before.items() if rank == 1)

    services.player_disqualify(
        tournament_id=running_arena.pk, user_id=winner, by=moderator, reason="Two accounts"
    )

    after = dict(Entry.objects.filter(tournament=running_arena).values_list("user_id", "rank"))
    assert after[winner] is None
    # The others take places 1 to 3 (their tie-breaks move too: the winner now counts 0 as an opponent).
    assert {user_id: rank for user_id, rank in after.items() if user_id != winner} == {
        row.user: row.rank for row in ranked(running_arena)
    }
    assert sorted(rank for user_id, rank in after.items() if user_id != winner) == [1, 2, 3]
    trophies = dict(running_arena.trophies.values_list("user_id", "place"))
    assert winner not in trophies and 1 in trophies.values()
    assert all(after[user_id] == place for user_id, place in trophies.items())


def test_a_moderator_never_acts_on_a_tournament_they_play_in(running_arena, people):
    moderator = people[0]
    services.tournament_join(user=moderator, tournament_id=running_arena.pk)
    services.tournament_join(user=people[1], tournament_id=running_arena.pk)
    refusal = moderators.own_case_refusal()
    with pytest.raises(services.TournamentError, match=refusal):
        services.player_disqualify(
            tournament_id=running_arena.pk, user_id=people[1].pk, by=moderator, reason="x"
        )
    with pytest.raises(services.TournamentError, match=refusal):
        services.tournament_cancel(tournament_id=running_arena.pk, by=moderator, reason="x")
    assert not running_arena.moderator_actions.exists()
    assert Entry.objects.get(user=people[1]).disqualified_at is None


def test_cancelling_is_logged_and_told_and_the_tables_then_score_nothing(running_arena, people):
    moderator = make_user("moderator", is_staff=True)
    for person in people[:2]:
        services.tournament_join(user=person, tournament_id=running_arena.pk)
    ((table_id, seats),) = open_tables(running_arena).items()

    services.tournament_cancel(tournament_id=running_arena.pk, by=moderator, reason="Server trouble")

    running_arena.refresh_from_db()
    assert (running_arena.status, running_arena.cancelled_because) == ("cancelled", "Server trouble")
    action = running_arena.moderator_actions.get()
    assert (action.kind, action.by_id, action.reason) == ("cancel", moderator.pk, "Server trouble")
    told = Notice.objects.filter(kind=Notice.Kind.TOURNAMENT_CANCELLED, subject=running_arena.name)
    assert sorted(told.values_list("recipient_id", flat=True)) == sorted(seats)
    play_out(table_id)
    pairing = Pairing.objects.get(table_id=table_id)
    assert pairing.scored_at is not None and not pairing.counted
    assert not Entry.objects.filter(tournament=running_arena, points__gt=0).exists()
    assert open_tables(running_arena) == {}
    with pytest.raises(services.TournamentError, match="over already"):
        services.tournament_cancel(tournament_id=running_arena.pk, by=moderator, reason="again")


def test_the_page_heartbeat_stamps_the_players_and_names_the_tables_they_were_sent_to(running_arena, people):
    quiet = timezone.now() - timedelta(minutes=5)
    for person in people[:3]:
        entered(running_arena, person, seen_at=quiet)
    services.tournament_seen(tournament_id=running_arena.pk, user_ids=[p.pk for p in people[:2]])
    assert Entry.objects.filter(tournament=running_arena, seen_at__gt=quiet).count() == 2
    sent = services.arena_pair(tournament_id=running_arena.pk)
    assert sorted(sent) == sorted(p.pk for p in people[:2])  # the third's page is quiet
    shown = services.tournament_seen(tournament_id=running_arena.pk, user_ids=[p.pk for p in people[:3]])
    assert shown == sent


def test_sitting_down_in_the_lobby_pauses_every_running_entry_without_waiting_for_a_pairing(people):
    from .conftest import tournament

    arenas = [tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1)) for _ in range(2)]
    for event in arenas:
        entered(event, people[0])
    table = lobby_table(people[1])
    rows = "SELECT id FROM tournaments_tournament WHERE id = ANY(%s) FOR UPDATE"
    with held_by_another_session(rows, [[event.pk for event in arenas]]):  # as a pairing does
        sitting = threading.Thread(
            target=closing_connection(table_services.seat_take),
            kwargs={"table_id": table.pk, "user": people[0]},
        )
        sitting.start()
        waiting = wait_for(
            lambda: waiting_for_lock("tournaments_entry") or (not sitting.is_alive() and ["done"]),
            30,
            "the seat is taken, or waits",
        )
        assert waiting == ["done"], "the lobby's seat waited for the tournaments' rows"
        sitting.join()
    assert list(Entry.objects.filter(user=people[0]).values_list("paused", flat=True)) == [True, True]


def test_arena_tables_of_three_group_the_nearest_in_points_and_leave_who_waited_least(people):
    from .conftest import established, tournament

    event = tournament(
        status=Tournament.Status.RUNNING,
        starts_in=timedelta(minutes=-5),
        options={"players": 3, "match": "games1", "lead": "rotate"},
    )
    seventh = established("seventh", rating=1000)
    now = timezone.now()
    # Points turn the rating order around: the lowest rated lead the standing.
    for index, person in enumerate(people):
        entered(event, person, points=index, joined_at=now - timedelta(minutes=3))
    entered(event, seventh, points=100, joined_at=now)

    services.arena_pair(tournament_id=event.pk)

    tables = sorted(sorted(seats) for seats in open_tables(event).values())
    by_points = [person.pk for person in reversed(people)]
    assert tables == sorted([sorted(by_points[:3]), sorted(by_points[3:])])
    assert seventh.pk not in seated_once(event)  # the last to come waits for the next table
