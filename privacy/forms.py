from django import forms
from django.utils.translation import gettext_lazy as _


class CloseAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    understood = forms.BooleanField(
        label=_("I understand that this cannot be undone."),
        error_messages={"required": _("Tick the box to say you understand.")},
    )
