from collections.abc import Callable, Iterable

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from . import services
from .models import User


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by their app's services only: read here, by whoever is granted ``view``."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """``ReadOnlyAdmin``'s rows shown inside another's page: none added, changed or deleted there."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class SuperusersOnlyAdmin(ReadOnlyAdmin):
    """A person's own records that moderation never needs (friendships, blocks, notices, data
    downloads): read by a superuser alone, whatever a group is granted."""

    def has_module_permission(self, request) -> bool:
        return request.user.is_superuser

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser


def may_ban(request: HttpRequest) -> bool:
    """The Moderators group's ``change_user`` is the right to ban and reinstate, through the actions only."""
    return request.user.has_perm("accounts.change_user")


def users_moderate(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    service: Callable[..., bool],
    changes: Iterable[tuple[User, str]],
) -> int:
    """Ban or reinstate (``service``: ``services.user_ban`` or ``user_reinstate``) each user of
    ``changes`` on the moderator's word, and log each change with who made it and why (the text paired
    with the user); how many changed. The service's rules are the only ones: what it refuses is shown to
    the moderator, what it leaves as it was (the banned banned again) is neither counted nor logged."""
    changed = 0
    for user, why in changes:
        try:
            if not service(user=user, by=request.user):
                continue
        except services.BanRefused as refusal:
            model_admin.message_user(request, str(refusal), messages.WARNING)
            continue
        model_admin.log_change(request, user, why)
        changed += 1
    return changed


def users_ban(model_admin: admin.ModelAdmin, request: HttpRequest, bans: Iterable[tuple[User, str]]) -> None:
    """Every admin action that bans (the users' list, the seats') bans here, each user with the why to log."""
    banned = users_moderate(model_admin, request, services.user_ban, bans)
    model_admin.message_user(
        request,
        ngettext("%(count)d user deactivated.", "%(count)d users deactivated.", banned) % {"count": banned},
        messages.SUCCESS,
    )


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Players, searchable and filterable. Only a superuser changes an account (its username, email and
    password above all: a moderator who could set a player's email could reset their password to it);
    moderators read accounts and ban or reinstate with the actions. A moderator never sees an email
    address or a name (not in the list, the search or the form): a ban needs the username only.
    ``is_active`` is read-only for everyone: a ban goes through the ban service, with its rules and its
    reactions, whoever makes it."""

    list_display = (
        "username",
        "email",
        "is_active",
        "is_bot_account",
        "bot_owner",
        "is_staff",
        "date_joined",
        "last_login",
    )
    list_filter = ("is_active", "is_bot_account", "is_staff", "is_superuser", "date_joined")
    search_fields = ("username", "email", "first_name", "last_name")
    ordering = ("-date_joined",)
    readonly_fields = ("is_active", "is_bot_account", "bot_owner")
    list_select_related = ("bot_owner",)
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Bot account"), {"fields": ("is_bot_account", "bot_owner", "bot_description")}),
    )
    actions = ("deactivate", "reactivate")
    PRIVILEGE_FIELDS = ("is_staff", "is_superuser", "groups", "user_permissions")
    PERSONAL_FIELDS = ("first_name", "last_name", "email")

    def get_fieldsets(self, request, obj=None):
        """Only a superuser sees the fields that grant privileges, and the personal ones."""
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets
        hidden = (*self.PRIVILEGE_FIELDS, *self.PERSONAL_FIELDS)
        shown = [
            (name, {**options, "fields": [f for f in options["fields"] if f not in hidden]})
            for name, options in fieldsets
        ]
        return [(name, options) for name, options in shown if options["fields"]]

    def get_list_display(self, request):
        return self._without_personal(request, super().get_list_display(request))

    def get_search_fields(self, request):
        """A moderator searches by username only: a search by address would tell who uses one."""
        return self._without_personal(request, super().get_search_fields(request))

    def _without_personal(self, request, fields):
        if request.user.is_superuser:
            return fields
        return tuple(field for field in fields if field not in self.PERSONAL_FIELDS)

    def has_change_permission(self, request, obj=None) -> bool:
        """The change form and the password form: a superuser's alone (Django's password view asks this)."""
        return request.user.is_superuser

    def has_ban_permission(self, request) -> bool:
        return may_ban(request)

    @admin.action(description=_("Deactivate (ban) the selected users"), permissions=["ban"])
    def deactivate(self, request, queryset):
        users_ban(self, request, ((user, gettext("Banned from the list of users.")) for user in queryset))

    @admin.action(description=_("Reactivate the selected users"), permissions=["ban"])
    def reactivate(self, request, queryset):
        changes = ((user, gettext("Reinstated.")) for user in queryset)
        reinstated = users_moderate(self, request, services.user_reinstate, changes)
        self.message_user(
            request,
            ngettext("%(count)d user reactivated.", "%(count)d users reactivated.", reinstated)
            % {"count": reinstated},
            messages.SUCCESS,
        )
