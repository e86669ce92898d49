"""The tournaments in the admin. The calendar is the site's programme: its lines are an administrator's
to write, each checked and saved through ``services``. Tournaments, their players and the moderators'
record are read-only; a moderator (``tournaments.change_tournament``) disqualifies a player or cancels a
tournament with the list's actions, saying why, through ``services``, which keep the record and refuse
a moderator playing in the tournament. A private tournament's link is never shown."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Count, F, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import ReadOnlyAdmin, ReadOnlyInline

from . import services
from .models import Entry, ModeratorAction, Schedule, Tournament

SHAPE_FIELDS = (
    "kind",
    "game",
    "options",
    "turn_clock",
    "minutes",
    "rounds",
    "min_rated_matches",
    "rating_min",
    "rating_max",
    "max_players",
)
"""What a calendar line and the tournaments it makes share (``models.TournamentShape``)."""


class ScheduleForm(forms.ModelForm):
    """A calendar line, refused with the service's reason when it cannot make a playable tournament."""

    class Meta:
        model = Schedule
        fields = ("name", "active", "first_start", "every_minutes", "ahead_minutes", *SHAPE_FIELDS)

    def _post_clean(self) -> None:
        super()._post_clean()  # the instance now holds the form's values
        if self.errors:
            return
        try:
            services.schedule_check(schedule=self.instance)
        except services.TournamentError as refusal:
            self.add_error(None, str(refusal))


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    """The calendar: written by superusers alone (a group granted more still only reads it)."""

    form = ScheduleForm
    list_display = ("name", "kind", "game", "players", "every_minutes", "next_start", "active")
    list_filter = ("active", "kind", "game")
    search_fields = ("name",)

    @admin.display(description=_("players at a table"))
    def players(self, schedule: Schedule) -> int:
        return schedule.players_at_table

    @admin.display(description=_("next start"))
    def next_start(self, schedule: Schedule):
        return services.schedule_next_start(schedule, timezone.now())

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser

    def save_model(self, request, obj, form, change) -> None:
        services.schedule_save(schedule=obj, by=request.user)

    def delete_model(self, request, obj) -> None:
        services.schedule_delete(schedule=obj, by=request.user)

    def delete_queryset(self, request, queryset) -> None:
        for schedule in queryset:
            services.schedule_delete(schedule=schedule, by=request.user)


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Why"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Kept in the moderators' record of the tournament."),
    )


class DisqualifyForm(ReasonForm):
    """Whom to disqualify among the tournament's players still in it, and why."""

    player = forms.ModelChoiceField(label=_("Player"), queryset=Entry.objects.none())
    field_order = ("player", "reason")

    def __init__(self, data, *, tournament: Tournament) -> None:
        super().__init__(data)
        player = self.fields["player"]
        player.queryset = (
            tournament.entries.filter(disqualified_at__isnull=True)
            .select_related("user")
            .order_by("user__username")
        )
        player.label_from_instance = lambda entry: entry.user.username


class EntryInline(ReadOnlyInline):
    model = Entry
    fields = (
        "user",
        "rating",
        "points",
        "matches",
        "wins",
        "streak",
        "byes",
        "paused",
        "table",
        "disqualified_at",
        "rank",
    )
    readonly_fields = fields
    ordering = (F("disqualified_at").asc(nulls_first=True), "-points", "joined_at")


class ModeratorActionInline(ReadOnlyInline):
    model = ModeratorAction
    fields = ("at", "kind", "player", "by", "reason")
    readonly_fields = fields


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ("name", "kind", "game", "status", "starts_at", "player_count", "is_private", "schedule")
    list_filter = ("status", "kind", "game", "is_private", "starts_at")
    search_fields = ("name", "entries__user__username")
    list_select_related = ("schedule",)
    date_hierarchy = "starts_at"
    fields = (
        "name",
        *SHAPE_FIELDS,
        "is_private",
        "schedule",
        "created_by",
        "created_at",
        "status",
        "starts_at",
        "started_at",
        "round",
        "round_started_at",
        "ends_at",
        "finished_at",
        "cancelled_because",
    )
    readonly_fields = fields
    inlines = (EntryInline, ModeratorActionInline)
    actions = ("disqualify_player", "cancel_tournaments")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(player_count=Count("entries"))

    @admin.display(description=_("players"), ordering="player_count")
    def player_count(self, tournament: Tournament) -> int:
        return tournament.player_count

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        """``change_tournament`` is the right to disqualify and cancel, through the actions only."""
        return request.user.has_perm("tournaments.change_tournament")

    def _ask_why(
        self, request: HttpRequest, *, form: forms.Form, tournaments, action: str, title: str, submit: str
    ) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "form": form,
            "tournaments": tournaments,
            "action": action,
            "submit": submit,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/tournaments/moderate.html", context)

    @admin.action(description=_("Disqualify a player of the selected tournament"), permissions=["moderate"])
    def disqualify_player(self, request: HttpRequest, queryset: QuerySet[Tournament]):
        """Asks whom and why first, then disqualifies through the service (which may refuse)."""
        if len(queryset) != 1:
            self.message_user(
                request, gettext("Select one tournament to disqualify a player from."), messages.ERROR
            )
            return None
        tournament = queryset[0]
        form = DisqualifyForm(request.POST if "reason" in request.POST else None, tournament=tournament)
        if not form.is_valid():
            return self._ask_why(
                request,
                form=form,
                tournaments=[tournament],
                action="disqualify_player",
                title=gettext("Disqualify a player"),
                submit=gettext("Disqualify"),
            )
        entry, reason = form.cleaned_data["player"], form.cleaned_data["reason"]
        try:
            services.player_disqualify(
                tournament_id=tournament.pk, user_id=entry.user_id, by=request.user, reason=reason
            )
        except services.TournamentError as refusal:
            self.message_user(request, str(refusal), messages.ERROR)
            return None
        self.log_change(
            request, tournament, gettext("Disqualified %(entry)s: %(why)s") % {"entry": entry, "why": reason}
        )
        self.message_user(
            request,
            gettext("%(player)s is disqualified from %(tournament)s.")
            % {"player": entry.user.username, "tournament": tournament},
            messages.SUCCESS,
        )
        return None

    @admin.action(description=_("Cancel the selected tournaments"), permissions=["moderate"])
    def cancel_tournaments(self, request: HttpRequest, queryset: QuerySet[Tournament]):
        """Asks why first (one reason for every tournament selected), then cancels each through the
        service; what it refuses is said tournament by tournament."""
        form = ReasonForm(request.POST if "reason" in request.POST else None)
        if not form.is_valid():
            return self._ask_why(
                request,
                form=form,
                tournaments=queryset,
                action="cancel_tournaments",
                title=gettext("Cancel these tournaments"),
                submit=gettext("Cancel them"),
            )
        reason = form.cleaned_data["reason"]
        cancelled = 0
        for tournament in queryset:
            try:
                services.tournament_cancel(tournament_id=tournament.pk, by=request.user, reason=reason)
            except services.TournamentError as refusal:
                self.message_user(request, f"{tournament}: {refusal}", messages.ERROR)
                continue
            self.log_change(request, tournament, gettext("Cancelled: %(why)s") % {"why": reason})
            cancelled += 1
        if cancelled:
            self.message_user(
                request,
                ngettext("%(count)d tournament cancelled.", "%(count)d tournaments cancelled.", cancelled)
                % {"count": cancelled},
                messages.SUCCESS,
            )
        return None


@admin.register(ModeratorAction)
class ModeratorActionAdmin(ReadOnlyAdmin):
    """The record: who disqualified whom or cancelled what, why and when."""

    list_display = ("at", "tournament", "kind", "player", "by", "reason")
    list_filter = ("kind", "at")
    search_fields = ("tournament__name", "player__username", "by__username", "reason")
    list_select_related = ("tournament", "player", "by")
    date_hierarchy = "at"
    fields = list_display
    readonly_fields = fields
