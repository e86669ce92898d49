"""The social layer's pieces on other apps' pages: a person's buttons (add a friend, block), the
friends to invite to a table, the bell, the counts of who is online, the tables being played now."""

from django import template

from .. import selectors

register = template.Library()


@register.inclusion_tag("social/_person_actions.html", takes_context=True)
def person_actions(context, person, next_url: str = "") -> dict:
    """Add a friend / answer their request / block, for ``person``; the forms come back to
    ``next_url`` (else the page's own address)."""
    user = context.get("user")
    shown = user is not None and user.is_authenticated and person is not None and person.pk != user.pk
    return {
        "shown": shown,
        "person": person,
        "relation": selectors.relation(user=user, other_id=person.pk) if shown else None,
        "csrf_token": context.get("csrf_token"),
        "next": next_url or _path(context),
    }


@register.inclusion_tag("social/_invite.html", takes_context=True)
def invite_friends(context, table, next_url: str = "") -> dict:
    user = context.get("user")
    friends = selectors.friends_to_invite(table=table, user=user) if user is not None else []
    return {
        "table": table,
        "friends": friends,
        "invited": selectors.invited_to(table=table) if friends else set(),
        "csrf_token": context.get("csrf_token"),
        "next": next_url or _path(context),
    }


@register.inclusion_tag("social/_bell.html", takes_context=True)
def notice_bell(context) -> dict:
    user = context.get("user")
    return {"count": selectors.unread_count(user=user) if user is not None and user.is_authenticated else 0}


@register.inclusion_tag("social/_counts.html")
def site_counts() -> dict:
    return {"counts": selectors.site_counts()}


@register.inclusion_tag("social/_live_now.html")
def live_now() -> dict:
    return {"live": selectors.live_tables()}


def _path(context) -> str:
    request = context.get("request")
    return request.get_full_path() if request is not None else ""
