"""The rules of both games, in plain Python (standard library only).

The same code runs on the server and, under Pyodide, in the browser for offline
practice, so nothing here may import Django or any third-party package.
"""

from importlib import import_module

from .core import Game, IllegalAction, play_refusals

GAME_NAMES = ("americana", "classic")


def get_game(name: str) -> Game:
    """The game object for a game name ("americana" or "classic")."""
    if name not in GAME_NAMES:
        raise ValueError(f"Unknown game {name!r}: expected one of {', '.join(GAME_NAMES)}.")
    return import_module(f"{__name__}.{name}").GAME


__all__ = ["GAME_NAMES", "Game", "IllegalAction", "get_game", "play_refusals"]
