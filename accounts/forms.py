import time

from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.core import signing
from django.template import loader
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from . import services
from .models import User

FORM_SHOWN_SALT = "accounts.registration-form-shown"


class ShownAtInput(forms.HiddenInput):
    """Carries the signed moment the form was shown; every rendering signs a new one."""

    def format_value(self, value) -> str:
        return signing.Signer(salt=FORM_SHOWN_SALT).sign(f"{time.time():.3f}")


class TrapInput(forms.TextInput):
    """A text box nobody sees (in a ``hidden`` block, out of the tab order): a person leaves it empty,
    a naive script fills in every box it finds. Rendered with the hidden fields."""

    is_hidden = True

    def render(self, name, value, attrs=None, renderer=None) -> str:
        box = super().render(name, "", {**(attrs or {}), "tabindex": "-1", "autocomplete": "off"}, renderer)
        return format_html(
            '<div hidden><label for="{}">{}</label>{}</div>', attrs["id"], _("Leave empty"), box
        )


def username_free(username: str) -> str:
    """``username`` when nobody has it (whatever its case) nor had it too recently; else refused."""
    if User.objects.filter(username__iexact=username).exists() or services.username_reserved(username):
        raise forms.ValidationError(_("That username is taken. Please choose another."), code="taken")
    return username


class RegistrationForm(auth_forms.UserCreationForm):
    """Registration, with two cheap checks against scripts before any captcha: a box only a program
    fills in, and a least time between showing the form and sending it."""

    email = forms.EmailField(
        label=_("Email"),
        help_text=_("We mail you a link to confirm it. Never shown to other players."),
    )
    homepage = forms.CharField(required=False, widget=TrapInput)
    shown_at = forms.CharField(required=False, widget=ShownAtInput)

    class Meta(auth_forms.UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Django's own help, said the way the site speaks to a player.
        self.fields["username"].label = _("Username")
        self.fields["username"].help_text = _(
            "What the other players see. Up to 150 letters, digits and @ . + - _ characters."
        )
        self.fields["password2"].label = _("Password confirmation")
        self.fields["password2"].help_text = _("The same password, to be sure it is typed right.")

    def clean_username(self) -> str:
        return username_free(self.cleaned_data["username"])

    def clean_email(self) -> str:
        email = User.objects.normalize_email(self.cleaned_data["email"])
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(
                _("An account with this email already exists. Log in, or reset your password."),
                code="email_taken",
            )
        return email

    def clean(self) -> dict:
        if self.cleaned_data.get("homepage"):
            raise forms.ValidationError(
                _("This form was filled in by a program, not a person. Please fill it in again."), code="trap"
            )
        try:
            shown_at = float(
                signing.Signer(salt=FORM_SHOWN_SALT).unsign(self.cleaned_data.get("shown_at", ""))
            )
        except (signing.BadSignature, ValueError):
            raise forms.ValidationError(
                _("This form could not be read. Please fill it in again."), code="unreadable"
            ) from None
        if time.time() - shown_at < settings.REGISTRATION_MIN_FORM_SECONDS:
            raise forms.ValidationError(
                _("That was quicker than anyone can type. Please check the form and send it again."),
                code="too_fast",
            )
        return super().clean()


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset flow, with the mail handed to a Celery worker."""

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ) -> None:
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        html = (
            loader.render_to_string(html_email_template_name, context) if html_email_template_name else None
        )
        services.email_send_on_commit(subject=subject, body=body, to=[to_email], html=html)


class ProfileForm(forms.Form):
    """A person's address (changing it mails a link to the new one; the account stays as it is until
    the form is saved through ``services.user_update_email``)."""

    email = forms.EmailField(label=_("Email"))

    def __init__(self, *args, user: User, **kwargs) -> None:
        super().__init__(*args, initial={"email": user.email}, **kwargs)
        self.user = user

    def clean_email(self) -> str:
        email = User.objects.normalize_email(self.cleaned_data["email"])
        if User.objects.filter(email__iexact=email).exclude(pk=self.user.pk).exists():
            raise forms.ValidationError(_("Another account already uses this email."), code="email_taken")
        return email


class LoginForm(auth_forms.AuthenticationForm):
    """Django's login, which tells a bot account's name apart: it has no password and never logs in."""

    def clean(self) -> dict:
        username = self.cleaned_data.get("username") or ""
        if User.objects.filter(
            username__iexact=username, is_bot_account=True, erased_at__isnull=True
        ).exists():
            raise forms.ValidationError(
                _(
                    "%(name)s is a bot account: it plays through the API only and cannot log in here. "
                    "Its owner logs in with their own account."
                ),
                code="bot_account",
                params={"name": username},
            )
        return super().clean()


class BotAccountForm(forms.ModelForm):
    """A person's new bot account: its name, by the registration's rules, and a line about it."""

    class Meta:
        model = User
        fields = ("username", "bot_description")
        labels = {"username": _("Bot account's name"), "bot_description": _("About it")}
        help_texts = {
            "username": _("Up to 150 letters, digits and @ . + - _ characters, as for any player."),
            "bot_description": _("A short line shown on its profile: what it is, how it plays."),
        }

    def clean_username(self) -> str:
        return username_free(self.cleaned_data["username"])
