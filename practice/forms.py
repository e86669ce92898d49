"""The practice table's choices: the online table's game and options, and the bots' level."""

from django import forms
from django.utils.translation import gettext_lazy as _

from gameplay.forms import TableForm
from tables.models import BotLevel


class PracticeForm(TableForm):
    """Read in the browser, never posted: the page hands the chosen game's fields to the practice
    table, which names them as the engine does (``americana_players`` → ``players``, as
    ``TableForm.options``)."""

    bot_level = forms.ChoiceField(label=_("Bots"), choices=BotLevel.choices, initial=BotLevel.NORMAL)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for online_only in ("is_private", "turn_clock"):
            del self.fields[online_only]
