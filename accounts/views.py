from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import selectors, services
from .forms import BotAccountForm, LoginForm, PasswordResetForm, ProfileForm, RegistrationForm


def _origin(request: HttpRequest) -> str:
    """The site's scheme and host as this request reached it, for links mailed to the person."""
    return f"{request.scheme}://{request.get_host()}"


@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    if request.method == "POST":
        try:
            services.registration_spend(address=services.client_address(request))
        except services.AccountRefused as refused:
            context = {"form": RegistrationForm(), "refused": str(refused)}
            return render(request, "accounts/register.html", context, status=429)
    form = RegistrationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.user_register(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            origin=_origin(request),
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome, %(name)s! Your account is ready.") % {"name": user.username})
        messages.info(
            request,
            _("We have mailed a link to %(email)s: open it to confirm your address and play rated matches.")
            % {"email": user.email},
        )
        return redirect("home")
    return render(request, "accounts/register.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            changed = services.user_update_email(
                user=request.user, email=form.cleaned_data["email"], origin=_origin(request)
            )
        except services.AccountRefused as refused:
            messages.error(request, str(refused))
            return redirect("accounts:profile")
        messages.success(request, _("Your profile is saved."))
        if changed:
            messages.info(
                request,
                _("We have mailed a link to %(email)s: open it to confirm your new address.")
                % {"email": request.user.email},
            )
        return redirect("accounts:profile")
    return _profile_page(request, form=form, bot_form=BotAccountForm())


def _profile_page(request: HttpRequest, *, form: ProfileForm, bot_form: BotAccountForm, status: int = 200):
    established_from = selectors.established_from(request.user)
    rated_from = established_from if established_from and established_from > timezone.now() else None
    context = {
        "form": form,
        "rated_from": rated_from,
        "bot_form": bot_form,
        "bot_accounts": selectors.bot_accounts_of(owner=request.user),
        "bot_accounts_cap": settings.BOT_ACCOUNTS_PER_PERSON,
    }
    return render(request, "accounts/profile.html", context, status=status)


@login_required
@require_POST
def bot_account_register(request: HttpRequest) -> HttpResponse:
    """The profile's "Register a bot account": the page again with the form's faults, or the new bot
    account in the list."""
    bot_form = BotAccountForm(request.POST)
    if bot_form.is_valid():
        try:
            bot = services.bot_account_register(
                owner=request.user,
                username=bot_form.cleaned_data["username"],
                description=bot_form.cleaned_data["bot_description"],
                address=services.client_address(request),
            )
        except services.AccountRefused as refused:
            messages.error(request, str(refused))
            return redirect("accounts:profile")
        messages.success(
            request,
            _("%(name)s is registered: give it a token with the bot scope to play through the API.")
            % {"name": bot.username},
        )
        return redirect("accounts:profile")
    return _profile_page(request, form=ProfileForm(user=request.user), bot_form=bot_form, status=400)


@login_required
@require_POST
def email_confirmation_send(request: HttpRequest) -> HttpResponse:
    """The profile's "send the link again"."""
    try:
        services.email_confirmation_send(user=request.user, origin=_origin(request))
    except services.AccountRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request, _("We have mailed a new link to %(email)s.") % {"email": request.user.email}
        )
    return redirect("accounts:profile")


@require_GET
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """Where the mailed link leads: the address is confirmed, or the page says why not."""
    try:
        services.email_confirm(token=token)
    except services.AccountRefused as refused:
        return render(request, "accounts/email_confirm.html", {"refused": str(refused)}, status=400)
    return render(request, "accounts/email_confirm.html", {})


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True
    authentication_form = LoginForm


def login_locked_out(request: HttpRequest, *_args) -> HttpResponse:
    """What a login refused by the limit gets (django-axes calls this): the login page, saying why."""
    lockout = _(
        "Too many failed attempts. Please wait %(minutes)d minutes and try again, or reset your password."
    ) % {"minutes": max(1, settings.LOGIN_ATTEMPTS_WINDOW // 60)}
    context = {"form": LoginForm(request), "lockout": lockout}
    return render(request, "accounts/login.html", context, status=429)


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:profile")

    def form_valid(self, form):
        messages.success(self.request, _("Your password has been changed."))
        return super().form_valid(form)


class PasswordResetView(auth_views.PasswordResetView):
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/email/password_reset.txt"
    subject_template_name = "accounts/email/password_reset_subject.txt"
    form_class = PasswordResetForm
    success_url = reverse_lazy("accounts:password_reset_done")


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")
