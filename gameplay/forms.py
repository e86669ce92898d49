"""The forms that open a table: which game, its options (checked by the engine), the clock."""

from django import forms
from django.utils.translation import gettext_lazy as _

from tables.models import Game, Pace, TurnClock


class TableForm(forms.Form):
    """A new table. Each game's options are separate fields; only the chosen game's are used."""

    game = forms.ChoiceField(
        label=_("Game"), choices=Game.choices, widget=forms.RadioSelect, initial=Game.AMERICANA
    )
    is_private = forms.BooleanField(
        label=_("Private table"),
        required=False,
        help_text=_(
            "Not listed in the lobby: only people with the invitation link can sit down. "
            "A private table is casual: its matches move no rating."
        ),
    )
    rated = forms.BooleanField(
        label=_("Rated"),
        required=False,
        initial=True,
        help_text=_(
            "A public table's match moves everyone's rating when every seat holds a person whose account "
            "is established and no two of them have played enough rated matches together today; "
            "untick for a casual table."
        ),
    )
    fast_bots = forms.BooleanField(
        label=_("Fast bots"),
        required=False,
        help_text=_(
            "Bots play in a few tenths of a second instead of pausing a second or so, as a person would."
        ),
    )
    turn_clock = forms.TypedChoiceField(
        label=_("Turn clock"),
        coerce=int,
        choices=TurnClock.choices,
        initial=TurnClock.SECONDS_45,
        help_text=_("A player who lets the clock run out is stood in for by a bot until they come back."),
    )
    pace_hours = forms.TypedChoiceField(
        label=_("Pace"),
        coerce=int,
        choices=Pace.choices,
        initial=Pace.LIVE,
        required=False,
        empty_value=Pace.LIVE,
        help_text=_(
            "At your own pace, each player has this long for a move and is told when it is their turn; "
            "the match may last days. When the time runs out a bot plays that move for them."
        ),
    )

    americana_players = forms.TypedChoiceField(
        label=_("Players"), coerce=int, choices=[(2, "2"), (3, "3"), (4, "4")], initial=4
    )
    jokers = forms.BooleanField(
        label=_("Play with jokers"),
        required=False,
        help_text=_(
            "Adds the two jokers (54 cards): a joker goes on anything and makes the next player take five."
        ),
    )
    jack_draws_two = forms.BooleanField(
        label=_("Jack draws two"),
        required=False,
        help_text=_("A jack acts like a two: the next player takes two cards or answers with a draw card."),
    )
    court_follows = forms.BooleanField(
        label=_("Court follows"),
        required=False,
        help_text=_("A jack may go on a two, a queen on a three and a king on a four, whatever the suits."),
    )
    target = forms.TypedChoiceField(
        label=_("Target"),
        coerce=int,
        choices=[(101, "101"), (301, "301"), (501, "501")],
        initial=101,
        help_text=_("The match ends when someone's charges reach it; the lowest total wins."),
    )

    classic_players = forms.TypedChoiceField(
        label=_("Players"),
        coerce=int,
        choices=[
            (2, _("2 (one against one)")),
            (3, _("3 (each for themselves)")),
            (4, _("4 (two teams of two)")),
        ],
        initial=2,
    )
    match = forms.ChoiceField(
        label=_("Match"),
        choices=[
            ("points8", _("Points to 8 (short table)")),
            ("points21", _("Points to 21 (long table)")),
            ("games1", _("First to 1 game won")),
            ("games2", _("First to 2 games won")),
            ("games3", _("First to 3 games won")),
        ],
        initial="points8",
        help_text=_("Every ten and ace captured is a point, eight in each deal."),
    )
    lead = forms.ChoiceField(
        label=_("Who leads a new deal"),
        choices=[("rotate", _("The next player in turn")), ("winner", _("The winner of the last deal"))],
        initial="rotate",
    )

    AMERICANA_FIELDS = ("americana_players", "jokers", "jack_draws_two", "court_follows", "target")
    CLASSIC_FIELDS = ("classic_players", "match", "lead")

    def options(self) -> dict:
        """The chosen game's options in the engine's JSON form."""
        data = self.cleaned_data
        if data["game"] == Game.AMERICANA:
            return {
                "players": data["americana_players"],
                "jokers": data["jokers"],
                "jack_draws_two": data["jack_draws_two"],
                "court_follows": data["court_follows"],
                "target": data["target"],
            }
        return {"players": data["classic_players"], "match": data["match"], "lead": data["lead"]}

    def clean(self):
        data = super().clean()
        if data.get("pace_hours"):
            data["turn_clock"] = TurnClock.SECONDS_45  # hidden: the time per move replaces it
        if data.get("turn_clock") == TurnClock.NONE and not data.get("is_private"):
            self.add_error("turn_clock", _("Only private tables may play without a turn clock."))
        return data


class PlayNowForm(forms.Form):
    game = forms.ChoiceField(choices=Game.choices)
    fast_bots = forms.BooleanField(required=False)


class HolidayForm(forms.Form):
    """Days of holiday to take from now (``services.holiday_start`` checks them against the year's)."""

    days = forms.IntegerField(label=_("Days"), min_value=1, max_value=366, initial=7)
