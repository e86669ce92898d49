"""Saving a practice match played offline: the upload replays through the engine or is refused, and a saved
one shows in history marked as practice, outside every statistic. Through the test client on PostgreSQL."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from bots.arena import bot_played_actions
from gameplay.engine import get_game
from gameplay.models import Match, Move, Participant, RoundResult
from history import selectors
from tables.models import Seat, Table
from tests.factories import make_user
from tests.history.helpers import finished_match

SAVE = reverse("practice:save")
STARTED = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
GAMES = [("americana", {"players": 2, "target": 101}), ("classic", {"players": 2, "match": "points8"})]


def practice_upload(game: str, options: dict, seed: int = 11, bots: tuple[str, ...] = ("normal",)) -> dict:
    """A whole practice match as the browser sends it: the player's seat played here by an easy bot."""
    engine = get_game(game)
    actions = bot_played_actions(game, options, seed, ["easy", *bots])
    return {
        "game": game,
        "options": engine.options_to_json(engine.options_from_json(options)),
        "seed": seed,
        "seat": 0,
        "bots": list(bots),
        "actions": actions,
        "started_at": STARTED.isoformat(),
        "finished_at": (STARTED + timedelta(minutes=12)).isoformat().replace("+00:00", "Z"),
        "bundle": "3f9a1c2e",
    }


def post(client: Client, upload: object, **headers: str):
    body = upload if isinstance(upload, str) else json.dumps(upload)
    return client.post(SAVE, body, content_type="application/json", headers=headers)


def nothing_written() -> bool:
    return not (Match.objects.exists() or Table.objects.exists() or Move.objects.exists())


@pytest.fixture(params=GAMES, ids=[game for game, _options in GAMES])
def upload(request) -> dict:
    return practice_upload(*request.param)


def test_a_finished_practice_match_is_saved_to_history_marked_practice(client, ana, upload):
    client.force_login(ana)
    response = post(client, upload)
    assert response.status_code == 201
    match = Match.objects.get()
    assert response.json() == {"url": reverse("history:match", args=[match.pk])}
    assert match.practice and match.status == Match.Status.FINISHED
    assert (match.game, match.options, match.seed) == (upload["game"], upload["options"], upload["seed"])
    assert (match.started_at, match.finished_at) == (STARTED, STARTED + timedelta(minutes=12))
    game = get_game(match.game)
    assert match.result["winners"] and game.is_over(game.state_from_json(match.state))
    moves = list(match.moves.order_by("seq"))
    assert [move.action for move in moves] == upload["actions"]
    assert {move.actor for move in moves if move.seat == 0} == {Move.Actor.PLAYER}
    assert {move.actor for move in moves if move.seat != 0} == {Move.Actor.BOT}
    assert all(move.events for move in moves)
    rounds = game.round_number(game.state_from_json(match.state))
    assert list(match.rounds.values_list("number", flat=True)) == list(range(1, rounds + 1))
    seated = [(0, ana, ""), (1, None, "normal")]
    assert [(p.seat, p.user, p.bot_level) for p in match.participants.all()] == seated
    table = match.table
    assert (table.status, table.is_private, table.host) == (Table.Status.CLOSED, True, ana)
    assert table.turn_clock == 0
    assert [(s.position, s.user, s.bot_level) for s in table.seats.all()] == seated

    page = client.get(response.json()["url"])
    assert page.status_code == 200 and 'data-testid="practice-badge"' in page.text
    assert "Bot 2" in page.text
    mine = client.get(reverse("history:mine"))
    assert [row.match.pk for row in mine.context["rows"]] == [match.pk]
    assert 'data-testid="practice-badge"' in mine.text
    for step in (0, 10**6):  # the replay rebuilds the match up to the very state recorded
        replay = client.get(reverse("history:replay", args=[match.pk]), {"step": step})
        assert replay.status_code == 200 and 'data-testid="practice-badge"' in replay.text
    assert replay.context["step"].last == len(moves) + rounds - 1
    romanian = client.get(response.json()["url"], headers={"Accept-Language": "ro"})
    assert ">Antrenament</span>" in romanian.text


def test_the_same_match_uploaded_twice_is_saved_once(client, ana, ion):
    upload = practice_upload("classic", {"players": 2})
    client.force_login(ana)
    first = post(client, upload)
    again = post(client, {**upload, "bundle": "a-later-bundle"})
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    assert (Match.objects.count(), Table.objects.count()) == (1, 1)
    client.force_login(ion)  # the same moves are ion's own practice when he uploads them
    assert post(client, upload).status_code == 201
    assert Match.objects.filter(participants__user=ion, practice=True).count() == 1


def repeat_a_play(upload: dict) -> None:
    """A card played a second time in the middle of the match."""
    actions = upload["actions"]
    at = next(i for i in range(len(actions) // 2, len(actions)) if actions[i]["type"] == "play")
    actions.insert(at + 1, actions[at])
    upload["step"] = at + 2


TAMPERED = {
    "changed action": (repeat_a_play, "does not replay"),
    "changed seed": (lambda u: u.update(seed=u["seed"] + 1), "does not replay"),
    "cut short": (lambda u: u["actions"].pop(), "The match is not finished: it stops after move"),
    "one more action": (lambda u: u["actions"].append(u["actions"][-1]), "The match is over."),
    "unknown game": (lambda u: u.update(game="poker"), "Unknown game: 'poker'."),
    "bad options": (lambda u: u.update(options={"players": 7}), "These options are not valid"),
    "not an action": (lambda u: u["actions"].insert(3, {"type": "fly"}), "Move 4 does not replay"),
    "seed too big": (lambda u: u.update(seed=2**63), "The seed must be a whole number"),
    "seed as text": (lambda u: u.update(seed="11"), "The seed must be a whole number"),
    "too many actions": (
        lambda u: u.update(actions=[{"type": "draw"}] * (settings.PRACTICE_MAX_ACTIONS + 1)),
        f"A practice match has at most {settings.PRACTICE_MAX_ACTIONS} moves.",
    ),
    "another seat": (lambda u: u.update(seat=1), "the player sits at seat 0"),
    "a bot too many": (lambda u: u["bots"].append("easy"), "Name each bot's level"),
    "unknown bot level": (lambda u: u.update(bots=["genius"]), "Name each bot's level"),
    "finished before it started": (
        lambda u: u.update(finished_at="2026-11-30T19:00:00+00:00"),
        "Start and end must be ISO 8601",
    ),
    "no time zone": (lambda u: u.update(started_at="2026-11-30T20:00:00"), "Start and end must be ISO 8601"),
    "no bundle": (lambda u: u.pop("bundle"), "must name the version"),
    "empty object": (lambda u: u.clear(), "the player sits at seat 0"),
}


@pytest.mark.parametrize("tamper", TAMPERED.values(), ids=TAMPERED.keys())
@pytest.mark.parametrize(("game", "options"), GAMES, ids=[game for game, _options in GAMES])
def test_a_tampered_upload_is_refused_and_nothing_is_written(client, ana, game, options, tamper):
    change, says = tamper
    upload = practice_upload(game, options)
    change(upload)
    step = upload.pop("step", None)
    client.force_login(ana)
    response = post(client, upload)
    assert response.status_code == 400
    assert says in response.json()["error"]
    if step:
        assert response.json()["error"].startswith(f"Move {step} does not replay: ")
    assert nothing_written()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("{not json", "The upload is not valid JSON."),
        ("[1, 2]", "The upload must be a JSON object."),
        (b"\xff\xfe", "The upload is not valid JSON."),
        (
            "x" * (settings.PRACTICE_UPLOAD_MAX_BYTES + 1),
            f"The upload is too big: at most {settings.PRACTICE_UPLOAD_MAX_BYTES} bytes.",
        ),
    ],
    ids=["garbage", "a list", "not utf-8", "too big"],
)
def test_a_malformed_upload_is_refused(client, ana, body, says):
    client.force_login(ana)
    response = client.post(SAVE, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"error": says}
    assert nothing_written()


def test_a_refusal_is_said_in_the_players_language(client, ana):
    upload = practice_upload("americana", {"players": 2})
    upload["actions"].pop()
    client.force_login(ana)
    response = post(client, upload, **{"Accept-Language": "ro"})
    assert response.status_code == 400
    assert response.json()["error"].startswith("Partida nu s-a terminat: se oprește după mutarea ")


def test_only_a_logged_in_player_saves_and_only_by_post(client, ana):
    upload = practice_upload("classic", {"players": 2})
    response = post(client, upload)
    assert response.status_code == 403
    assert response.json() == {"error": "Log in to save a practice match to your history."}
    client.force_login(ana)
    assert client.get(SAVE).status_code == 405
    assert nothing_written()


def test_the_page_sends_its_csrf_token_in_a_header(ana):
    """As the browser does: the token from the cookie, in ``X-CSRFToken``."""
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(ana)
    upload = practice_upload("classic", {"players": 2})
    assert post(browser, upload).status_code == 403
    browser.get(reverse("gameplay:table_create"))  # any page with a form sets the cookie
    token = browser.cookies["csrftoken"].value
    assert post(browser, upload, **{"X-CSRFToken": token}).status_code == 201


def test_practice_is_outside_every_statistic_but_in_the_recent_matches(client, ana, ion):
    online = finished_match("americana", [ana, ion])
    before = selectors.player_profile(player=ana, viewer=ana)
    client.force_login(ana)
    for seed in (1, 2):
        assert post(client, practice_upload("americana", {"players": 2}, seed=seed)).status_code == 201
    assert post(client, practice_upload("classic", {"players": 2})).status_code == 201
    after = selectors.player_profile(player=ana, viewer=ana)
    assert after.stats == before.stats
    assert [(s.played, s.won) for s in after.stats] == [(1, int(0 in online.result["winners"])), (0, 0)]
    assert len(after.recent) == 4 and sum(row.match.practice for row in after.recent) == 3
    page = client.get(reverse("history:player", args=["ana"]))
    assert page.text.count('data-testid="practice-badge"') == 3
    assert "practice matches are not counted" in page.text
    client.force_login(ion)  # a private table: nobody else sees ana's practice
    assert [row.match.pk for row in selectors.player_profile(player=ana, viewer=ion).recent] == [online.pk]


def test_the_admin_filters_practice_matches(client, ana):
    client.force_login(ana)
    post(client, practice_upload("classic", {"players": 2}))
    practice = Match.objects.get()
    online = finished_match("classic", [ana])
    client.force_login(make_user("mod", is_staff=True, is_superuser=True))
    url = reverse("admin:gameplay_match_changelist")

    def listed(practice: str) -> list[int]:
        return [m.pk for m in client.get(url, {"practice__exact": practice}).context["cl"].result_list]

    assert (listed("1"), listed("0")) == ([practice.pk], [online.pk])
    assert client.get(reverse("admin:gameplay_match_change", args=[practice.pk])).status_code == 200


def test_rows_written_match_the_upload_counts(client, ana):
    """One table, its seats, the match, its participants, moves and score-sheet rows: nothing else."""
    upload = practice_upload("americana", {"players": 3, "target": 101}, bots=("easy", "normal"))
    client.force_login(ana)
    assert post(client, upload).status_code == 201
    assert (Table.objects.count(), Seat.objects.count(), Participant.objects.count()) == (1, 3, 3)
    assert Move.objects.count() == len(upload["actions"])
    assert RoundResult.objects.count() == Match.objects.get().rounds.count() >= 1
