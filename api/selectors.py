"""Reads of access tokens: a person's, for their tokens page and their data download."""

from django.db.models import QuerySet

from .models import AccessToken


def tokens_of(owner) -> QuerySet[AccessToken]:
    """Every token ``owner`` made (for themselves or their bot accounts), the newest first."""
    return AccessToken.objects.filter(owner=owner).select_related("holder").order_by("-created_at")
