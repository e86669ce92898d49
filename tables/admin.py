from django.contrib import admin, messages
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.services import user_set_active

from .models import Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ("position", "user", "bot_level", "reserved_for", "is_taken_over", "last_seen")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """Moderation of tables: filter, search by host or player. Closing one (its match is aborted) is a
    match's lifecycle: ``gameplay.admin`` adds that action."""

    list_display = ("id", "game", "status", "is_private", "host", "turn_clock", "created_at", "started_at")
    list_filter = ("game", "status", "is_private", "created_at")
    search_fields = ("host__username", "seats__user__username")
    readonly_fields = (
        "game",
        "options",
        "host",
        "invite_token",
        "status",
        "rematch_of",
        "created_at",
        "started_at",
        "finished_at",
    )
    fields = (
        "game",
        "options",
        "turn_clock",
        "is_private",
        "host",
        "status",
        "rematch_of",
        "invite_token",
        "created_at",
        "started_at",
        "finished_at",
    )
    inlines = [SeatInline]
    date_hierarchy = "created_at"

    def get_search_results(self, request, queryset, search_term):
        queryset, _may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    """Seats, for banning the player sitting there. Removing a player (a bot takes the seat, mid-match
    too) is a match's lifecycle: ``gameplay.admin`` adds that action."""

    list_display = ("table", "position", "user", "bot_level", "is_taken_over", "last_seen")
    list_filter = ("table__game", "table__status", "bot_level", "is_taken_over")
    search_fields = ("user__username", "table__id")
    list_select_related = ("table", "user")
    readonly_fields = ("table", "position", "user", "reserved_for", "bot_level", "is_taken_over", "last_seen")
    actions = ("deactivate_players",)

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description=_("Deactivate (ban) the players on the selected seats"), permissions=["change"])
    def deactivate_players(self, request, queryset):
        banned = 0
        for seat in queryset.filter(user__isnull=False, user__is_active=True).exclude(user=request.user):
            user_set_active(user=seat.user, active=False)
            self.log_change(request, seat.user, gettext("Deactivated from a table's seat."))
            banned += 1
        self.message_user(
            request,
            ngettext("%(count)d user deactivated.", "%(count)d users deactivated.", banned)
            % {"count": banned},
            messages.SUCCESS,
        )
