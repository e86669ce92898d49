"""The pool's form: the game and the few options that matter."""

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from gameplay.forms import TableForm
from tables.models import Game


class PoolForm(forms.Form):
    game = forms.ChoiceField(
        label=gettext_lazy("Game"), choices=Game.choices, widget=forms.RadioSelect, initial=Game.AMERICANA
    )
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        coerce=int,
        choices=[(2, "2"), (3, "3"), (4, "4")],
        initial=2,
        widget=forms.RadioSelect,
    )
    target = forms.TypedChoiceField(
        label=TableForm.base_fields["target"].label,
        coerce=int,
        choices=TableForm.base_fields["target"].choices,
        initial=101,
    )
    match = forms.ChoiceField(
        label=TableForm.base_fields["match"].label,
        choices=TableForm.base_fields["match"].choices,
        initial="points8",
    )
    fill_with_bots = forms.BooleanField(
        label=gettext_lazy("Fill with bots"),
        required=False,
        help_text=gettext_lazy("A table with bots is casual: its match moves no rating."),
    )
    casual = forms.BooleanField(
        label=gettext_lazy("Casual"),
        required=False,
        help_text=gettext_lazy(
            "Play with others who chose casual, and with new accounts: the match moves no rating."
        ),
    )

    def length(self):
        """The target (Americana) or the match's length (classic) chosen."""
        data = self.cleaned_data
        return data["target"] if data["game"] == Game.AMERICANA else data["match"]


def pool_summary(game: str, options: dict, *, rated: bool) -> str:
    """What a pool is for, as the waiting page says it: the game, the players, the target or length,
    rated or casual."""
    fields = PoolForm.base_fields
    players = _("%(players)s players") % {"players": options["players"]}
    if game == Game.AMERICANA:
        length = _("target %(target)s") % {"target": options["target"]}
    else:
        length = dict(fields["match"].choices)[options["match"]]
    side = _("rated") if rated else _("casual")
    return " · ".join([str(Game(game).label), players, str(length), side])
