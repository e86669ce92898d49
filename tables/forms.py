from django import forms
from django.utils.translation import gettext_lazy as _

from .models import BotLevel


class BotAccountForm(forms.Form):
    """The name of a bot account the host seats (``services.seat_bot_account``)."""

    username = forms.CharField(max_length=150)


class BotForm(forms.Form):
    level = forms.ChoiceField(label=_("Bot level"), choices=BotLevel.choices, initial=BotLevel.NORMAL)
