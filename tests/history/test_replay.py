"""A replay step costs the same wherever it is in the match, and nobody asks for them faster than anyone
watches: the replay is a door with a budget."""

import pytest
from django.core.cache import caches
from django.urls import reverse

from gameplay.engine import get_game
from gameplay.engine.core import act as engine_act
from history import selectors


@pytest.fixture
def own_cache(settings) -> None:
    """A cache of this test's own: nothing cached by an earlier test, no budget spent by one."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def applied(monkeypatch) -> list[int]:
    """Counts the moves the replay applies with the engine (one entry per move)."""
    made: list[int] = []

    def counted(game, state, seat, action):
        made.append(seat)
        return engine_act(game, state, seat, action)

    monkeypatch.setattr("history.selectors.replay.engine_act", counted)
    return made


def every_state(match) -> list[dict]:
    """The match's state JSON after each step (its first deal, then each deal and move), walked here."""
    game = get_game(match.game)
    state = game.new_match(game.options_from_json(match.options), match.seed)
    states = [game.state_to_json(state)]
    for move in match.moves.order_by("seq"):
        if game.awaiting_deal(state):
            game.next_round(state)
            states.append(game.state_to_json(state))
        engine_act(game, state, move.seat, game.action_from_json(move.action))
        states.append(game.state_to_json(state))
    return states


def test_a_step_replays_a_few_moves_wherever_it_is_in_the_match(own_cache, played, applied):
    """Each step is made from a state kept a few steps before it, not from the first deal: Play through
    a long match is linear, and every step is still the table after the moves before it."""
    states = every_state(played)
    last = len(states) - 1
    assert last > 4 * selectors.CHECKPOINT_STEPS
    selectors.replay_step(played, 0)  # the first step asked for walks the match once
    assert len(applied) == played.moves_made
    game = get_game("americana")
    for index in range(last + 1):
        applied.clear()
        step = selectors.replay_step(played, index)
        assert len(applied) <= selectors.CHECKPOINT_STEPS
        assert (step.index, step.last) == (index, last)
        assert step.public == game.view(game.state_from_json(states[index]), None)
        assert [seat.open_hand for seat in step.seats] == states[index]["hands"]
    caches["default"].clear()  # forgotten (evicted): walked again, and the same
    again = selectors.replay_step(played, last - 1)
    assert again.public == game.view(game.state_from_json(states[last - 1]), None)


def test_the_first_step_of_a_replay_costs_a_walk_through_the_match_and_the_next_ones_one_step(
    own_cache, played
):
    assert selectors.replay_cost(played) == 1 + played.moves_made / selectors.WALKED_MOVES_PER_STEP
    selectors.replay_step(played, 3)
    assert selectors.replay_cost(played) == 1


def replay(client, match, step: int, **headers):
    return client.get(reverse("history:replay", args=[match.pk]), {"step": step}, headers=headers)


def test_steps_asked_faster_than_anyone_watches_are_refused_in_the_visitors_language(
    own_cache, settings, client, played, ana, ion
):
    settings.REPLAY_STEPS_PER_SECOND = 0.001
    settings.REPLAY_STEPS_BURST = 2
    client.force_login(ana)
    assert replay(client, played, 1).status_code == 200  # walks the match: more than a step's worth
    page = replay(client, played, 2)
    assert page.status_code == 429 and int(page["Retry-After"]) > 0
    assert "That is faster than anyone watches a replay" in page.text and "<html" in page.text
    # htmx shows why in the step's notice line, leaving the step and the address as they are.
    step = replay(client, played, 2, **{"HX-Request": "true"})
    assert step.status_code == 429 and "<html" not in step.text
    told = (step["HX-Retarget"], step["HX-Reswap"], step["HX-Push-Url"])
    assert told == ("#replay-notice", "innerHTML", "false")
    client.cookies["django_language"] = "ro"
    assert "E mai repede decât se uită cineva la o reluare" in replay(client, played, 2).text
    # The budget is ana's alone.
    client.force_login(ion)
    shown = replay(client, played, 2)
    assert shown.status_code == 200 and 'id="replay-notice"' in shown.text
