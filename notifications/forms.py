from zoneinfo import available_timezones

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import CHOSEN_WAYS, DEFAULT_TIME_ZONE, Kind, Preference


def _field(kind: str, way: str) -> str:
    return f"{kind}-{way}"


class SettingsForm(forms.Form):
    """The settings page: a box for each kind × way (push, email), the quiet hours and their time zone."""

    quiet_from = forms.TimeField(
        label=_("Quiet from"), required=False, widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M")
    )
    quiet_until = forms.TimeField(
        label=_("Quiet until"), required=False, widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M")
    )
    time_zone = forms.ChoiceField(label=_("Time zone"), initial=DEFAULT_TIME_ZONE)

    def __init__(self, *args, preference: Preference, **kwargs) -> None:
        initial = {
            "quiet_from": preference.quiet_from,
            "quiet_until": preference.quiet_until,
            "time_zone": preference.time_zone,
            **{_field(kind, way): preference.sends(kind, way) for kind in Kind.values for way in CHOSEN_WAYS},
        }
        super().__init__(*args, initial=initial, **kwargs)
        self.fields["time_zone"].choices = [(zone, zone) for zone in sorted(available_timezones())]
        for kind in Kind:
            for way in CHOSEN_WAYS:
                self.fields[_field(kind, way)] = forms.BooleanField(
                    label=f"{kind.label}: {way.label}", required=False
                )

    def clean(self) -> dict:
        data = super().clean()
        if (data.get("quiet_from") is None) != (data.get("quiet_until") is None):
            raise forms.ValidationError(_("Give both ends of the quiet hours, or neither."))
        return data

    def rows(self) -> list[dict]:
        """The table's rows: each kind with its boxes, in the ways' order."""
        return [
            {"kind": kind.label, "boxes": [self[_field(kind, way)] for way in CHOSEN_WAYS]} for kind in Kind
        ]

    def ways(self) -> dict[str, list[str]]:
        """The ways ticked for each kind."""
        return {
            kind: [way for way in CHOSEN_WAYS if self.cleaned_data.get(_field(kind, way))]
            for kind in Kind.values
        }
