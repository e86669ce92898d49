"""The chat's plain forms, for pages without a socket (a match's page, afterwards): report a line, or
ignore its author. Every write goes through ``chat.services``; each answers with a message and goes
back to the page the form was on."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_POST

from social.views import back_to_form_page

from . import frames, services

GONE = gettext_noop("That message is no longer there.")


def _message_id(request: HttpRequest) -> int:
    """The message the form names (digits only, as many as an id holds), else refused."""
    value = request.POST.get("message", "")
    if not frames.ID.fullmatch(value):
        raise services.ChatRefused(GONE)
    return int(value)


@login_required
@require_POST
def report(request: HttpRequest) -> HttpResponse:
    try:
        services.chat_report(
            user=request.user, message_id=_message_id(request), reason=request.POST.get("reason", "")
        )
    except services.ChatRefused as refusal:
        messages.error(request, refusal.explain())
    else:
        messages.success(request, _("Thank you: a moderator will read it."))
    return back_to_form_page(request, reverse("home"))


@login_required
@require_POST
def ignore(request: HttpRequest) -> HttpResponse:
    try:
        ignored = services.chat_ignore(user=request.user, message_id=_message_id(request))
    except services.ChatRefused as refusal:
        messages.error(request, refusal.explain())
    else:
        messages.success(
            request,
            _("You no longer see what %(name)s says in the chat.") % {"name": ignored.ignored.username},
        )
    return back_to_form_page(request, reverse("home"))
