from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from . import services
from .models import User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Players, searchable and filterable; deactivating an account bans it."""

    list_display = ("username", "email", "is_active", "is_staff", "date_joined", "last_login")
    list_filter = ("is_active", "is_staff", "is_superuser", "date_joined")
    search_fields = ("username", "email", "first_name", "last_name")
    ordering = ("-date_joined",)
    actions = ("deactivate", "reactivate")
    PRIVILEGE_FIELDS = ("is_staff", "is_superuser", "groups", "user_permissions")

    def get_fieldsets(self, request, obj=None):
        """Only a superuser sees, and so can post, the fields that grant privileges."""
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets
        return [
            (name, {**options, "fields": [f for f in options["fields"] if f not in self.PRIVILEGE_FIELDS]})
            for name, options in fieldsets
        ]

    def has_change_permission(self, request, obj=None) -> bool:
        """A moderator changes players' accounts, never a staff member's (their password least of all)."""
        if obj is not None and (obj.is_staff or obj.is_superuser) and not request.user.is_superuser:
            return False
        return super().has_change_permission(request, obj)

    @admin.action(description=_("Deactivate (ban) the selected users"), permissions=["change"])
    def deactivate(self, request, queryset):
        self._set_active(request, queryset, active=False)

    @admin.action(description=_("Reactivate the selected users"), permissions=["change"])
    def reactivate(self, request, queryset):
        self._set_active(request, queryset, active=True)

    def _set_active(self, request, queryset, *, active: bool) -> None:
        if not request.user.is_superuser:
            queryset = queryset.filter(is_staff=False, is_superuser=False)
        users = list(queryset.exclude(pk=request.user.pk).exclude(is_active=active))
        for user in users:
            services.user_set_active(user=user, active=active)
            self.log_change(request, user, [{"changed": {"fields": ["is_active"]}}])
        message = (
            ngettext("%(count)d user reactivated.", "%(count)d users reactivated.", len(users))
            if active
            else ngettext("%(count)d user deactivated.", "%(count)d users deactivated.", len(users))
        )
        self.message_user(request, message % {"count": len(users)}, messages.SUCCESS)
