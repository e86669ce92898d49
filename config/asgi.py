"""The ASGI application: HTTP to Django, websockets to Channels consumers.

The websocket routes are every installed app's own (its ``routing.websocket_urlpatterns``), so an app
left out of ``INSTALLED_APPS`` takes its sockets with it. Websocket connections pass the allowed-hosts
origin check and carry the session's user (``AuthMiddlewareStack``).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.routing import websocket_routes  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_routes()))),
    }
)

# Everything loaded so far lives as long as the process: keep it out of the garbage collector's
# sweeps, which otherwise walk it again and again and stall every table served by this process.
gc.freeze()
