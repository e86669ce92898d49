from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import ReadOnlyAdmin, ReadOnlyInline, may_ban, users_ban

from .models import Seat, Table


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "user", "bot_level", "reserved_for", "is_taken_over", "last_seen")
    readonly_fields = fields
    show_change_link = True


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    """Moderation of tables: filter, search by host or player. Closing one (its match is aborted) is a
    match's lifecycle: ``gameplay.admin`` adds that action. Read-only for everyone: a table changes
    through its services (locked, its seats and the lobby told), never a form; made public, a private
    table's replay would show every hand to everyone. The invitation token is shown to nobody: it is a
    seat at the table, and moderation never needs it."""

    list_display = (
        "id",
        "game",
        "status",
        "is_private",
        "is_rated",
        "host",
        "turn_clock",
        "pace_hours",
        "created_at",
        "started_at",
    )
    list_filter = ("game", "status", "pace_hours", "is_private", "is_rated", "casual_because", "created_at")
    search_fields = ("host__username", "seats__user__username")
    fields = (
        "game",
        "options",
        "turn_clock",
        "pace_hours",
        "is_private",
        "rated_wanted",
        "is_rated",
        "casual_because",
        "host",
        "status",
        "rematch_of",
        "created_at",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields
    inlines = [SeatInline]
    date_hierarchy = "created_at"

    def get_search_results(self, request, queryset, search_term):
        queryset, _may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    """Seats, for banning the player sitting there. Removing a player (a bot takes the seat, mid-match
    too) is a match's lifecycle: ``gameplay.admin`` adds that action. Read-only for everyone, as tables."""

    list_display = ("table", "position", "user", "bot_level", "is_taken_over", "last_seen")
    list_filter = ("table__game", "table__status", "bot_level", "is_taken_over")
    search_fields = ("user__username", "table__id")
    list_select_related = ("table", "user")
    fields = (
        "table",
        "position",
        "user",
        "reserved_for",
        "bot_level",
        "is_taken_over",
        "taken_over_at",
        "last_seen",
    )
    readonly_fields = fields
    actions = ("deactivate_players",)

    def has_ban_permission(self, request) -> bool:
        return may_ban(request)

    @admin.action(description=_("Deactivate (ban) the players on the selected seats"), permissions=["ban"])
    def deactivate_players(self, request, queryset):
        """Ban the people on the seats, by the ban's one set of rules; its reaction (gameplay's) takes them
        off every table in play."""
        seats = queryset.filter(user__isnull=False).select_related("user")
        why = gettext("Banned from seat %(position)d of table #%(table)d.")
        users_ban(
            self,
            request,
            ((seat.user, why % {"position": seat.position, "table": seat.table_id}) for seat in seats),
        )
