"""The open data files for moderators: what each holds, and building one again through the service
(the worker builds it; a few asked for an hour), for those granted ``build_dump``."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin import ReadOnlyAdmin

from . import services
from .models import Dump


@admin.register(Dump)
class DumpAdmin(ReadOnlyAdmin):
    list_display = ["month", "game", "file_name", "matches", "size", "built_at", "building_since"]
    list_filter = ["game"]
    readonly_fields = ["building_since", "wanted_again"]
    actions = ["build_again"]

    def has_build_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("opendata.build_dump")

    @admin.action(description=_("Build the selected files again"), permissions=["build"])
    def build_again(self, request: HttpRequest, queryset: QuerySet[Dump]) -> None:
        months = list(queryset.values_list("game", "month"))
        try:
            services.build_asked(months=months, by=request.user)
        except services.OpenDataError as refused:
            self.message_user(request, str(refused), messages.ERROR)
            return
        self.message_user(
            request,
            ngettext(
                "%(count)d file will be built again in a moment.",
                "%(count)d files will be built again in a moment.",
                len(months),
            )
            % {"count": len(months)},
        )
