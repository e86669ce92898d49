from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts.services import client_address

from . import mail, services
from .forms import SettingsForm
from .models import CHOSEN_WAYS, Kind, preference_of


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """What the person is told and how (kinds × ways), and their quiet hours."""
    form = SettingsForm(request.POST or None, preference=preference_of(request.user.pk))
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            services.preference_save(
                user=request.user,
                ways=form.ways(),
                quiet_from=form.cleaned_data["quiet_from"],
                quiet_until=form.cleaned_data["quiet_until"],
                time_zone=form.cleaned_data["time_zone"],
                language=get_language(),
                address=client_address(request),
            )
        except services.Throttled as error:
            form.add_error(None, str(error))
            status = 429
        else:
            messages.success(request, _("Your notification settings are saved."))
            return redirect("notifications:settings")
    return render(request, "notifications/settings.html", {"form": form, "ways": CHOSEN_WAYS}, status=status)


@csrf_exempt  # RFC 8058: a mail client's one-click POST carries no token; the signed link is the proof
@never_cache
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """An email's unsubscribe link, no login needed: opening it asks (a link checker that opens every
    link unsubscribes nobody); the page's button, or a mail client's one-click POST, unsubscribes."""
    reading = mail.unsubscribe_reading(token)
    if reading is None:
        return render(request, "notifications/unsubscribe.html", {"refused": True}, status=400)
    kind = Kind(reading[1]).label
    if request.method == "POST":
        try:
            services.unsubscribe(token=token, address=client_address(request))
        except services.Throttled as error:
            context = {"kind": kind, "throttled": str(error)}
            return render(request, "notifications/unsubscribe.html", context, status=429)
        return render(request, "notifications/unsubscribe.html", {"kind": kind, "done": True})
    return render(request, "notifications/unsubscribe.html", {"kind": kind})
