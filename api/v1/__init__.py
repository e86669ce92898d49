"""Version 1 of the API, under ``/api/v1/``: its OpenAPI description at ``openapi.json`` and a
browsable page at ``docs``. A later version gets a package of its own beside this one, so programs
written against v1 keep working."""

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as InputError

from gameplay.services.pace import PaceError
from social.services.shared import SocialError
from tables.services import TableError
from tournaments.services.shared import TournamentError

from ..services import TokenError
from . import acts, bot, reads  # noqa: F401  (their endpoints register on the router)
from .routes import router

api = NinjaAPI(
    title="Șeptică API",
    version="1",
    urls_namespace="api-v1",
    description=(
        "Read the site's public records and your own, and act for yourself or your bot accounts, "
        "with a personal access token, sent as `Authorization: Bearer sep_…`. The guide: /api/."
    ),
)
api.add_router("", router)


def _refused(request: HttpRequest, error: TokenError) -> HttpResponse:
    response = api.create_response(request, {"detail": str(error)}, status=error.status)
    if error.wait:
        response["Retry-After"] = str(max(1, round(error.wait + 0.5)))
    if error.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


def _service_refused(request: HttpRequest, error: Exception) -> HttpResponse:
    """A service's refusal (a full table, a tournament over, a player already seated...): the reason as
    the site's pages would say it."""
    return api.create_response(request, {"detail": str(error)}, status=409)


def _move_refused(request: HttpRequest, error: bot.MoveRefused) -> HttpResponse:
    return api.create_response(request, {"detail": str(error), "version": error.version}, status=409)


def _unauthenticated(request: HttpRequest, error: AuthenticationError) -> HttpResponse:
    return _refused(
        request, TokenError(_("Send a personal access token: Authorization: Bearer <token>."), 401)
    )


def _bad_input(request: HttpRequest, error: InputError) -> HttpResponse:
    return api.create_response(
        request, {"detail": _("The request is not valid."), "errors": error.errors}, status=422
    )


def _http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    return api.create_response(request, {"detail": str(error)}, status=error.status_code)


api.add_exception_handler(TokenError, _refused)
for refusal in (TableError, SocialError, TournamentError, PaceError):
    api.add_exception_handler(refusal, _service_refused)
api.add_exception_handler(bot.MoveRefused, _move_refused)
api.add_exception_handler(AuthenticationError, _unauthenticated)
api.add_exception_handler(InputError, _bad_input)
api.add_exception_handler(HttpError, _http_error)
