from django.contrib import admin, messages
from django.utils.html import format_html_join
from django.utils.translation import gettext, gettext_noop, ngettext
from django.utils.translation import gettext_lazy as _

from tables import services as table_services

from .models import Match, Move, Participant, RoundResult, SeatChange

ABORT_REASON = gettext_noop("Stopped by a moderator.")
"""Stored untranslated: each player reads it in their own language."""


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class RoundResultInline(ReadOnlyInline):
    """The score sheet: one row per round (Americana) or deal (classic)."""

    model = RoundResult
    fields = ("number", "sheet_row", "created_at")
    readonly_fields = fields

    @admin.display(description=_("score sheet row"))
    def sheet_row(self, row: RoundResult) -> str:
        keys = (
            ("out", "charges", "totals")
            if "charges" in row.summary
            else ("deal_points", "deal_winner", "totals")
        )
        return format_html_join(" · ", "{}: {}", ((key, row.summary.get(key)) for key in keys))


class MoveInline(ReadOnlyInline):
    """The move log, in order, with who made each move."""

    model = Move
    fields = ("seq", "seat", "actor", "action", "events", "created_at")
    readonly_fields = fields
    classes = ("collapse",)


class ParticipantInline(ReadOnlyInline):
    """Who held each seat, from which move to which."""

    model = Participant
    fields = ("seat", "user", "bot_level", "name", "from_move", "until_move")
    readonly_fields = fields


class SeatChangeInline(ReadOnlyInline):
    """Bots standing in, players coming back, players replaced, in the order they happened."""

    model = SeatChange
    fields = ("seat", "kind", "after_move", "created_at")
    readonly_fields = fields


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """Matches, read-only: filter, search by player, read the score sheet and the moves; abort one running."""

    list_display = ("id", "game", "status", "table", "players", "started_at", "finished_at")
    list_filter = ("game", "status", "started_at")
    search_fields = ("participants__user__username",)
    list_select_related = ("table",)
    date_hierarchy = "started_at"
    fields = (
        "table",
        "game",
        "options",
        "status",
        "result",
        "abort_reason",
        "version",
        "seed",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields
    inlines = (ParticipantInline, SeatChangeInline, RoundResultInline, MoveInline)
    actions = ("abort_matches",)

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("participants")

    def get_search_results(self, request, queryset, search_term):
        queryset, _may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False

    @admin.display(description=_("players"))
    def players(self, match: Match) -> str:
        return ", ".join(p.name or gettext("bot") for p in match.participants.all())

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_abort_permission(self, request) -> bool:
        return request.user.has_perm("gameplay.change_match")

    @admin.action(
        description=_("Abort the selected running matches (their tables close)"), permissions=["abort"]
    )
    def abort_matches(self, request, queryset):
        """Each running match is stopped through the table service, which records the reason, tells the
        table's players and closes the table so it leaves everyone's list of tables in play."""
        aborted = 0
        for match in queryset.filter(status=Match.Status.PLAYING):
            table_services.table_close(table_id=match.table_id, reason=ABORT_REASON)
            self.log_change(request, match, gettext("Aborted by a moderator."))
            aborted += 1
        self.message_user(
            request,
            ngettext("%(count)d match aborted.", "%(count)d matches aborted.", aborted) % {"count": aborted},
            messages.SUCCESS,
        )
