"""ASGI entry point: HTTP through Django's WSGI handler, websockets through channels routes of the apps.

Every view and middleware is sync, and Django's ASGI handler runs sync middleware by hopping
between the event loop and a thread at each of their hooks, several hops a request. Run as
WSGI instead, a request takes one hop: a2wsgi hands it to a thread of a fixed pool, where
Django runs middleware and view straight through (measured in docs/deployment.md, Serving).
"""

import os
from typing import cast

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi_typing import WSGIApp
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
django_wsgi_app = get_wsgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from genres_site.routing import websocket_urlpatterns  # noqa: E402

# Requests one web process serves at once. Below the PostgreSQL pool's default of 10
# connections per process, so a request never waits for a connection.
REQUEST_THREADS = 8

application = ProtocolTypeRouter(
    {
        # Django's stubs type its handler's answer as a response, which is the iterable of bytes WSGI wants.
        "http": WSGIMiddleware(cast(WSGIApp, django_wsgi_app), workers=REQUEST_THREADS),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
