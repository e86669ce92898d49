"""Rated play on PostgreSQL: which matches move ratings, who ranks where, void, rebuild, concurrency."""

import threading

import pytest
from django.db import connection

from gameplay import services
from gameplay.models import Match
from ratings import model
from ratings import services as rating_services
from ratings.models import RatedMatch, Rating, RatingChange
from tests.factories import make_user
from tests.gameplay.helpers import live_state
from tests.history.helpers import play_out, seated_match
from tests.ratings.helpers import one_move_from_the_end, rated_and_played, rated_table_match, snapshot


def people(count: int, prefix: str = "r") -> list:
    return [make_user(f"{prefix}{index}") for index in range(count)]


def test_a_rated_match_moves_both_ratings_once(db):
    ana, ion = people(2)
    match = rated_and_played("classic", [ana, ion])
    changes = {change.user_id: change for change in RatingChange.objects.filter(match=match)}
    # The deal is random: a points match may end level (no winner), and then nobody moves.
    winner = match.result["winners"][0] if match.result["winners"] else 0
    won, lost = changes[[ana, ion][winner].pk], changes[[ana, ion][1 - winner].pk]
    if match.result["winners"]:
        assert won.change > 0 > lost.change and (won.place, lost.place) == (1, 2)
    else:
        assert won.change == lost.change == 0 and won.place == lost.place == 1
    assert won.before == lost.before == 1500
    assert Rating.objects.get(user=[ana, ion][winner], game="classic").shown == won.after
    assert Rating.objects.filter(game="classic").values_list("matches", flat=True).distinct().get() == 1
    before = snapshot()
    assert rating_services.match_rate(match_id=match.pk) is False  # the news heard twice
    assert snapshot() == before and RatingChange.objects.count() == 2


@pytest.mark.parametrize("kind", ["casual", "bot", "practice", "aborted"])
def test_casual_tables_bots_practice_and_aborted_matches_move_no_rating(db, kind):
    ana, ion = people(2)
    if kind == "casual":
        match = play_out(rated_table_match("classic", [ana, ion], rated=False))
    elif kind == "bot":
        match = play_out(rated_table_match("classic", [ana, ion], {"players": 3}))
    elif kind == "practice":
        match = play_out(rated_table_match("classic", [ana, ion]))
        Match.objects.filter(pk=match.pk).update(practice=True)
    else:
        match = rated_table_match("classic", [ana, ion])
        services.table_close(table_id=match.table_id, reason="Stopped by a moderator.")
    assert rating_services.match_rate(match_id=match.pk) is False
    assert (
        not Rating.objects.exists() and not RatingChange.objects.exists() and not RatedMatch.objects.exists()
    )


def test_play_now_tables_are_casual_and_new_tables_ask_for_rated_by_default(db, client):
    ana = make_user("ana")
    assert services.play_now(user=ana, game="classic").is_rated is False
    client.force_login(ana)
    page = client.get("/tables/new/").text
    assert 'name="rated"' in page and "checked" in page.split('name="rated"')[1].split(">")[0]


def _to_act(match: Match, seat: int) -> None:
    """Play on until ``seat`` is to act (dealing as needed)."""
    while True:
        game, state = live_state(match)
        if not game.awaiting_deal(state) and game.to_act(state) == seat:
            return
        play_out(match, moves=1)


@pytest.mark.parametrize("came_back", [False, True])
def test_a_stand_in_keeps_the_seat_s_result_unless_the_person_never_came_back(db, came_back):
    players = people(3)
    match = rated_table_match("classic", players)
    _to_act(match, 1)
    assert services.seat_stand_in(match_id=match.pk, seat=1, expected_version=match.version)
    if came_back:
        assert services.seat_reclaim(match_id=match.pk, seat=1)
    match = play_out(match)
    assert match.result["left"] == ([] if came_back else [1])
    rating_services.match_rate(match_id=match.pk)
    change = RatingChange.objects.get(match=match, seat=1)
    totals = match.result["totals"]
    if came_back:
        assert change.place == 1 + sum(total > totals[1] for total in totals) and not change.left
    else:
        assert change.place == 3 and change.left and change.change < 0


def test_a_person_replaced_by_a_moderator_ranks_last_and_the_bot_is_not_rated(db):
    players = people(3)
    match = rated_table_match("classic", players)
    play_out(match, moves=3)
    services.player_replace_with_bot(table_id=match.table_id, position=0)
    match = play_out(match)
    assert match.result["left"] == [0]
    assert rating_services.match_rate(match_id=match.pk)
    rows = {row.seat: row for row in RatingChange.objects.filter(match=match)}
    assert set(rows) == {0, 1, 2} and rows[0].user == players[0]
    assert rows[0].place == 3 and rows[0].left


def test_two_v_two_partners_get_the_same_change(db):
    players = people(4)
    # One partner more certain than the other: the model alone would move them differently.
    Rating.objects.create(user=players[0], game="classic", mu=27.0, sigma=3.0, matches=12)
    match = rated_and_played("classic", players, {"players": 4})
    rows = {row.seat: row for row in RatingChange.objects.filter(match=match)}
    assert rows[0].change == rows[2].change and rows[1].change == rows[3].change
    assert rows[0].mu_after - rows[0].mu_before == pytest.approx(rows[2].mu_after - rows[2].mu_before)
    assert rows[0].place != rows[1].place or match.result["winners"] == []


def test_a_void_reverses_the_match_for_everyone_and_records_who_and_why(db):
    ana, ion, eva = people(3)
    mod = make_user("mod", is_staff=True)
    first = rated_and_played("classic", [ana, ion])
    after_first = snapshot()
    second = rated_and_played("classic", [ana, eva], seed=1)
    rated = rating_services.match_void(match_id=second.pk, by=mod, reason="Collusion")
    assert (rated.voided_by, rated.void_reason) == (mod, "Collusion") and rated.voided_at
    assert RatingChange.objects.filter(match=second, voided=True).count() == 2
    now = snapshot()
    for key in after_first:
        assert now[key][0] == pytest.approx(after_first[key][0]) and now[key][4] == after_first[key][4]
    eva_rating = Rating.objects.get(user=eva, game="classic")
    assert (eva_rating.matches, eva_rating.mu) == (0, pytest.approx(model.MU))
    with pytest.raises(rating_services.RatingError, match="voided already"):
        rating_services.match_void(match_id=second.pk, by=mod, reason="again")
    with pytest.raises(rating_services.RatingError, match="Say why"):
        rating_services.match_void(match_id=first.pk, by=mod, reason="  ")


def test_rebuild_gives_exactly_the_live_numbers(db):
    ana, ion, eva, dan = people(4)
    mod = make_user("mod", is_staff=True)
    rated_and_played("americana", [ana, ion])
    voided = rated_and_played("classic", [ion, eva, dan], seed=1)
    rated_and_played("classic", [ana, eva], seed=2)
    rating_services.match_void(match_id=voided.pk, by=mod, reason="Collusion")
    rated_and_played("classic", [eva, ana, dan], seed=3)
    rated_and_played("classic", [ana, ion, eva, dan], {"players": 4}, seed=4)
    live = snapshot()
    live_changes = sorted(
        RatingChange.objects.values_list("match_id", "user_id", "mu_after", "sigma_after", "voided")
    )
    rebuilt = rating_services.ratings_rebuild()
    assert (rebuilt.matches, rebuilt.voided, rebuilt.newly_rated) == (5, 1, 0)
    assert snapshot() == live
    assert sorted(
        RatingChange.objects.values_list("match_id", "user_id", "mu_after", "sigma_after", "voided")
    ) == (live_changes)


def test_rebuild_rates_matches_decided_before_rated_play_and_the_live_path_leaves_them(db):
    ana, ion = people(2)
    old = play_out(rated_table_match("classic", [ana, ion]))  # its news never heard
    assert not Rating.objects.exists()
    assert rating_services.ratings_rebuild().newly_rated == 1
    assert RatedMatch.objects.get().match == old and Rating.objects.count() == 2


def test_the_catch_up_rates_a_match_whose_update_was_missed(db, django_assert_max_num_queries):
    ana, ion, eva = people(3)
    match = play_out(rated_table_match("classic", [ana, ion]))
    replaced = rated_table_match("classic", [eva, make_user("dan")])
    # Replaced before the first move: the bot's row starts at move 0 too, yet dan started the seat.
    services.player_replace_with_bot(table_id=replaced.table_id, position=1)
    play_out(replaced)
    play_out(rated_table_match("classic", [eva, ion], {"players": 3}))  # a bot started a seat
    assert rating_services.catch_up() == 2
    assert set(RatedMatch.objects.values_list("match", flat=True)) == {match.pk, replaced.pk}
    with django_assert_max_num_queries(1):
        assert rating_services.catch_up() == 0  # the bots' match is not looked at again


def test_the_news_of_a_match_s_end_rates_it_before_the_table_is_told(db, django_capture_on_commit_callbacks):
    ana, ion = people(2)
    match = rated_table_match("classic", [ana, ion])
    seen = []
    from tables import events

    real = events.group_send

    def spy(group, message):
        if message.get("type") == "table.changed":
            seen.append(RatingChange.objects.filter(match=match).count())
        real(group, message)

    events.group_send = spy
    try:
        with django_capture_on_commit_callbacks(execute=True):
            play_out(match)
    finally:
        events.group_send = real
    assert RatingChange.objects.filter(match=match).count() == 2
    assert seen[-1] == 2, "the table's last news went out once the ratings were moved"


@pytest.mark.django_db(transaction=True)
def test_two_matches_of_one_person_finishing_at_once_lose_no_update():
    ana, ion, eva = people(3)
    finals = []
    for other in (ion, eva):
        match = rated_table_match("classic", [ana, other])
        finals.append((match, *one_move_from_the_end(match)))
    barrier = threading.Barrier(2)
    errors = []

    def finish(match, seat, action):
        try:
            barrier.wait()
            services.act(match_id=match.pk, seat=seat, action=action)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=final) for final in finals]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    ana_rating = Rating.objects.get(user=ana, game="classic")
    assert ana_rating.matches == 2
    changes = list(RatingChange.objects.filter(user=ana).order_by("at"))
    assert changes[1].mu_before == changes[0].mu_after, "the second update started from the first's result"
    live = snapshot()
    rating_services.ratings_rebuild()
    assert snapshot() == live


def test_a_person_s_first_seat_is_what_counts(db):
    """Bots only in a seat nobody started in: a bot-filled table never moves a rating."""
    ana, ion = people(2)
    match = play_out(seated_match("classic", [ana], {"players": 2}))
    assert rating_services.match_rate(match_id=match.pk) is False
    assert ion.rating_changes.count() == 0


def test_nobody_voids_a_match_they_played_not_even_a_superuser(db):
    boss, ion = make_user("boss", is_staff=True, is_superuser=True), make_user("ion")
    match = rated_and_played("classic", [boss, ion])
    with pytest.raises(rating_services.RatingError, match="Nobody decides a case they are part of"):
        rating_services.match_void(match_id=match.pk, by=boss, reason="Collusion")
    assert RatedMatch.objects.get(match=match).voided_at is None
    assert not RatingChange.objects.filter(match=match, voided=True).exists()
