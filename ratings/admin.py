"""Ratings in the admin, read-only: every rating and every change, searchable by person and by match.
A moderator voids a rated match's rating (cheating, collusion) through ``services.match_void``, saying
why; who did it and why is kept on the match's row and in the admin's log."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import ReadOnlyAdmin, ReadOnlyInline

from . import services
from .models import RatedMatch, Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = (
        "user",
        "game",
        "shown",
        "established",
        "matches",
        "peak",
        "mu",
        "sigma",
        "last_played_at",
    )
    list_filter = ("game", "established")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = list_display
    readonly_fields = fields


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = (
        "at",
        "match",
        "user",
        "game",
        "seat",
        "place",
        "before",
        "after",
        "change",
        "left",
        "voided",
    )
    list_filter = ("game", "voided", "left", "at")
    search_fields = ("user__username", "=match__id")
    list_select_related = ("user", "match")
    date_hierarchy = "at"
    fields = (*list_display, "mu_before", "sigma_before", "mu_after", "sigma_after", "established")
    readonly_fields = fields


class VoidForm(forms.Form):
    reason = forms.CharField(
        label=_("Why"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Kept with the match: cheating, collusion, what was found."),
    )


class RatingChangeInline(ReadOnlyInline):
    model = RatingChange
    fields = ("seat", "user", "place", "before", "after", "change", "left", "voided")
    readonly_fields = fields


@admin.register(RatedMatch)
class RatedMatchAdmin(ReadOnlyAdmin):
    list_display = ("match", "game", "rated_at", "voided_at", "voided_by", "void_reason")
    list_filter = ("game", ("voided_at", admin.EmptyFieldListFilter), "rated_at")
    search_fields = ("=match__id", "match__participants__user__username")
    list_select_related = ("match", "voided_by")
    fields = list_display
    readonly_fields = fields
    actions = ("void_ratings",)

    def get_inlines(self, request, obj):
        return [RatingChangeInline] if obj is not None else []

    def get_search_results(self, request, queryset, search_term):
        queryset, _may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False

    def has_void_permission(self, request) -> bool:
        return request.user.has_perm("ratings.void_ratedmatch")

    @admin.action(
        description=_("Void the selected matches' ratings (reversed for everyone)"), permissions=["void"]
    )
    def void_ratings(self, request, queryset):
        """Asks why first (one reason for every match selected), then voids each through the service."""
        form = VoidForm(request.POST if "reason" in request.POST else None)
        if not form.is_valid():
            context = {
                **self.admin_site.each_context(request),
                "title": _("Void the ratings of these matches"),
                "form": form,
                "matches": queryset,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "opts": self.model._meta,
            }
            return TemplateResponse(request, "admin/ratings/void.html", context)
        voided = 0
        for rated in queryset:
            try:
                services.match_void(
                    match_id=rated.match_id, by=request.user, reason=form.cleaned_data["reason"]
                )
            except services.RatingError as refusal:
                self.message_user(request, f"{rated.match}: {refusal}", messages.WARNING)
                continue
            self.log_change(
                request, rated, gettext("Rating voided: %(why)s") % {"why": form.cleaned_data["reason"]}
            )
            voided += 1
        self.message_user(
            request,
            ngettext("%(count)d match's rating voided.", "%(count)d matches' ratings voided.", voided)
            % {"count": voided},
            messages.SUCCESS,
        )
        return None
