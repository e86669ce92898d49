"""Each game's presenter: the table's screen, its words and its score sheet, in plain Python.

Imports only the engine and the standard library (an import-linter contract says so), so the live
table, the replay, the match page, the admin and the offline practice table all build from it.
"""

from importlib import import_module

from gameplay.engine import GAME_NAMES

from .screen import Presenter


def presenter(game: str) -> Presenter:
    """The presenter for a game name ("americana" or "classic")."""
    if game not in GAME_NAMES:
        raise ValueError(f"Unknown game {game!r}: expected one of {', '.join(GAME_NAMES)}.")
    return import_module(f"{__name__}.{game}").PRESENTER


__all__ = ["Presenter", "presenter"]
