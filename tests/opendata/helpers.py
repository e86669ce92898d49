"""A month of matches of every kind, some of which the open data publishes."""

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from bots.arena import bot_played_actions
from chat.models import ChatMessage, Room
from gameplay.models import Match
from practice import uploads
from tests.history.helpers import finished_match, play_out
from tests.practice.helpers import forget_upload_budgets
from tests.ratings.helpers import rated_table_match

SAID = "meet me at the corner table"
"""A line of the players' chat in a published match: never in a file."""


def rated_played(game: str, people: list, seed: int = 0) -> Match:
    """A rated match at a public table, played to its end."""
    match = play_out(rated_table_match(game, people), seed)
    assert match.status == Match.Status.FINISHED and match.table.is_rated and not match.table.is_private
    return match


def practice_saved(user) -> Match:
    """A practice match played offline against a bot and saved, as the browser saves it."""
    forget_upload_budgets()
    finished = timezone.now().replace(microsecond=0)
    options = {"players": 2, "target": 101}
    upload = {
        "game": "americana",
        "options": options,
        "seed": 5,
        "seat": 0,
        "bots": ["easy"],
        "actions": bot_played_actions("americana", options, 5, ["easy", "easy"]),
        "started_at": (finished - timedelta(minutes=10)).isoformat(),
        "finished_at": finished.isoformat(),
        "bundle": "3f9a1c2e",
    }
    match, saved = uploads.practice_record(user=user, upload=upload)
    assert saved and match.practice
    return match


@dataclass
class Month:
    americana: Match
    classic: Match
    casual: Match
    private: Match
    practice: Match


def month_of_matches(ana, ion) -> Month:
    """Two rated public matches (one per game, the first with a chat line), a casual public one, one at
    a private table and a practice one: all finished this month."""
    americana = rated_played("americana", [ana, ion])
    ChatMessage.objects.create(
        table_id=americana.table_id,
        match=americana,
        move_index=3,
        room=Room.PLAYERS,
        author=ana,
        text=SAID,
        shown=SAID,
    )
    return Month(
        americana=americana,
        classic=rated_played("classic", [ana, ion], seed=1),
        casual=play_out(rated_table_match("americana", [ana, ion], rated=False), 2),
        private=finished_match("classic", [ana, ion], private=True, seed=3),
        practice=practice_saved(ana),
    )
