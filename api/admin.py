"""Access tokens for moderators: whose each is, whom it acts as, what it may do and when it was last
used (never the token, which the site does not keep), and revoking a program that abuses the site,
through the service, for those granted ``revoke_accesstoken``. Never a moderator's own tokens."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin import ReadOnlyAdmin

from . import services
from .models import AccessToken


@admin.register(AccessToken)
class AccessTokenAdmin(ReadOnlyAdmin):
    list_display = [
        "name",
        "owner",
        "holder",
        "scopes",
        "prefix",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = ["revoked_at"]
    search_fields = ["owner__username", "holder__username", "prefix"]
    exclude = ["digest"]
    raw_id_fields = ["owner", "holder"]
    actions = ["revoke"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[AccessToken]:
        """Not the moderator's own tokens (nor their bot accounts'): a moderator acts on others' cases."""
        return (
            super().get_queryset(request).select_related("owner", "holder").exclude(owner_id=request.user.pk)
        )

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("api.revoke_accesstoken")

    @admin.action(description=_("Revoke the selected tokens"), permissions=["revoke"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[AccessToken]) -> None:
        revoked = 0
        for token_id in queryset.filter(revoked_at__isnull=True).values_list("pk", flat=True):
            try:
                services.token_revoke_as_moderator(moderator=request.user, token_id=token_id)
            except services.TokenError as refused:
                self.message_user(request, str(refused), messages.ERROR)
                continue
            revoked += 1
        self.message_user(
            request,
            ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", revoked) % {"count": revoked},
        )
