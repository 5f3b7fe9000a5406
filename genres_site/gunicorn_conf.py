"""gunicorn settings for the web processes (``python -m genres_site.serve`` uses them):

    python -m gunicorn -c genres_site/gunicorn_conf.py genres_site.asgi:application --bind HOST:PORT --workers N

Each worker is a uvicorn event loop serving the ASGI application: HTTP through Django's WSGI
handler in a pool of threads (genres_site/asgi.py), so one process serves several requests at
once, and websockets through channels, whose Redis layer joins the processes together.
"""

import os

# Views spend most of their time in Python (templates, ORM), which one process runs on one
# core at a time; a second process per core keeps the cores busy while requests wait on the
# database. Measured in docs/deployment.md, Serving.
WORKERS_PER_CORE = 2


def default_web_workers() -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


# The command line's --bind and --workers override these two.
bind = "127.0.0.1:8000"
workers = default_web_workers()
worker_class = "uvicorn_worker.UvicornWorker"
# Load Django and its libraries once, in the master, then fork: workers start in a moment and
# share that memory. Safe here: nothing opens a connection at import (Django, the pool and the
# channel layer all connect on first use, in the worker).
preload_app = True

# A worker that has not reported for this long is killed and replaced. Its event loop reports
# between requests, even while the views' threads wait on the database (10 s at most), so
# only a wedged process goes over.
timeout = 30
# On SIGTERM, in-flight requests get this long; below the 10 s that serve gives each child.
graceful_timeout = 8
keepalive = 5

# Errors and start/stop lines only: a line per request costs more than the request at load.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()

# gunicorn's runtime control socket is one path per user ($HOME/.gunicorn/gunicorn.ctl): a
# second server on the machine (a test, another checkout) would take it over. Not used here.
control_socket_disable = True
