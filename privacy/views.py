from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import moderators
from accounts.services import client_address

from . import services
from .forms import CloseAccountForm

DOWNLOAD_NAME = "septica-data-%(name)s-%(date)s.zip"


@require_GET
def policy(request: HttpRequest) -> HttpResponse:
    """The privacy page: what is kept, why, for how long, who sees it, and how to take it or erase it."""
    context = {
        "notice_days": settings.NOTICE_KEEP_DAYS,
        "notify_days": settings.NOTIFY_KEEP_DAYS,
        "login_days": settings.LOGIN_RECORD_KEEP_DAYS,
        "failed_days": settings.FAILED_LOGIN_KEEP_DAYS,
        "export_hours": settings.DATA_EXPORT_KEEP_HOURS,
        "reserved_days": settings.ERASED_NAME_RESERVED_DAYS,
        "backup_days": settings.BACKUP_KEEP,
        "session_cookie": settings.SESSION_COOKIE_NAME,
        "csrf_cookie": settings.CSRF_COOKIE_NAME,
        "language_cookie": settings.LANGUAGE_COOKIE_NAME,
        "moderators_read": moderators.read_names(),
        "moderators_do": moderators.duty_names(),
        "moderators_never_see": moderators.never_shown_names(),
    }
    return render(request, "privacy/policy.html", context)


def _exports_panel(request: HttpRequest, status: int = 200) -> HttpResponse:
    context = {"exports": services.exports_of(user=request.user)}
    return render(request, "privacy/_exports.html", context, status=status)


@login_required
@never_cache
@require_GET
def data(request: HttpRequest) -> HttpResponse:
    """Your data: download everything, or close the account."""
    if request.htmx:
        return _exports_panel(request)
    context = {
        "exports": services.exports_of(user=request.user),
        "keep_hours": settings.DATA_EXPORT_KEEP_HOURS,
    }
    return render(request, "privacy/data.html", context)


@login_required
@require_POST
def export_request(request: HttpRequest) -> HttpResponse:
    try:
        services.export_request(user=request.user, address=client_address(request))
    except services.PrivacyError as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, _("Your data is being prepared. The link appears here when it is ready."))
    if request.htmx:
        return _exports_panel(request)
    return redirect("privacy:data")


@login_required
@never_cache
@require_GET
def export_download(request: HttpRequest, export_id: int) -> HttpResponse:
    """The archive, to its owner only and only until it expires."""
    ready = services.export_for_download(user=request.user, export_id=export_id)
    if ready is None:
        raise Http404(_("This download has expired or is not yours."))
    response = HttpResponse(bytes(ready.archive), content_type="application/zip")
    name = DOWNLOAD_NAME % {"name": request.user.username, "date": f"{ready.ready_at:%Y-%m-%d}"}
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=name)
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def close(request: HttpRequest) -> HttpResponse:
    """Close the account: the password again, what happens said plainly, then the erasure."""
    form = CloseAccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.account_close(
                user=request.user, password=form.cleaned_data["password"], address=client_address(request)
            )
        except services.PrivacyError as refusal:
            form.add_error("password", str(refusal))
        else:
            logout(request)
            messages.success(request, _("Your account is closed and your personal data erased. Goodbye!"))
            return redirect("home")
    status = 400 if form.errors else 200
    context = {"form": form, "reserved_days": settings.ERASED_NAME_RESERVED_DAYS}
    return render(request, "privacy/close.html", context, status=status)


@login_required
@require_POST
def bot_account_close(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The profile's "Close" by one of the person's bot accounts."""
    try:
        services.bot_account_close(owner=request.user, bot_id=bot_id)
    except services.PrivacyError as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, _("The bot account is closed."))
    return redirect("accounts:profile")
