"""What a tournament's cards and page say of it in a line."""

from django import template
from django.utils.translation import gettext as _

from social.forms import pool_summary

from .. import selectors
from ..models import Tournament

register = template.Library()


@register.filter
def shape(tournament: Tournament) -> str:
    """The game, the table, the match's length, rated or casual (a private tournament's are casual)."""
    return pool_summary(tournament.game, tournament.options, rated=not tournament.is_private)


@register.filter
def entry_rules(tournament: Tournament) -> str:
    """Who may enter, as ``services.entry_refusal`` decides it."""
    if tournament.is_private:
        return _("Anyone with its link.")
    rules = [_("Accounts confirmed and a few days old (its matches are rated)")]
    if tournament.min_rated_matches:
        rules.append(
            _("at least %(count)d rated matches of this game") % {"count": tournament.min_rated_matches}
        )
    if tournament.rating_min is not None:
        rules.append(_("a rating of %(rating)d or more") % {"rating": tournament.rating_min})
    if tournament.rating_max is not None:
        rules.append(_("a rating of %(rating)d or less") % {"rating": tournament.rating_max})
    return "; ".join(rules) + "."


@register.inclusion_tag("tournaments/_soon.html", takes_context=True)
def tournaments_soon(context) -> dict:
    """The running tournaments and the next to start, for the home page."""
    return {"soon": selectors.tournaments_soon(viewer=context["request"].user)}
