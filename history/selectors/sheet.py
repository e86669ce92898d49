"""The score sheet: a match's rounds (Americana) or deals (classic), from the rows recorded as each
ended."""

from gameplay.games import presenter
from gameplay.games.screen import Finished, ScoreSheet
from gameplay.models import Match, RoundResult
from gameplay.selectors import participant_names, result_text


def score_sheet(match: Match) -> ScoreSheet:
    """One row per round (Americana) or deal (classic) from the rows recorded as each ended."""
    names = participant_names(match)
    return presenter(match.game).score_sheet(
        [Finished(r.number, r.summary) for r in RoundResult.objects.filter(match=match).order_by("number")],
        names,
        match.options,
        match.state["totals"],
        match.state.get("games_won"),
        result_text(match, names),
    )
