"""gunicorn settings for the web processes (``python -m genres_site.serve`` uses them):

    python -m gunicorn -c genres_site/gunicorn_conf.py genres_site.asgi:application --bind HOST:PORT --workers N

Each worker is a uvicorn event loop serving the ASGI application: HTTP through Django (a sync
view runs in a thread of its own, so one process serves several requests at once) and
websockets through channels, whose Redis layer joins the processes together.
"""

import os


def default_web_workers():
    """WORKERS_PER_CORE processes per core: see README, Serving, for the measurements."""
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


WORKERS_PER_CORE = 1

# The command line's --bind and --workers override these two.
bind = "127.0.0.1:8000"
workers = default_web_workers()
worker_class = "uvicorn_worker.UvicornWorker"

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
