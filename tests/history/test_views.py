"""Every history page and who may open it, through the test client on PostgreSQL."""

from datetime import timedelta

import pytest
from django.urls import reverse

from gameplay.engine import get_game
from gameplay.models import Match
from gameplay.selectors import result_text
from tests.factories import make_user
from tests.history.helpers import mark_over, play_out, seated_match


def match_url(match: Match, name: str = "match") -> str:
    return reverse(f"history:{name}", args=[match.pk])


def listed(response) -> list[int]:
    return [row.match.pk for row in response.context["rows"]]


def test_every_page_needs_a_login(client, played):
    for url in (
        reverse("history:mine"),
        match_url(played),
        match_url(played, "sheet_csv"),
        match_url(played, "replay"),
        reverse("history:player", args=["ana"]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and reverse("accounts:login") in response.url


def test_my_matches_lists_the_players_matches_newest_first_with_opponents_totals_and_duration(
    client, ana, ion
):
    older = play_out(seated_match("classic", [ana, ion], {"players": 2}))
    newer = seated_match("americana", [ana], {"players": 3})
    seated_match("americana", [ion], {"players": 2})  # not ana's
    client.force_login(ana)
    response = client.get(reverse("history:mine"))
    assert listed(response) == [newer.pk, older.pk]
    page = response.text
    row = page[page.index(f'data-match="{older.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "ion" in row and "Classic Șeptică" in row
    for total in older.result["totals"]:
        assert f"<strong>{total}</strong>" in row
    assert "—" not in row  # it is over, so it has a duration
    assert "still playing" in page and "Bot 2, Bot 3" in page


def test_my_matches_filters_by_game_and_by_result(client, ana, ion):
    won = mark_over(seated_match("americana", [ana, ion], {"players": 2}), [0])
    lost = mark_over(seated_match("americana", [ana, ion], {"players": 2}), [1])
    level = mark_over(seated_match("classic", [ana, ion], {"players": 2}), [])
    team_won = mark_over(seated_match("classic", [ion, ana], {"players": 4}), [1, 3])
    stopped = mark_over(seated_match("classic", [ana, ion], {"players": 2}), aborted=True)
    running = seated_match("americana", [ana, ion], {"players": 2})
    client.force_login(ana)
    url = reverse("history:mine")
    assert set(listed(client.get(url, {"result": "won"}))) == {won.pk, team_won.pk}
    assert listed(client.get(url, {"result": "lost"})) == [lost.pk]
    assert listed(client.get(url, {"result": "no_winner"})) == [level.pk]
    assert listed(client.get(url, {"result": "abandoned"})) == [stopped.pk]
    assert set(listed(client.get(url, {"game": "americana"}))) == {won.pk, lost.pk, running.pk}
    assert listed(client.get(url, {"game": "classic", "result": "won"})) == [team_won.pk]
    assert len(listed(client.get(url, {"game": "poker", "result": "everything"}))) == 6
    client.force_login(ion)  # the same matches, seen from the other seat
    assert set(listed(client.get(url, {"result": "won"}))) == {lost.pk}
    assert set(listed(client.get(url, {"result": "lost"}))) == {won.pk, team_won.pk}


def test_my_matches_is_paginated(client, ana):
    matches = [seated_match("americana", [ana], {"players": 2}) for _ in range(23)]
    client.force_login(ana)
    first = client.get(reverse("history:mine"))
    assert len(listed(first)) == 20 and listed(first)[0] == matches[-1].pk
    assert "Page 1 of 2" in first.text and 'rel="next"' in first.text
    second = client.get(reverse("history:mine"), {"page": 2})
    assert listed(second) == [m.pk for m in reversed(matches[:3])]


def test_the_match_page_shows_the_score_sheet_to_its_players(client, played, ana):
    client.force_login(ana)
    response = client.get(match_url(played))
    assert response.status_code == 200
    sheet = response.context["sheet"]
    assert [row.number for row in sheet.rows] == list(range(1, played.rounds.count() + 1))
    assert sheet.totals == played.result["totals"]
    page = response.text
    assert 'data-testid="score-sheet"' in page and "target 101" in page
    assert result_text(played, ["ana", "ion"]) in page
    assert match_url(played, "sheet_csv") in page and match_url(played, "replay") in page
    assert 'media="print"' in page


def test_a_private_tables_match_is_refused_to_others_and_a_public_ones_is_open(
    client, played, ana, moderator
):
    outsider = make_user("eve")
    client.force_login(outsider)
    for name in ("match", "sheet_csv", "replay"):
        response = client.get(match_url(played, name))
        assert response.status_code == 403
        assert "only its players" in response.text
    public = play_out(seated_match("classic", [ana], {"players": 2}))
    for name in ("match", "sheet_csv", "replay"):
        assert client.get(match_url(public, name)).status_code == 200
    client.force_login(moderator)
    assert client.get(match_url(played)).status_code == 200
    assert client.get(reverse("history:match", args=[999999])).status_code == 404


def test_nobody_opens_the_replay_of_a_running_match(client, ana, ion, moderator):
    running = play_out(seated_match("americana", [ana, ion], {"players": 2}), moves=5)
    assert running.status == Match.Status.PLAYING
    for user in (ana, ion, moderator):
        client.force_login(user)
        response = client.get(match_url(running, "replay"), {"step": 1})
        assert response.status_code == 403
        assert 'data-testid="replay-refused"' in response.text
        assert "hand" not in response.context or "step" not in response.context
    client.force_login(ana)
    page = client.get(match_url(running)).text
    assert match_url(running, "replay") not in page and "The replay opens once the match is over." in page


def test_the_replay_steps_through_every_move_with_every_hand_face_up(client, played, ana):
    client.force_login(ana)
    moves = played.moves.count()
    deals = played.rounds.count()
    first = client.get(match_url(played, "replay"))
    step = first.context["step"]
    assert (step.index, step.kind, step.round) == (0, "deal", 1)
    assert step.last == moves + deals - 1  # every move, and every deal after the first
    assert [number for number, _at in step.boundaries] == list(range(1, deals + 1))
    game = get_game("americana")
    dealt = game.new_match(game.options_from_json(played.options), played.seed)
    hands = game.state_to_json(dealt)["hands"]
    assert [len(seat.open_hand) for seat in step.seats] == [len(hand) for hand in hands] == [5, 5]
    assert "Round 1 begins" in first.text and "Step 0 of" in first.text

    second = client.get(match_url(played, "replay"), {"step": 1}, headers={"HX-Request": "true"})
    assert "<html" not in second.text and 'id="replay-step"' in second.text
    restored = client.get(
        match_url(played, "replay"),
        {"step": 1},
        headers={"HX-Request": "true", "HX-History-Restore-Request": "true"},
    )
    assert "<html" in restored.text
    move = played.moves.get(seq=1)
    assert second.context["step"].who == ["ana", "ion"][move.seat]

    last = client.get(match_url(played, "replay"), {"step": 10**6}).context["step"]
    assert last.index == last.last and "The match is over." in last.lines
    assert last.public["totals"] == played.result["totals"]
    assert client.get(match_url(played, "replay"), {"step": "x"}).context["step"].index == 0


def test_a_match_whose_record_does_not_replay_says_so(client, ana):
    match = play_out(seated_match("americana", [ana], {"players": 2}))
    Match.objects.filter(pk=match.pk).update(seed=match.seed + 1)
    client.force_login(ana)
    response = client.get(match_url(match, "replay"))
    assert response.status_code == 409 and "do not replay" in response.text


def test_the_csv_holds_the_score_sheet(client, ana, ion):
    match = play_out(seated_match("classic", [ana, ion], {"players": 2, "match": "games2"}))
    client.force_login(ion)
    response = client.get(match_url(match, "sheet_csv"))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="septica-match-{match.pk}.csv"'
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")
    lines = [line.split(",") for line in text.lstrip("\ufeff").splitlines()]
    assert lines[0] == [
        "Deal", "Deal winner", "ana: points", "ana: total", "ana: games won",
        "ion: points", "ion: total", "ion: games won",
    ]  # fmt: skip
    rows = list(match.rounds.order_by("number"))
    for line, row in zip(lines[1:], rows, strict=False):
        summary = row.summary
        assert int(line[0]) == row.number
        assert [int(v) for v in line[2:]] == [
            summary["deal_points"][0], summary["totals"][0], summary["games_won"][0],
            summary["deal_points"][1], summary["totals"][1], summary["games_won"][1],
        ]  # fmt: skip
    totals, games = match.result["totals"], match.result["games_won"]
    assert lines[len(rows) + 1] == [
        "Total",
        "",
        "",
        str(totals[0]),
        str(games[0]),
        "",
        str(totals[1]),
        str(games[1]),
    ]
    winner = ["ana", "ion"][match.result["winners"][0]]
    assert lines[-1] == ["Result", f"{winner} wins the match."]


def test_a_player_profile_counts_matches_and_averages_and_hides_private_matches(client, ana, ion):
    americana = play_out(seated_match("americana", [ana, ion], {"players": 2}, private=True))
    classic = play_out(seated_match("classic", [ana], {"players": 2}))
    mark_over(seated_match("classic", [ana], {"players": 2}), aborted=True)
    client.force_login(ion)
    profile = client.get(reverse("history:player", args=["ana"])).context["profile"]
    stats = {stat.game: stat for stat in profile.stats}
    ana_won = americana.result["winners"] == [0]
    assert (stats["americana"].played, stats["americana"].won) == (1, int(ana_won))
    assert (stats["classic"].played, stats["classic"].won, stats["classic"].abandoned) == (
        1,
        int(classic.result["winners"] == [0]),
        1,
    )
    charges = [row.summary["charges"][0] for row in americana.rounds.all()]
    # Shown to one decimal: 26.25 may read 26.2, so half a tenth (and a float's hair) either way.
    assert stats["americana"].average == pytest.approx(sum(charges) / len(charges), abs=0.0501)
    captured = [row.summary["captured"][0] for row in classic.rounds.all()]
    assert stats["classic"].average == pytest.approx(sum(captured) / len(captured), abs=0.0501)
    assert americana.pk in [row.match.pk for row in profile.recent]  # ion sat there
    client.force_login(make_user("eve"))
    recent = client.get(reverse("history:player", args=["ana"])).context["profile"].recent
    assert americana.pk not in [row.match.pk for row in recent] and classic.pk in [r.match.pk for r in recent]
    assert client.get(reverse("history:player", args=["nobody"])).status_code == 404


def test_the_pages_speak_romanian_too(client, played, ana):
    client.force_login(ana)
    client.cookies["django_language"] = "ro"
    mine = client.get(reverse("history:mine")).text
    assert "Partidele mele" in mine
    sheet = client.get(match_url(played)).text
    assert "Runda" in sheet and "ținta 101" in sheet
    replay = client.get(match_url(played, "replay")).text
    assert "Pasul 0 din" in replay and "Runda 1 începe" in replay
    csv_text = client.get(match_url(played, "sheet_csv")).content.decode()
    assert csv_text.lstrip("\ufeff").startswith("Runda,")


def test_the_site_links_to_the_history(client, ana):
    client.force_login(ana)
    assert reverse("history:mine") in client.get(reverse("home")).text
    profile = client.get(reverse("accounts:profile")).text
    assert reverse("history:player", args=["ana"]) in profile


def test_a_match_over_within_the_minute_lasted_under_a_minute_not_zero_minutes(client, played, ana):
    Match.objects.filter(pk=played.pk).update(finished_at=played.started_at + timedelta(seconds=40))
    client.force_login(ana)
    for url in (reverse("history:mine"), match_url(played)):
        page = client.get(url, headers={"Accept-Language": "en"}).text
        assert "under a minute" in page and "0 minutes" not in page


def test_a_running_match_lists_its_totals_so_far_not_final_ones(client, ana, ion):
    seated_match("americana", [ana, ion], {"players": 2})
    client.force_login(ana)
    page = client.get(reverse("history:mine")).text
    assert 'data-label="Totals so far"' in page and 'data-label="Final totals"' not in page
