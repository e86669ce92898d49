"""The form that makes a private tournament: its shape in a few choices. The service checks the ranges
(and says why in words a player reads); the form only reads the numbers."""

from django import forms
from django.utils.translation import gettext_lazy as _

from social.forms import PoolForm
from tables.models import Game, TurnClock

from .models import Kind
from .services.entering import LENGTHS, SWISS_ROUNDS


def _bounded(label, initial: int, bounds: tuple[int, int], help_text="") -> forms.IntegerField:
    """A number the browser keeps within ``bounds`` before sending it (the service checks it again)."""
    shortest, longest = bounds
    return forms.IntegerField(
        label=label,
        initial=initial,
        help_text=help_text,
        widget=forms.NumberInput(attrs={"min": shortest, "max": longest, "inputmode": "numeric"}),
    )


class PrivateTournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    kind = forms.ChoiceField(
        label=_("Kind"), choices=Kind.choices, widget=forms.RadioSelect, initial=Kind.ARENA
    )
    game = PoolForm.base_fields["game"]
    players = forms.TypedChoiceField(
        label=_("Players at a table"),
        coerce=int,
        choices=[(2, "2"), (3, "3"), (4, "4")],
        initial=2,
        widget=forms.RadioSelect,
        help_text=_("Classic at four plays two against two."),
    )
    target = PoolForm.base_fields["target"]
    match = PoolForm.base_fields["match"]
    turn_clock = forms.TypedChoiceField(
        label=_("Turn clock"),
        coerce=int,
        choices=[(value, label) for value, label in TurnClock.choices if value],
        initial=TurnClock.SECONDS_20,
    )
    starts_in_minutes = _bounded(_("Starts in (minutes)"), 10, (1, 7 * 24 * 60))
    minutes = _bounded(
        _("Length (minutes)"),
        30,
        LENGTHS[Kind.ARENA],
        _("Play as many matches as the time allows."),
    )
    rounds = _bounded(_("Rounds"), 5, SWISS_ROUNDS)
    round_minutes = _bounded(
        _("Round's time limit (minutes)"),
        15,
        LENGTHS[Kind.SWISS],
        _("A round's tables still playing then are stopped and count as level."),
    )

    def options(self) -> dict:
        """The match's length: the target (Americana) or the match (classic); the service adds the rest."""
        data = self.cleaned_data
        if data["game"] == Game.AMERICANA:
            return {"target": data["target"]}
        return {"match": data["match"]}

    def length(self) -> int:
        """An arena's length, or a Swiss round's time limit, in minutes."""
        data = self.cleaned_data
        return data["minutes"] if data["kind"] == Kind.ARENA else data["round_minutes"]
