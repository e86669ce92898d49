"""A superuser erases an account on request from the users' list, the same way a person closes
their own (``services.account_erase``), after a page that says what will happen and asks why."""

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import SuperusersOnlyAdmin
from accounts.admin import UserAdmin as AccountsUserAdmin
from accounts.models import User

from . import services
from .models import DataExport

admin.site.unregister(User)


@admin.register(User)
class UserAdmin(AccountsUserAdmin):
    actions = (*AccountsUserAdmin.actions, "erase")

    def has_erase_permission(self, request) -> bool:
        return request.user.is_superuser

    @admin.action(description=_("Erase the selected accounts (on request, for good)"), permissions=["erase"])
    def erase(self, request, queryset):
        people = list(queryset.filter(erased_at__isnull=True).exclude(pk=request.user.pk))
        reason = request.POST.get("reason", "").strip()
        if request.POST.get("confirmed") != "yes" or not reason:
            context = {
                **self.admin_site.each_context(request),
                "title": gettext("Erase accounts"),
                "people": people,
                "queryset": queryset,
                "reason": reason,
                "missing_reason": request.POST.get("confirmed") == "yes",
                "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/privacy/erase_confirmation.html", context)
        erased = 0
        for person in people:
            if services.account_erase(user=person, by=request.user):  # the log names the emptied row only
                self.log_change(request, person, gettext("Erased on request: %(why)s") % {"why": reason})
                erased += 1
        self.message_user(
            request,
            ngettext("%(count)d account erased.", "%(count)d accounts erased.", erased) % {"count": erased},
            messages.SUCCESS,
        )
        return None


@admin.register(DataExport)
class DataExportAdmin(SuperusersOnlyAdmin):
    """Who asked for their data and when, for a superuser who must answer for it; never the archive."""

    list_display = ("user", "status", "requested_at", "ready_at", "expires_at", "size")
    list_filter = ("status",)
    exclude = ("archive",)
