"""The ASGI application: HTTP to Django, websockets to Channels consumers.

Websocket connections pass the allowed-hosts origin check and carry the session's
user (``AuthMiddlewareStack``).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from chat import routing as chat_routing  # noqa: E402
from social import routing as social_routing  # noqa: E402
from tables import routing as tables_routing  # noqa: E402

websocket_urlpatterns = (
    tables_routing.websocket_urlpatterns
    + chat_routing.websocket_urlpatterns
    + social_routing.websocket_urlpatterns
)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# Everything loaded so far lives as long as the process: keep it out of the garbage collector's
# sweeps, which otherwise walk it again and again and stall every table served by this process.
gc.freeze()
