from django import forms
from django.utils.translation import gettext_lazy as _

from .models import BotLevel


class BotForm(forms.Form):
    level = forms.ChoiceField(label=_("Bot level"), choices=BotLevel.choices, initial=BotLevel.NORMAL)
