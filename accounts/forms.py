from django import forms
from django.contrib.auth import forms as auth_forms
from django.template import loader
from django.utils.translation import gettext_lazy as _

from . import services
from .models import User


class RegistrationForm(auth_forms.UserCreationForm):
    email = forms.EmailField(
        label=_("Email"), help_text=_("Only used to reset your password. Never shown to other players.")
    )

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
        username = self.cleaned_data["username"]
        if User.objects.filter(username__iexact=username).exists() or services.username_reserved(username):
            raise forms.ValidationError(_("That username is taken. Please choose another."), code="taken")
        return username

    def clean_email(self) -> str:
        email = User.objects.normalize_email(self.cleaned_data["email"])
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(
                _("An account with this email already exists. Log in, or reset your password."),
                code="email_taken",
            )
        return email


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


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("email",)

    def clean_email(self) -> str:
        email = User.objects.normalize_email(self.cleaned_data["email"])
        if User.objects.filter(email__iexact=email).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(_("Another account already uses this email."), code="email_taken")
        return email
