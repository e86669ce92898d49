"""``{% push_section %}``: the settings page's part about web push on the device showing it."""

from django import template
from django.conf import settings

from .. import push
from ..services.subscriptions import endpoint_digests

register = template.Library()


@register.inclusion_tag("notifications/_push.html", takes_context=True)
def push_section(context: template.Context) -> dict:
    """The button that turns push on for this device (once the site has a VAPID key pair), with what
    ``static/js/push.js`` needs: the key, the worker, and which subscriptions are the person's."""
    user = context["request"].user
    return {
        "configured": push.configured(),
        "key": settings.VAPID_PUBLIC_KEY,
        "mine": " ".join(endpoint_digests(user.pk)),
        "csp_nonce": context.get("csp_nonce"),
    }
