from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .models import Scope
from .services import EXPIRY_DAYS


class TokenForm(forms.Form):
    """A new token: its name, whom it acts as (the person or one of their bot accounts), what it may
    do and how long it lives. The service checks it all again."""

    name = forms.CharField(
        label=_("Name"), max_length=60, help_text=_("To know the token by: what program or machine uses it.")
    )
    holder = forms.TypedChoiceField(label=_("Acts as"), coerce=int)
    scopes = forms.MultipleChoiceField(
        label=_("It may"), choices=Scope.choices, widget=forms.CheckboxSelectMultiple, initial=[Scope.READ]
    )
    days = forms.TypedChoiceField(label=_("Expires after"), coerce=int, initial=90)

    def __init__(self, *args, holders, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["days"].choices = [
            (days, gettext("%(days)d days") % {"days": days}) for days in EXPIRY_DAYS
        ]
        you, *bots = holders
        self.fields["holder"].choices = [(you.pk, gettext("yourself"))] + [
            (bot.pk, gettext("your bot %(name)s") % {"name": bot.username}) for bot in bots
        ]
