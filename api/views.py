"""The API's pages for people: the guide (how to make a token, what each endpoint does, how a bot plays)
and the page where a person makes and revokes their tokens. Tokens never log into these pages: they
are read from the ``Authorization`` header by the API alone."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.services import client_address

from . import selectors, services
from .forms import TokenForm

GUIDE_LIMITS = (
    "API_REQUESTS_PER_MINUTE",
    "API_PERSON_REQUESTS_PER_MINUTE",
    "API_ANONYMOUS_REQUESTS_PER_MINUTE",
    "API_MATCH_RECORDS_PER_HOUR",
    "API_TABLES_PER_HOUR",
    "API_STREAMS_PER_TOKEN",
    "API_MAX_BODY_BYTES",
)
"""The budgets the guide states, read from the settings so it never says other numbers than the site's."""


@require_GET
def guide(request: HttpRequest) -> HttpResponse:
    limits = {name: getattr(settings, name) for name in GUIDE_LIMITS}
    return render(request, "api/guide.html", {"limits": limits})


NEW_TOKEN = "api-new-token"
"""Where a new token waits in the person's session for the one page that shows it (then it goes)."""


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """The person's tokens and a form for a new one. A new token is shown once, on the page the form
    leads to (reloading it neither shows it again nor makes another): the site keeps its digest only."""
    holders = services.holders_for(request.user)
    form = TokenForm(request.POST or None, holders=holders)
    if request.method == "POST" and form.is_valid():
        try:
            made = services.token_create(
                owner=request.user,
                holder_id=form.cleaned_data["holder"],
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
                days=form.cleaned_data["days"],
                address=client_address(request),
            )
        except services.TokenError as error:
            form.add_error(None, str(error))
        else:
            request.session[NEW_TOKEN] = {"id": made.token.pk, "secret": made.secret}
            return redirect("api:tokens")
    shown = request.session.pop(NEW_TOKEN, None)
    listed = selectors.tokens_of(request.user)
    made = None
    if shown is not None:
        token = next((token for token in listed if token.pk == shown["id"]), None)
        made = services.Made(token, shown["secret"]) if token is not None else None
    response = render(request, "api/tokens.html", {"form": form, "made": made, "tokens": listed})
    response["Cache-Control"] = "no-store"  # the page with a new token is never kept by the browser
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = services.token_revoke(by=request.user, token_id=token_id)
    except services.TokenError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("The token %(name)s is revoked: programs using it are refused from now on.")
            % {"name": token.name},
        )
    return redirect("api:tokens")
