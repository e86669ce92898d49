"""Reviews for moderators: every seat's review with its accuracy and how often the best action was
chosen (a seat that nearly always picks the best action against hidden cards is worth a look), and a
form to have any person's seat reviewed, through the service. A moderator never sees nor asks for the
review of a match they played in."""

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.admin import ReadOnlyAdmin
from gameplay.models import Participant

from . import selectors, services
from .models import Review

SUSPICIOUS_BEST_SHARE = 0.9
"""A seat that chose the best action at least this often (over ``SUSPICIOUS_DECISIONS`` decisions or
more) is flagged: the strongest bot chooses it far less often (docs/benchmarks.md, "Reviews")."""
SUSPICIOUS_DECISIONS = 20


class SuspiciousFilter(admin.SimpleListFilter):
    title = _("fair play")
    parameter_name = "fair_play"

    def lookups(self, request, model_admin):
        return [("best", _("Nearly always the best action"))]

    def queryset(self, request, queryset):
        if self.value() == "best":
            return queryset.filter(best_share__gte=SUSPICIOUS_BEST_SHARE, total__gte=SUSPICIOUS_DECISIONS)
        return queryset


class AskForm(forms.Form):
    match = forms.IntegerField(label=_("Match number"), min_value=1)
    seat = forms.IntegerField(label=_("Seat (from 0)"), min_value=0, max_value=3)


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    list_display = ["match", "seat", "user", "status", "accuracy_shown", "best_shown", "total", "finished_at"]
    list_filter = ["status", SuspiciousFilter]
    search_fields = ["user__username", "match__id"]
    raw_id_fields = ["match", "user", "requested_by"]
    exclude = ["decisions"]
    readonly_fields = ["marks"]
    change_list_template = "admin/reviews/review/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Review]:
        """Not the reviews of matches the moderator played in."""
        played = Participant.objects.filter(user_id=request.user.pk).values("match_id")
        return super().get_queryset(request).select_related("match", "user").exclude(match_id__in=played)

    @admin.display(description=_("accuracy"), ordering="accuracy")
    def accuracy_shown(self, review: Review) -> str:
        return "—" if review.accuracy is None else f"{review.accuracy:.1f}%"

    @admin.display(description=_("best action chosen"), ordering="best_share")
    def best_shown(self, review: Review) -> str:
        if review.best_share is None:
            return "—"
        share = f"{100 * review.best_share:.0f}%"
        if review.best_share >= SUSPICIOUS_BEST_SHARE and review.total >= SUSPICIOUS_DECISIONS:
            return format_html('<strong title="{}">⚠ {}</strong>', _("Nearly always the best action"), share)
        return share

    @admin.display(description=_("decisions"))
    def marks(self, review: Review) -> str:
        if review.status != Review.Status.DONE:
            return review.get_status_display()
        return render_to_string("gameplay/_review.html", {"review": selectors.summary(review)})

    def get_urls(self):
        ask = path("ask/", self.admin_site.admin_view(self.ask_view), name="reviews_review_ask")
        return [ask, *super().get_urls()]

    def ask_view(self, request: HttpRequest) -> HttpResponse:
        """Have a person's seat reviewed (a fair-play case), through ``services.request_as_moderator``."""
        if not request.user.is_staff or not request.user.has_perm("reviews.review_seat"):
            return redirect("admin:index")
        form = AskForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                asked = form.cleaned_data
                review = services.request_as_moderator(
                    moderator=request.user, match_id=asked["match"], seat=asked["seat"]
                )
            except services.ReviewError as error:
                form.add_error(None, str(error))
            else:
                messages.success(request, _("The seat's review is queued; its marks show here once judged."))
                return redirect(reverse("admin:reviews_review_change", args=[review.pk]))
        context = {**self.admin_site.each_context(request), "form": form, "title": _("Review a seat")}
        return TemplateResponse(request, "admin/reviews/review/ask.html", context)
