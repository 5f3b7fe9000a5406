"""Settings for GENRES Arena.

Everything that differs between a laptop and a deployment comes from the environment;
each variable is listed, with its default, in docs/configuration.md. The defaults run the whole app
on one machine with nothing installed but Python: SQLite, an embedded Redis started by
``python -m genres_site.serve``, the offline embedder and the heuristic judge.
"""

import os
import sys
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE

from genres_site.secret_key import load_or_create_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent
# The site-wide templates and static files (apps keep their own templates).
SITE_DIR = Path(__file__).resolve().parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)

# Runtime files of the embedded mode: SQLite database, embedded Redis socket and its
# append-only file, secret key, LDA models.
# A checkout keeps its state beside the code; an installed copy, where the command is run.
VAR_DIR = Path(
    os.environ.get("GENRES_VAR_DIR") or (BASE_DIR if (BASE_DIR / "manage.py").exists() else Path.cwd()) / "var"
)
VAR_DIR.mkdir(parents=True, exist_ok=True)

# Every process of one installation must sign with the same key: from the environment, or
# made once and kept in the var directory.
SECRET_KEY = os.environ.get("SECRET_KEY") or load_or_create_secret_key(VAR_DIR / "secret_key")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "genres_site.daphne_app.DaphneConfig",  # daphne's runserver; see the module for why not "daphne"
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_rq",
    "scoring",
    "annotation",
    "leaderboard",
    "accounts",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "accounts.middleware.PasswordChangeDueMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "genres_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "genres_site.wsgi.application"
ASGI_APPLICATION = "genres_site.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'genres.sqlite3'}")
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Django's backend, with write transactions queued fairly on a file lock (see its docstring).
    DATABASES["default"]["ENGINE"] = "genres_site.sqlite_backend"
    DATABASES["default"]["OPTIONS"] = {
        # WAL: readers never wait for the writer, and a commit is one append to the log.
        # NORMAL syncs at checkpoints only: a commit survives a crash of the app, and a power
        # cut may lose the last few.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        # Take the write lock when a transaction starts: a transaction that reads and then
        # writes would otherwise fail at once ("database is locked") instead of waiting.
        "transaction_mode": "IMMEDIATE",
        # Seconds a writer waits for the lock. Writes hold it for milliseconds, but SQLite's busy
        # handler polls with growing sleeps and is not fair: with 50 annotators saving at once on
        # 2 cores, 10 s let a few saves time out (the load benchmark). 25 s stays below the web
        # server's 30 s timeout, so a request that still fails answers with an error page.
        "timeout": 25,
    }
    # One connection per request thread, kept: opening one (connect, the PRAGMAs above) per request
    # was a quarter of the item page's CPU through the WSGI handler (docs/deployment.md, Serving).
    DATABASES["default"]["CONN_MAX_AGE"] = None
    # Tests: an in-memory database per test process, as Django does for its own SQLite backend;
    # named, since test runners derive a file name from NAME for any other backend.
    DATABASES["default"]["TEST"] = {"NAME": ":memory:"}
elif env_bool("DATABASE_POOL", "rqworker" not in sys.argv[1:2]):
    # Web processes share a pool of connections among their request threads. Not in rq's
    # forking workers: a work horse is forked per job and would inherit the parent's pool
    # (sockets shared with the parent, maintenance threads gone), so workers connect per job.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": int(os.environ.get("DATABASE_POOL_MIN_SIZE", "2")),
        "max_size": int(os.environ.get("DATABASE_POOL_MAX_SIZE", "10")),
        # Seconds a request waits for a free connection, below the web server's timeout.
        "timeout": 10,
    }
# PostgreSQL's connections are pooled above, and returned to the pool at the end of each request.

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: given by REDIS_URL, or the embedded server that genres_site.serve starts on this socket.
EMBEDDED_REDIS_SOCKET = VAR_DIR / "redis.sock"
REDIS_URL = os.environ.get("REDIS_URL") or f"unix://{EMBEDDED_REDIS_SOCKET}"

RQ_QUEUES = {
    "default": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 3600},
    "leaderboard": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 900},
}

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "genres_site.channel_layer.ChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL]},
    }
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {"pool_class": "genres_site.cache_pool.SharedConnectionPool"},
    }
    if os.environ.get("REDIS_URL")
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

# Sessions are read on every request: from the cache (Redis, wherever the app is served), with
# the database behind it, written only when a session changes (sign-in, sign-out). A request
# then reads no session row, and a Redis flushed or lost costs no one their sign-in.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
# Annotators land on their campaigns, everyone else on the datasets (annotation.views.annotate).
LOGIN_REDIRECT_URL = "annotation:after_sign_in"

# Sign-in throttling (core/login_throttle.py): this many failed sign-ins for one account, or
# failed sign-ins and unknown API tokens from one address, refuse it until the cool-down has
# passed since the last failure. An address counts more: a lab behind one NAT shares it.
AUTHENTICATION_BACKENDS = ["core.login_throttle.ThrottledModelBackend"]
GENRES_LOGIN_FAILURES_PER_ACCOUNT = int(os.environ.get("GENRES_LOGIN_FAILURES_PER_ACCOUNT", "10"))
GENRES_LOGIN_FAILURES_PER_ADDRESS = int(os.environ.get("GENRES_LOGIN_FAILURES_PER_ADDRESS", "50"))
GENRES_LOGIN_COOL_DOWN_SECONDS = int(os.environ.get("GENRES_LOGIN_COOL_DOWN_SECONDS", "900"))
LOGOUT_REDIRECT_URL = "login"

# Password-reset mail. By default it stays on this machine, written to files under var/mail (a
# small lab may have no mail server); staff then show a user's reset link on the Accounts page.
EMAIL_BACKENDS = {
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
EMAIL_BACKEND_NAME = os.environ.get("GENRES_EMAIL_BACKEND") or "file"
EMAIL_BACKEND = EMAIL_BACKENDS.get(EMAIL_BACKEND_NAME, EMAIL_BACKEND_NAME)  # or a backend's dotted path
EMAIL_FILE_PATH = VAR_DIR / "mail"
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "GENRES Arena <genres-arena@localhost>")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request while it is missing
# The leaderboard's plotly.js is a partial bundle under static/vendor (devtools/plotly_bundle.py).
STATICFILES_DIRS = [SITE_DIR / "static"]
# collectstatic (which serve runs) names each file after a hash of its content (app.4f2a9c1e.css) and
# gzips it ahead of time; WhiteNoise has browsers keep such names for a year, as a new content gets
# a new name. The pages need the manifest collectstatic writes (tests use the unhashed storage).
# With DEBUG on, WhiteNoise reads the source directories instead, as they change.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG

# Leaderboards: readable without signing in when on (read-only; annotators of open campaigns still excluded).
GENRES_PUBLIC_LEADERBOARD = env_bool("GENRES_PUBLIC_LEADERBOARD", False)

# Uploads: files above this size are refused before they are read whole (128 MB holds the
# outputs of a 100,000-text benchmark); from GENRES_IMPORT_JOB_BYTES on, the upload page and the
# API import a file in an RQ job and answer at once. Queued files wait in the database
# (scoring.UploadChunk), so workers on any machine read them: nothing shared but the database and Redis.
GENRES_MAX_UPLOAD_BYTES = int(os.environ.get("GENRES_MAX_UPLOAD_BYTES", str(128 * 1024 * 1024)))
GENRES_IMPORT_JOB_BYTES = int(os.environ.get("GENRES_IMPORT_JOB_BYTES", str(1024 * 1024)))
FILE_UPLOAD_HANDLERS = [
    "scoring.upload_handlers.SizeLimitedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# HTTPS hardening, on when the site is served over HTTPS (not tied to DEBUG: the one-machine
# mode runs without DEBUG on plain http://127.0.0.1).
GENRES_HTTPS = env_bool("GENRES_HTTPS", False)
SESSION_COOKIE_SECURE = GENRES_HTTPS
CSRF_COOKIE_SECURE = GENRES_HTTPS
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", GENRES_HTTPS)
# Load balancers ask over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000" if GENRES_HTTPS else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = GENRES_HTTPS
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# No inline script anywhere: scripts come from the site's static files only. Styles allow
# inline: plotly styles its plots from script, and progress bars set their width in place.
# connect-src 'self' covers the site's own ws:/wss: websockets (CSP level 3).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# With DEBUG on, staff still get Django's debug page for an error; everyone else the site's 500.
DEFAULT_EXCEPTION_REPORTER = "genres_site.exception_reporter.StaffOnlyExceptionReporter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "text": {"format": "%(levelname)s %(name)s: %(message)s"},
        "json": {"()": "genres_site.log_format.JsonFormatter"},
    },
    # LOG_FORMAT=json: one JSON object a line, with the fields failures are logged with.
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": os.environ.get("LOG_FORMAT", "text")},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # httpx (the load benchmark's client) logs every request at INFO; gensim logs every LDA pass
    # and every model load (once per scoring chunk).
    "loggers": {name: {"level": "WARNING"} for name in ("httpx", "gensim")},
}
