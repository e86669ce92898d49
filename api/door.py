"""The API's door: who is calling (a token in the ``Authorization: Bearer`` header, never a session
cookie, so there is no CSRF surface), whether the token may do this, and the request's budgets, all
spent before any work; a body too large is refused unread."""

from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

from accounts.services import client_address

from . import services
from .models import AccessToken


@dataclass(frozen=True)
class Caller:
    """Who a request comes from: ``token`` None for a request without one (public reads only)."""

    token: AccessToken | None
    address: str

    @property
    def user(self):
        """The account the token acts as (a person, or one of their bot accounts)."""
        return self.token.holder if self.token else None


class Door(HttpBearer):
    """An operation's authentication: ``scope`` the token must carry (None: any token), ``anonymous``
    whether a request without a token is let in (with its address's smaller budget)."""

    def __init__(self, scope: str | None = None, *, anonymous: bool = False, cost: float = 1.0):
        super().__init__()
        self.scope = scope
        self.anonymous = anonymous
        self.cost = cost

    def __call__(self, request: HttpRequest) -> Caller | None:
        length = request.META.get("CONTENT_LENGTH") or "0"
        if not length.isdigit() or int(length) > settings.API_MAX_BODY_BYTES:
            raise services.TokenError(
                _("The request's body is too large: at most %(bytes)d bytes.")
                % {"bytes": settings.API_MAX_BODY_BYTES},
                status=413,
            )
        header = request.headers.get(self.header, "")
        if not header and self.anonymous:
            address = client_address(request)
            services.spend_request(token=None, address=address, cost=self.cost)
            return Caller(None, address)
        scheme, _space, secret = header.partition(" ")
        if scheme.lower() != self.openapi_scheme or not secret.strip():
            raise services.TokenError(
                _("Send a personal access token: Authorization: Bearer <token>."), status=401
            )
        return self.authenticate(request, secret.strip())

    def authenticate(self, request: HttpRequest, token: str) -> Caller:
        found = services.authenticate(token)
        address = client_address(request)
        services.spend_request(token=found, address=address, cost=self.cost)
        if self.scope is not None:
            services.require_scope(found, self.scope)
        return Caller(found, address)
