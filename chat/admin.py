"""The moderators' side of the chat: the queue of reported messages (each read with what was said around
it, and decided with a reason), the spectators' messages, the suspensions, the record of every action
and the word list. The admin writes nothing itself: every decision goes through ``chat.services``,
which checks the ``chat.moderate_chat`` permission, wants a reason and keeps the record."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import F
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts import moderators
from accounts.admin import ReadOnlyAdmin

from . import selectors, services
from .models import BannedWord, ChatMessage, ModerationAction, Report, Room, Suspension
from .phrases import phrase_text

REFUSAL = "_chat_moderation_refused"
"""Where a request keeps what the services refused, between saving and answering."""


def may_moderate(request) -> bool:
    return request.user.has_perm("chat.moderate_chat")


def said(message: ChatMessage) -> str:
    """A message as typed (a quick phrase in the moderator's language)."""
    return phrase_text(message.phrase) if message.phrase else message.text


class ReasonActionForm(helpers.ActionForm):
    """The list's action bar with a reason beside it (the services refuse an action without one)."""

    reason = forms.CharField(label=_("Reason"), max_length=200, required=False)


def action_reason(model_admin: admin.ModelAdmin, request) -> str | None:
    """The reason typed beside the action, or None (and the moderator told) when there is none."""
    reason = services.clean_text(request.POST.get("reason", ""))
    if not reason:
        model_admin.message_user(
            request,
            gettext("Say why in the reason box beside the action, then run it again."),
            messages.ERROR,
        )
        return None
    return reason[:200]


class ReportStatusFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return (("open", _("open")), ("handled", _("handled")))

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.filter(handled_at__isnull=True)
        if self.value() == "handled":
            return queryset.filter(handled_at__isnull=False)
        return queryset


class DecisionForm(forms.ModelForm):
    """What the moderator decides about a reported message, and why."""

    DECISIONS = (
        ("warn", _("Warn the author")),
        ("suspend_1h", _("Suspend the author from chat for an hour")),
        ("suspend_24h", _("Suspend the author from chat for a day")),
        ("suspend_forever", _("Suspend the author from chat for good")),
        ("remove", _("Remove the message")),
        ("ban", _("Ban the author's account")),
        ("dismiss", _("Dismiss the report (nothing wrong)")),
    )

    decision = forms.ChoiceField(label=_("Decision"), choices=DECISIONS)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("The person is told (for a warning or a suspension), and the record keeps it."),
    )

    class Meta:
        model = Report
        fields = ()


def decide(report: Report, *, by, decision: str, reason: str) -> None:
    """Apply ``decision`` to ``report`` through the services (which may refuse)."""
    message = report.message
    if decision == "warn":
        services.chat_warn(subject_id=message.author_id, by=by, reason=reason, report=report)
    elif decision.startswith("suspend_"):
        services.chat_suspend(
            subject_id=message.author_id,
            by=by,
            reason=reason,
            length=decision.removeprefix("suspend_"),
            report=report,
        )
    elif decision == "remove":
        services.chat_remove(message=message, by=by, reason=reason, report=report)
    elif decision == "ban":
        services.chat_ban(subject=message.author, by=by, reason=reason, report=report)
    elif decision == "dismiss":
        services.report_dismiss(report=report, by=by, reason=reason)
    else:  # the form's choices allow nothing else
        raise services.ModerationRefused(gettext("Choose a decision."))


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """The moderators' queue: open reports first, oldest first. A report's page shows the message and
    what was said around it; saving applies the decision chosen, through the services."""

    form = DecisionForm
    list_display = ("message_text", "author", "table", "reporter", "reason", "created_at", "handled_at")
    list_filter = (ReportStatusFilter, "reason")
    list_select_related = ("message__author", "message__table", "reporter")
    search_fields = ("message__author__username", "reporter__username", "message__text")
    ordering = (F("handled_at").desc(nulls_first=True), "created_at", "pk")
    exclude = ("reason",)  # the form's ``reason`` is the moderator's, not the report's
    readonly_fields = (
        "message_text",
        "author",
        "table",
        "room",
        "reporter",
        "reported_for",
        "created_at",
        "handled_at",
        "handled_by",
        "context",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("message__author", "message__table")

    def get_fields(self, request, obj=None):
        """The decision's fields only on an open report that the moderator may decide."""
        if obj is not None and self.has_change_permission(request, obj):
            return (*self.readonly_fields, "decision", "reason")
        return self.readonly_fields

    @admin.display(description=_("message"))
    def message_text(self, report: Report) -> str:
        return Truncator(said(report.message)).chars(80)

    @admin.display(description=_("author"), ordering="message__author__username")
    def author(self, report: Report) -> str:
        return report.message.author.username

    @admin.display(description=_("table"))
    def table(self, report: Report) -> str:
        return str(report.message.table)

    @admin.display(description=_("room"))
    def room(self, report: Report) -> str:
        return report.message.get_room_display()

    @admin.display(description=_("reason given"))
    def reported_for(self, report: Report) -> str:
        return report.get_reason_display()

    @admin.display(description=_("said around it"))
    def context(self, report: Report) -> str:
        """The reported line (marked) among the lines said before and after it in its room."""
        rows = (
            (
                "chat-reported" if line.id == report.message_id else "",
                formats.date_format(timezone.localtime(line.at), "SHORT_DATETIME_FORMAT"),
                line.author,
                format_html("<mark><strong>{}</strong></mark>", line.text)
                if line.id == report.message_id
                else line.text,
            )
            for line in selectors.around(report=report)
        )
        return format_html(
            '<table class="chat-around"><tbody>{}</tbody></table>',
            format_html_join("", '<tr class="{}"><td>{}</td><th>{}</th><td>{}</td></tr>', rows),
        )

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        """Deciding is for moderators, on open reports (a handled one is read), and never on a case the
        moderator is part of (the services refuse it; the page offers no decision)."""
        if not (super().has_change_permission(request, obj) and may_moderate(request)):
            return False
        if obj is None:
            return True
        return obj.handled_at is None and not selectors.part_of_case(user=request.user, message=obj.message)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """A report about the moderator's own line, or one they filed, says why it offers no decision."""
        report = self.get_object(request, object_id)
        open_report = report is not None and report.handled_at is None
        if open_report and selectors.part_of_case(user=request.user, message=report.message):
            self.message_user(request, moderators.own_case_refusal(), messages.WARNING)
        return super().change_view(request, object_id, form_url, extra_context)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """Outside the admin's own transaction: each service commits alone, and a ban
        (``accounts.services.user_ban``) must be the outermost transaction to tell the other apps."""
        return self._changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request, obj, form, change):
        """The decision, through the services; the report itself is never saved from the form."""
        try:
            decide(
                obj,
                by=request.user,
                decision=form.cleaned_data["decision"],
                reason=form.cleaned_data["reason"],
            )
        except services.ModerationRefused as refusal:
            setattr(request, REFUSAL, str(refusal))

    def save_related(self, request, form, formsets, change):
        """Nothing related is written from this page."""

    def construct_change_message(self, request, form, formsets, add=False):
        decision = dict(DecisionForm.DECISIONS)[form.cleaned_data["decision"]]
        return f"{decision}: {form.cleaned_data['reason']}"

    def log_change(self, request, obj, message):
        if not hasattr(request, REFUSAL):
            return super().log_change(request, obj, message)
        return None

    def response_change(self, request, obj):
        refusal = getattr(request, REFUSAL, None)
        if refusal is not None:
            self.message_user(request, refusal, messages.ERROR)
            return HttpResponseRedirect(request.path)
        self.message_user(
            request, gettext("Decision applied: %(report)s") % {"report": obj}, messages.SUCCESS
        )
        return HttpResponseRedirect(self._changelist_url())

    def _changelist_url(self) -> str:
        opts = self.model._meta
        return reverse(
            f"admin:{opts.app_label}_{opts.model_name}_changelist", current_app=self.admin_site.name
        )


class RemovedFilter(admin.SimpleListFilter):
    title = _("removed")
    parameter_name = "removed"

    def lookups(self, request, model_admin):
        return (("yes", _("Yes")), ("no", _("No")))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(removed_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(removed_at__isnull=True)
        return queryset


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    """The spectators' chat, read-only; moderators remove messages with the action, saying why. The
    players' chat is the seated people's own: a moderator reads it only as the lines around a reported
    one (on the report's page); a superuser reads every message."""

    list_display = ("created_at", "author", "table", "room", "said_what", "removed_at")
    list_filter = ("room", RemovedFilter)
    search_fields = ("author__username", "text")
    list_select_related = ("author", "table")
    fields = (
        "table",
        "match",
        "move_index",
        "room",
        "author",
        "phrase",
        "text",
        "shown",
        "created_at",
        "removed_at",
        "removed_by",
    )
    readonly_fields = fields
    action_form = ReasonActionForm
    actions = ("remove_messages",)

    def get_queryset(self, request):
        lines = super().get_queryset(request)
        return lines if request.user.is_superuser else lines.exclude(room=Room.PLAYERS)

    @admin.display(description=_("said"))
    def said_what(self, message: ChatMessage) -> str:
        return Truncator(said(message)).chars(80)

    def has_moderate_permission(self, request) -> bool:
        return may_moderate(request)

    @admin.action(description=_("Remove the selected messages"), permissions=["moderate"])
    def remove_messages(self, request, queryset):
        reason = action_reason(self, request)
        if reason is None:
            return
        removed = 0
        for message in queryset:
            try:
                removed += services.chat_remove(message=message, by=request.user, reason=reason)
            except services.ModerationRefused as refusal:
                self.message_user(request, str(refusal), messages.ERROR)
                return
        self.message_user(
            request,
            ngettext("%(count)d message removed.", "%(count)d messages removed.", removed)
            % {"count": removed},
            messages.SUCCESS,
        )


@admin.register(Suspension)
class SuspensionAdmin(ReadOnlyAdmin):
    """Suspensions from chat, read-only; moderators lift one early with the action, saying why."""

    list_display = ("user", "created_at", "until", "lifted_at", "reason")
    list_filter = (("lifted_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = ("user", "created_at", "until", "lifted_at", "reason")
    readonly_fields = fields
    action_form = ReasonActionForm
    actions = ("lift",)

    def has_moderate_permission(self, request) -> bool:
        return may_moderate(request)

    @admin.action(description=_("Lift the selected suspensions"), permissions=["moderate"])
    def lift(self, request, queryset):
        reason = action_reason(self, request)
        if reason is None:
            return
        lifted = 0
        for suspension in queryset:
            try:
                lifted += services.chat_lift(suspension=suspension, by=request.user, reason=reason)
            except services.ModerationRefused as refusal:
                self.message_user(request, str(refusal), messages.ERROR)
                return
        self.message_user(
            request,
            ngettext("%(count)d suspension lifted.", "%(count)d suspensions lifted.", lifted)
            % {"count": lifted},
            messages.SUCCESS,
        )


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyAdmin):
    """The record: who did what to whom, why and when."""

    list_display = ("created_at", "moderator", "kind", "subject", "reason", "detail", "seen_at")
    list_filter = ("kind", "created_at")
    search_fields = ("moderator__username", "subject__username", "reason", "detail")
    list_select_related = ("moderator", "subject")
    date_hierarchy = "created_at"
    fields = (
        "created_at",
        "moderator",
        "kind",
        "subject",
        "message",
        "report",
        "reason",
        "detail",
        "seen_at",
    )
    readonly_fields = fields


@admin.register(BannedWord)
class BannedWordAdmin(admin.ModelAdmin):
    """The word list: moderators add words (stored folded) and delete them, through the services; an
    entry is never edited."""

    list_display = ("word", "created_at")
    search_fields = ("word",)
    fields = ("word",)

    def has_add_permission(self, request) -> bool:
        return super().has_add_permission(request) and may_moderate(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and may_moderate(request)

    def save_model(self, request, obj, form, change):
        try:
            banned = services.word_add(word=form.cleaned_data["word"], by=request.user)
        except services.ModerationRefused as refusal:
            setattr(request, REFUSAL, str(refusal))
            return
        obj.pk, obj.word, obj.created_at = banned.pk, banned.word, banned.created_at
        obj._state.adding = False

    def save_related(self, request, form, formsets, change):
        """Nothing related is written from this page."""

    def log_addition(self, request, obj, message):
        if not hasattr(request, REFUSAL):
            return super().log_addition(request, obj, message)
        return None

    def response_add(self, request, obj, post_url_continue=None):
        refusal = getattr(request, REFUSAL, None)
        if refusal is not None:
            self.message_user(request, refusal, messages.ERROR)
            return HttpResponseRedirect(request.path)
        return super().response_add(request, obj, post_url_continue)

    def delete_model(self, request, obj):
        services.word_remove(banned=obj, by=request.user)

    def delete_queryset(self, request, queryset):
        for banned in queryset:
            services.word_remove(banned=banned, by=request.user)
