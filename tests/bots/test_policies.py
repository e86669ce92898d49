"""What every level of both games owes the site: legal moves, and no peeking."""

import random

import pytest

from bots import policies
from bots.policies import DEFAULT_BUDGET, LEVELS, TABLE_BUDGETS, choose

from .positions import hidden_shuffled, random_positions

GAMES = [(game, players) for game in ("americana", "classic") for players in (2, 3, 4)]
TINY = 0.003  # seconds of search: enough for hard to take every code path, cheap for the suite


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_every_level_returns_one_of_the_legal_actions_it_was_given(game, players):
    for number, position in enumerate(random_positions(game, players, 40, seed=1)):
        view, legal = position.view(), position.legal()
        history = position.history if number % 2 else None
        for level in LEVELS:
            chosen = choose(view, legal, level, random.Random(number), history=history, budget=TINY)
            assert any(chosen is action for action in legal), (level, chosen, legal)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_choice_does_not_change_when_the_hidden_cards_are_dealt_otherwise(game, players):
    """Fair play: the other hands and the stock order, shuffled among themselves consistently
    with the seat's view, change nothing (same view, same history, same RNG seed)."""
    shuffler = random.Random(7)
    for number, position in enumerate(random_positions(game, players, 8, seed=2)):
        view, legal = position.view(), position.legal()
        for trial in range(3):
            other = hidden_shuffled(position, shuffler)
            other_view = position.game.view(other, position.seat)
            assert other_view == view
            for level in LEVELS:
                for history in (None, position.history):
                    first = choose(view, legal, level, random.Random(number), history=history, budget=0.01)
                    again = choose(
                        other_view, legal, level, random.Random(number), history=history, budget=0.01
                    )
                    assert first == again, (level, trial)


def test_the_only_legal_action_is_taken_without_thinking():
    position = next(random_positions("classic", 2, 1, seed=3))
    view = position.view()
    only = [{"type": "take"}]
    assert choose(view, only, "hard", random.Random(0)) is only[0]


def test_refusals():
    position = next(random_positions("americana", 2, 1, seed=4))
    view, legal = position.view(), position.legal()
    with pytest.raises(ValueError, match="level"):
        choose(view, legal, "grandmaster", random.Random(0))
    with pytest.raises(ValueError, match="no legal action"):
        choose(view, [], "easy", random.Random(0))
    other = position.game.view(position.state, (position.seat + 1) % 2)
    with pytest.raises(ValueError, match="seat to act"):
        choose(other, legal, "easy", random.Random(0))


def test_a_history_that_does_not_fit_the_view_is_ignored():
    """A caller's mistake (another round's events) must not make the bot play illegally."""
    positions = list(random_positions("americana", 3, 2, seed=5))
    view, legal = positions[0].view(), positions[0].legal()
    chosen = choose(view, legal, "hard", random.Random(0), history=positions[1].history, budget=TINY)
    assert chosen in legal


@pytest.mark.parametrize(
    ("game", "players", "budget"),
    [
        ("americana", 2, DEFAULT_BUDGET),
        ("americana", 3, 2 * DEFAULT_BUDGET),
        ("americana", 4, DEFAULT_BUDGET),
        ("classic", 2, DEFAULT_BUDGET),
        ("classic", 3, DEFAULT_BUDGET),
        ("classic", 4, DEFAULT_BUDGET),
    ],
)
def test_hard_searches_twice_as_long_at_a_three_player_americana_table(game, players, budget, monkeypatch):
    """Without a budget of its own, hard searches for its table's: twice as long in three-player
    Americana (``TABLE_BUDGETS``); a caller's budget (the arena's, a test's) stands as given."""
    assert TABLE_BUDGETS == {("americana", 3): 2 * DEFAULT_BUDGET}
    searched: list[float] = []
    real = policies.best_action

    def best_action(found, rng, *, budget):
        searched.append(budget)
        return real(found, rng, budget=TINY)

    monkeypatch.setattr(policies, "best_action", best_action)
    position = next(random_positions(game, players, 1, seed=6))
    view, legal = position.view(), position.legal()
    choose(view, legal, "hard", random.Random(0))
    choose(view, legal, "hard", random.Random(0), budget=0.05)
    assert searched == [budget, 0.05]
