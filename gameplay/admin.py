from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_noop, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import ReadOnlyAdmin, ReadOnlyInline, SuperusersOnlyAdmin
from tables import admin as table_admin
from tables.models import Seat, Table
from tables.services import TableError

from . import selectors, services
from .games import presenter
from .games.screen import Finished
from .models import Holiday, Match, Move, Participant, RoundResult, SeatChange

ABORT_REASON = gettext_noop("Stopped by a moderator.")
"""Stored untranslated: each player reads it in their own language."""


class RoundResultInline(ReadOnlyInline):
    """The score sheet: one row per round (Americana) or deal (classic)."""

    model = RoundResult
    fields = ("number", "sheet_row", "created_at")
    readonly_fields = fields

    @admin.display(description=_("score sheet row"))
    def sheet_row(self, row: RoundResult) -> str:
        """The row as the match's score sheet writes it: each side's score and total, and the note."""
        match = row.match
        show = presenter(match.game)
        names = selectors.participant_names(match)
        sheet_row = show.sheet_row(Finished(row.number, row.summary), names, match.options)
        cells = zip(show.sides(names, match.options), sheet_row.cells, strict=True)
        return format_html_join(
            " · ", "{}: {} ({})", ((side, cell.value, cell.total) for side, cell in cells)
        ) + format_html(" · {}", sheet_row.note)


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
class MatchAdmin(ReadOnlyAdmin):
    """Matches, read-only: filter, search by player, read the score sheet and the moves; abort one running."""

    list_display = ("id", "game", "status", "practice", "table", "players", "started_at", "finished_at")
    list_filter = ("game", "status", "practice", "started_at")
    search_fields = ("participants__user__username",)
    list_select_related = ("table",)
    date_hierarchy = "started_at"
    fields = (
        "table",
        "game",
        "rules",
        "status",
        "practice",
        "result_text",
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

    @admin.display(description=_("options"))
    def rules(self, match: Match) -> str:
        return " · ".join(presenter(match.game).option_labels(match.options))

    @admin.display(description=_("result"))
    def result_text(self, match: Match) -> str:
        return selectors.result_text(match, selectors.participant_names(match))

    @admin.display(description=_("players"))
    def players(self, match: Match) -> str:
        return ", ".join(gettext("bot") if p.is_bot else p.display_name for p in match.participants.all())

    def has_abort_permission(self, request) -> bool:
        return request.user.has_perm("gameplay.change_match")

    @admin.action(
        description=_("Abort the selected running matches (their tables close)"), permissions=["abort"]
    )
    def abort_matches(self, request, queryset):
        """Each running match is stopped by closing its table, which records the reason, tells the
        table's players and takes the table off everyone's list of tables in play."""
        aborted = 0
        for match in queryset.filter(status=Match.Status.PLAYING):
            services.table_close(table_id=match.table_id, reason=ABORT_REASON)
            self.log_change(request, match, gettext("Aborted by a moderator."))
            aborted += 1
        self.message_user(
            request,
            ngettext("%(count)d match aborted.", "%(count)d matches aborted.", aborted) % {"count": aborted},
            messages.SUCCESS,
        )


# Tables and seats are the tables app's; closing a table with its match and replacing a player mid-match
# are the match's lifecycle, so their admin gains those actions here (this app is installed after tables).
admin.site.unregister(Table)
admin.site.unregister(Seat)


@admin.register(Table)
class TableAdmin(table_admin.TableAdmin):
    actions = ("close_tables",)

    def has_close_permission(self, request) -> bool:
        """The Moderators group's ``change_table`` is the right to close tables; the form stays read-only."""
        return request.user.has_perm("tables.change_table")

    @admin.action(
        description=_("Close the selected tables (running matches are aborted)"), permissions=["close"]
    )
    def close_tables(self, request, queryset):
        closed = 0
        for table in queryset.exclude(status=Table.Status.CLOSED):
            services.table_close(
                table_id=table.pk,
                reason=gettext("Closed by a moderator (%(name)s).") % {"name": request.user},
            )
            self.log_change(request, table, gettext("Closed by a moderator."))
            closed += 1
        self.message_user(
            request,
            ngettext("%(count)d table closed.", "%(count)d tables closed.", closed) % {"count": closed},
            messages.SUCCESS,
        )


@admin.register(Seat)
class SeatAdmin(table_admin.SeatAdmin):
    actions = ("replace_with_bot", "deactivate_players")

    def has_replace_permission(self, request) -> bool:
        """The Moderators group's ``change_seat`` is the right to replace a player; the form is read-only."""
        return request.user.has_perm("tables.change_seat")

    @admin.action(description=_("Remove the player (a bot takes the seat)"), permissions=["replace"])
    def replace_with_bot(self, request, queryset):
        replaced = 0
        for seat in queryset.filter(user__isnull=False):
            try:
                services.player_replace_with_bot(table_id=seat.table_id, position=seat.position)
            except TableError as error:  # the player left the seat meanwhile
                self.message_user(request, str(error), messages.WARNING)
                continue
            # The log keeps no name: the match's participants say who held the seat until when.
            self.log_change(request, seat, gettext("Removed the player; a bot took the seat."))
            replaced += 1
        self.message_user(
            request,
            ngettext("%(count)d player replaced by a bot.", "%(count)d players replaced by bots.", replaced)
            % {"count": replaced},
            messages.SUCCESS,
        )


@admin.register(Holiday)
class HolidayAdmin(SuperusersOnlyAdmin):
    """A person's holidays from their matches at their own pace: taken and ended by them alone."""

    list_display = ("user", "starts_at", "ends_at")
    search_fields = ("user__username",)
    date_hierarchy = "starts_at"
