"""Web push's doors: the site's push worker (served under /notifications/ yet allowed the whole site's
scope, so a tap on a notice can bring up any page) and the settings page's two requests, a device's
subscription kept ("turn on") and forgotten ("turn off"). Both answer JSON for ``static/js/push.js``."""

import json
import math

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.services import client_address

from .services import subscriptions


@require_GET
def worker(request: HttpRequest) -> HttpResponse:
    """The push worker's script; the browser checks it for changes on every visit (no-cache)."""
    icon = json.dumps(static("icons/icon-192.png"))  # as JSON, which is JavaScript
    response = render(request, "notifications/push-worker.js", {"icon": icon}, content_type="text/javascript")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response


def _refuse(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _changed(request: HttpRequest, change) -> JsonResponse:
    """Run ``change`` (a subscription service) for the person logged in, answering what went wrong as
    the page shows it: 403 for nobody logged in, 413 for a body too big to read, 429 with when to try
    again, 400 with what is wrong."""
    if not request.user.is_authenticated:
        return _refuse(_("Log in to get notifications on this device."), status=403)
    try:
        announced = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        announced = 0
    try:
        if announced > settings.PUSH_SUBSCRIPTION_MAX_BYTES:
            raise subscriptions.SubscriptionTooBig  # said before the body is read
        on = change(request.body, client_address(request))
    except subscriptions.SubscriptionThrottled as error:
        response = _refuse(str(error), status=429)
        response["Retry-After"] = str(math.ceil(error.wait))
        return response
    except subscriptions.SubscriptionTooBig as error:
        return _refuse(str(error), status=413)
    except subscriptions.SubscriptionRefused as error:
        return _refuse(str(error))
    return JsonResponse({"on": on})


@require_POST
def subscribe(request: HttpRequest) -> JsonResponse:
    """Keep this device's subscription as the person's: ``{"on": true}``."""

    def keep(body: bytes, address: str | None) -> bool:
        offered = subscriptions.subscription_read(body)
        subscriptions.subscription_save(user=request.user, offered=offered, address=address)
        return True

    return _changed(request, keep)


@require_POST
def unsubscribe(request: HttpRequest) -> JsonResponse:
    """Forget this device's subscription: ``{"on": false}`` (also when the site had already forgotten it)."""

    def forget(body: bytes, address: str | None) -> bool:
        endpoint = subscriptions.endpoint_read(body)
        subscriptions.subscription_delete(user=request.user, endpoint=endpoint, address=address)
        return False

    return _changed(request, forget)
