"""What the site is made of, read from the environment: its apps, data stores, timings, mail,
languages and logs (``config.settings`` adds the limits and what production changes)."""

import logging
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from config.settings.env import env_bool, env_file, env_list
from config.settings.limits import LOGIN_ATTEMPTS_LIMIT, LOGIN_ATTEMPTS_WINDOW

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEBUG = env_bool("DEBUG", True)
"""Development (the default): see ``production`` for what turning it off changes."""
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "config.apps.SiteConfig",
    "accounts",
    "tables",
    "gameplay",
    "ratings",
    "social",
    "chat",
    "tournaments",
    "notifications",
    "bots",
    "reviews",
    "history",
    "practice",
    "api",
    "opendata",
    "privacy",
    "ninja",
    "axes",
]

CHAT_ENABLED = env_bool("CHAT_ENABLED", True)
"""The table chat. Off, the ``chat`` app is left out: the tables play on, with no chat on their pages."""
if not CHAT_ENABLED:
    INSTALLED_APPS.remove("chat")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.RequestIdMiddleware",
    "config.middleware.RequestMetricsMiddleware",
    "config.middleware.RejectNulMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.optional_apps",
            ],
        },
    },
]

# --- Data stores -----------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Websocket consumers query on every change: keep connections open between them.
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A move runs the same few statements every time: bound on the server and, from a statement's
    # fifth run on a connection, prepared there, PostgreSQL parses and plans each once per connection.
    # (Measured: a third less of PostgreSQL's CPU per move, and less of the servers' own.)
    DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded server writes from Daphne's threads and the in-process worker's at once. A
    # transaction that read first and then writes is refused outright ("database is locked") while
    # another thread writes: begun IMMEDIATE it waits for the write lock instead, and in WAL mode
    # the readers never wait for a writer.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE",
        timeout=20,
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
EMBEDDED = not REDIS_URL
"""True in the one-process mode: in-memory channel layer, broker and cache."""

if EMBEDDED:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CELERY_BROKER_URL = "memory://"
else:
    # Redis pub/sub: a change to a table is one PUBLISH, pushed to the processes whose viewers
    # subscribed, with no per-channel lists to poll and trim. What it does not keep (news sent while
    # a process was cut off from Redis) each table's viewers catch up with on their next heartbeat.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": os.environ.get("CHANNELS_PREFIX", "septica")},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_PREFIX", "septica"),
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"

ROUND_PAUSE_SECONDS = float(os.environ.get("ROUND_PAUSE_SECONDS", "6"))
"""How long a finished round or deal stays on show before the next is dealt."""
BOT_PAUSE_SECONDS = tuple(float(x) for x in os.environ.get("BOT_PAUSE_SECONDS", "0.6,1.5").split(","))
"""A bot waits a human-like moment (between these bounds) before acting, so play can be followed."""
FAST_BOT_PAUSE_SECONDS = tuple(
    float(x) for x in os.environ.get("FAST_BOT_PAUSE_SECONDS", "0.2,0.4").split(",")
)
"""A bot's pause at a table set to fast bots (``Table.fast_bots``)."""

CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "septica")
CELERY_REVIEW_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-reviews"
"""Reviews are judged on a queue of their own, taken by the ``reviewer`` process (one review at a time,
on a core of its own): a review's seconds of work never wait in front of a bot's turn or a turn clock."""
CELERY_TASK_ROUTES = {"reviews.tasks.run": {"queue": CELERY_REVIEW_QUEUE}}
REVIEW_POSITIONS = int(os.environ["REVIEW_POSITIONS"]) if os.environ.get("REVIEW_POSITIONS") else None
"""Sampled positions a review plays every action of a decision out on; unset, each game's own
(``bots.review.POSITIONS``, chosen for stable marks). Fewer make reviews cheaper and their marks noisier."""
REVIEW_LEASE_SECONDS = float(os.environ.get("REVIEW_LEASE_SECONDS", "60"))
"""A review being judged writes its progress at least every second; one silent for this long lost its
worker, and beat queues it again (``reviews.services.resume_stalled``)."""

GONE_GRACE_SECONDS = float(os.environ.get("GONE_GRACE_SECONDS", "30"))
"""A player whose every connection has been gone this long on their turn is stood in for by a bot."""
ABANDON_AFTER_SECONDS = float(os.environ.get("ABANDON_AFTER_SECONDS", "600"))
"""A match whose every person has been stood in for this long is abandoned."""
OWN_PACE_HOUR_SECONDS = float(os.environ.get("OWN_PACE_HOUR_SECONDS", "3600"))
"""How long an hour of a table at its own pace lasts, in seconds: 3600, shorter only to try such a
match out (the tests play "days" in seconds)."""
OWN_PACE_STAND_INS_FOR_GOOD = int(os.environ.get("OWN_PACE_STAND_INS_FOR_GOOD", "3"))
"""At a table at its own pace a bot plays a move whose time ran out; after this many such moves of one
person in a match the seat is the bot's for good (the person counts as having left the match)."""
SWEEP_SECONDS = float(os.environ.get("SWEEP_SECONDS", "2"))
"""How often Celery beat runs the sweep that acts on anything overdue (a lost task never stalls a match)."""
RATINGS_CATCH_UP_SECONDS = float(os.environ.get("RATINGS_CATCH_UP_SECONDS", "60"))
"""How often Celery beat rates the decided matches whose update was missed (a process died first)."""
POOL_TICK_SECONDS = float(os.environ.get("POOL_TICK_SECONDS", "1"))
"""How often Celery beat pairs the pools (pairing also runs on every join)."""
POOL_STALE_SECONDS = float(os.environ.get("POOL_STALE_SECONDS", "10"))
"""A person whose page that looks has not been heard of for this long leaves the pool."""
POOL_SEEN_EVERY_SECONDS = float(os.environ.get("POOL_SEEN_EVERY_SECONDS", "3"))
"""How often a server process tells the pool that the pages looking there are still open."""
POOL_BOT_FILL_SECONDS = float(os.environ.get("POOL_BOT_FILL_SECONDS", "20"))
"""After this long in the pool with "fill with bots" on, bots take the seats nobody took."""
POOL_WINDOW_START = float(os.environ.get("POOL_WINDOW_START", "100"))
POOL_WINDOW_PER_SECOND = float(os.environ.get("POOL_WINDOW_PER_SECOND", "25"))
"""The pool seats people whose ratings lie within POOL_WINDOW_START points of each other at once,
and the window widens by POOL_WINDOW_PER_SECOND points for each second of the wait."""
POOL_PAIRED_KEPT_SECONDS = 300
"""How long a pool entry remembers the table it was given, for a page that missed the news."""
TOURNAMENT_TICK_SECONDS = float(os.environ.get("TOURNAMENT_TICK_SECONDS", "1"))
"""How often Celery beat starts, pairs, moves on and ends the running tournaments (an arena also pairs
at once on every join and every match's end)."""
TOURNAMENT_TABLES_AT_ONCE = int(os.environ.get("TOURNAMENT_TABLES_AT_ONCE", "20"))
"""An arena's pairing seats at most this many tables in one transaction, then pairs again for the rest."""
TOURNAMENT_GRACE_SECONDS = float(os.environ.get("TOURNAMENT_GRACE_SECONDS", "20"))
"""A player whose tournament page has not been heard of for this long (and whose last match ended longer
ago) is paused: not seated again until the page is back."""
TOURNAMENT_SEEN_EVERY_SECONDS = float(os.environ.get("TOURNAMENT_SEEN_EVERY_SECONDS", "5"))
"""How often a server process tells the tournaments that the pages showing them are still open."""
TOURNAMENT_PUSH_SECONDS = float(os.environ.get("TOURNAMENT_PUSH_SECONDS", "1.5"))
"""A tournament's standings are rendered and pushed to its pages at most this often."""
TOURNAMENT_CALENDAR_SECONDS = float(os.environ.get("TOURNAMENT_CALENDAR_SECONDS", "60"))
"""How often Celery beat makes the calendar's tournaments that are due to be announced."""
SITE_COUNTS_SECONDS = 5
"""How long the counts of people online and at tables are kept before they are counted again."""
CHAT_SETTINGS_ANNOUNCE_SECONDS = float(os.environ.get("CHAT_SETTINGS_ANNOUNCE_SECONDS", "1"))
"""A host's switch reaches the table's other pages this long after the first of a burst of switches,
once, as it then stands (the host's own page shows it at once)."""
# --- Notifications (``notifications``; docs/notifications.md) --------------------------------------
SITE_ORIGIN = os.environ.get("SITE_ORIGIN", "http://localhost:8000").rstrip("/")
"""The site's scheme and host (``https://septica.example``), for the links in the mail a worker sends
with no request to take them from."""
NOTIFY_EMAIL_PERIOD_MINUTES = float(os.environ.get("NOTIFY_EMAIL_PERIOD_MINUTES", "60"))
"""At most one email of each kind to a person in this long: what comes meanwhile waits for the period's
end and goes as one message ("It's your turn in 3 matches")."""
NOTIFY_SWEEP_SECONDS = float(os.environ.get("NOTIFY_SWEEP_SECONDS", "30"))
"""How often Celery beat sends the pushes and emails due and unsent (quiet hours over, a digest's period
over, a mail server that was down, a task lost with its worker)."""
NOTIFY_SWEEP_BATCH = 500
"""The most pushes, and the most people's emails, one sweep queues (the next sweep takes the rest)."""
NOTIFY_RETRY_SECONDS = float(os.environ.get("NOTIFY_RETRY_SECONDS", "60"))
"""A push or email that failed is tried again this long after, the wait doubling with each failure (at
most six hours)."""
NOTIFY_ATTEMPTS = int(os.environ.get("NOTIFY_ATTEMPTS", "12"))
"""After this many failures a push or email is given up (kept with its error for the admin, then deleted
with the old ones)."""
NOTIFY_KEEP_DAYS = int(os.environ.get("NOTIFY_KEEP_DAYS", "30"))
"""The pushes and emails sent are remembered this long (the digests' periods, the admin), then deleted."""
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "")
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
"""The site's key pair for web push (``manage.py vapidkeys`` makes one); without it no push is sent."""
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "mailto:admin@localhost")
"""Who the push services may write to about the site's pushes (a mailto: or https: address)."""
EMBEDDED_VAPID_FILE = BASE_DIR / "vapid.env"
"""The embedded default's own VAPID key pair (the lines ``manage.py vapidkeys`` prints), made on ``make
run``'s first start and kept, so web push works out of the box on this computer; read only when the
environment gives no pair."""
if EMBEDDED and not VAPID_PRIVATE_KEY:
    _embedded_vapid = env_file(EMBEDDED_VAPID_FILE)
    VAPID_PUBLIC_KEY = _embedded_vapid.get("VAPID_PUBLIC_KEY", "")
    VAPID_PRIVATE_KEY = _embedded_vapid.get("VAPID_PRIVATE_KEY", "")
PUSH_SERVICE_DOMAINS = env_list(
    "PUSH_SERVICE_DOMAINS", ["google.com", "googleapis.com", "mozilla.com", "windows.com", "apple.com"]
)
"""The domains of the push services a browser's subscription may name (theirs and their subdomains):
the worker posts to it, so nothing else, never an address inside the site's own network. Chrome's,
Edge's, Firefox's and Safari's by default."""
PUSH_TIMEOUT_SECONDS = float(os.environ.get("PUSH_TIMEOUT_SECONDS", "10"))
"""A push service that has not answered within this long fails that push (tried again later): a hanging
one never holds a worker."""

# --- Backups (``manage.py backup``, run daily by deploy/septica-backup.timer) -------------------
BACKUP_DIR = Path(os.environ.get("BACKUP_DIR", BASE_DIR / "backups"))
"""Where ``manage.py backup`` writes its dumps (readable by the site's user only)."""
BACKUP_KEEP = int(os.environ.get("BACKUP_KEEP", "14"))
"""The newest this many dumps are kept; older ones are deleted after each backup."""

# --- Open data (``/data/``: the public rated matches, a file per game and month) --------------------
OPEN_DATA_ROOT = Path(os.environ.get("OPEN_DATA_ROOT", BASE_DIR / "var" / "opendata"))
"""Where the open data files are written; served as static files under /data/files/ (nginx's alias in
production, a streaming view otherwise)."""

# --- Health checks and beat --------------------------------------------------------
HEALTH_TIMEOUT_SECONDS = float(os.environ.get("HEALTH_TIMEOUT_SECONDS", "2"))
"""Each check of /health/ready that has not answered within this long fails."""
HEALTH_WORKER_SILENT_SECONDS = float(os.environ.get("HEALTH_WORKER_SILENT_SECONDS", "60"))
"""/health/ready fails when no Celery worker has finished a task for this long (beat's sweep alone
gives one every SWEEP_SECONDS)."""
HEALTH_SWEEP_BEHIND_SECONDS = float(
    os.environ.get("HEALTH_SWEEP_BEHIND_SECONDS", str(max(30.0, 10 * SWEEP_SECONDS)))
)
"""/health/ready fails when the sweep has not run for this long, or a running match is overdue by
more than this."""
HEALTH_TOKEN = os.environ.get("HEALTH_TOKEN", "")
"""/health/ready tells strangers its status only; each check's details (errors naming hosts, ports and
users) go to this machine's own address, or to a request whose ``X-Health-Token`` header is this token
(empty: no token opens them)."""
BEAT_LOCK_SECONDS = float(os.environ.get("BEAT_LOCK_SECONDS", "6"))
"""Every worker may run beat (``-B``): the one holding a lock in Redis sends the periodic tasks,
renewing it every third of this. A beat of the holder's own host takes over as soon as the holder's
process is gone; another host's, within this long (``config.beat``)."""
if not EMBEDDED:
    CELERY_BEAT_SCHEDULER = "config.beat:LockedScheduler"

CELERY_BEAT_SCHEDULE = {
    "pool-tick": {
        "task": "social.tasks.pool_tick",
        "schedule": POOL_TICK_SECONDS,
        "options": {"expires": POOL_TICK_SECONDS},
    },
    "sweep": {
        "task": "gameplay.tasks.sweep",
        "schedule": SWEEP_SECONDS,
        "options": {"expires": SWEEP_SECONDS},
    },
    "ratings-catch-up": {
        "task": "ratings.tasks.catch_up",
        "schedule": RATINGS_CATCH_UP_SECONDS,
        "options": {"expires": RATINGS_CATCH_UP_SECONDS},
    },
    "tournaments-tick": {
        "task": "tournaments.tasks.tick",
        "schedule": TOURNAMENT_TICK_SECONDS,
        "options": {"expires": TOURNAMENT_TICK_SECONDS},
    },
    "tournaments-calendar": {
        "task": "tournaments.tasks.calendar",
        "schedule": TOURNAMENT_CALENDAR_SECONDS,
        "options": {"expires": TOURNAMENT_CALENDAR_SECONDS},
    },
    "notifications-due": {
        "task": "notifications.tasks.send_due",
        "schedule": NOTIFY_SWEEP_SECONDS,
        "options": {"expires": NOTIFY_SWEEP_SECONDS},
    },
    "reviews-resume": {
        "task": "reviews.tasks.resume_stalled",
        "schedule": 60.0,
        "options": {"expires": 60},
    },
    "retention": {
        "task": "privacy.tasks.retention",
        "schedule": float(os.environ.get("RETENTION_SECONDS", "3600")),
        "options": {"expires": 600},
    },
    "opendata-monthly": {
        "task": "opendata.tasks.monthly",
        "schedule": crontab(minute=30, hour=6, day_of_month=1),  # last month over everywhere
        "options": {"expires": 6 * 3600},
    },
}

# --- A person's own data (the privacy page says all of this to the players) ---------------------------
DATA_EXPORT_KEEP_HOURS = int(os.environ.get("DATA_EXPORT_KEEP_HOURS", "72"))
"""How long a prepared download of a person's data can be fetched before it is deleted."""
ERASED_NAME_RESERVED_DAYS = int(os.environ.get("ERASED_NAME_RESERVED_DAYS", "180"))
"""A closed account's username cannot be registered again for this long (nobody passes for them)."""
LOGIN_RECORD_KEEP_DAYS = int(os.environ.get("LOGIN_RECORD_KEEP_DAYS", "90"))
"""Successful logins (time, address, browser) are kept this long, then deleted."""
FAILED_LOGIN_KEEP_DAYS = int(os.environ.get("FAILED_LOGIN_KEEP_DAYS", "30"))
"""Failed login attempts (which the login limit counts) are kept this long, then deleted."""
NOTICE_KEEP_DAYS = int(os.environ.get("NOTICE_KEEP_DAYS", "90"))
"""Invitations and friend notices are deleted this long after they were sent."""

# --- Accounts --------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "accounts.validators.UserAttributeSimilarityValidator"},
    {"NAME": "accounts.validators.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "accounts.validators.CommonPasswordValidator"},
    {"NAME": "accounts.validators.NumericPasswordValidator"},
]
CLIENT_ADDRESS_HEADER = (
    "HTTP_" + os.environ["CLIENT_ADDRESS_HEADER"].upper().replace("-", "_")
    if os.environ.get("CLIENT_ADDRESS_HEADER")
    else ""
)
"""Behind a proxy: the header it puts the browser's address in (e.g. X-Forwarded-For); else REMOTE_ADDR."""
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
"""The proxies of our own in front of ``manage.py prod``'s nginx (addresses or networks, e.g. a TLS
terminator's 10.0.0.5): only their X-Forwarded-For is believed, and nginx hands Daphne the browser's
address as the connection's (leave CLIENT_ADDRESS_HEADER unset then). Empty: nobody's header is."""
UNLIMITED_ADDRESSES = env_list("UNLIMITED_ADDRESSES", [])
"""Addresses nginx counts no budget for: a load test's own, set for that run only. Empty: nobody is
exempt, this machine included (but for the health check)."""
EMAIL_CONFIRMATION_LINK_HOURS = float(os.environ.get("EMAIL_CONFIRMATION_LINK_HOURS", "72"))
"""How long the link mailed to confirm an email address works (a new one can be asked for)."""

# django-axes counts failed logins in the database; admins see and lift lockouts in the admin.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = LOGIN_ATTEMPTS_LIMIT
AXES_COOLOFF_TIME = timedelta(seconds=LOGIN_ATTEMPTS_WINDOW)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
# A success must not wipe an address's failures: one could then guess at others' accounts between
# logins to one's own.
AXES_RESET_ON_SUCCESS = False
AXES_CLIENT_IP_CALLABLE = "accounts.services.client_address"
AXES_USERNAME_CALLABLE = "accounts.services.login_username"
AXES_LOCKOUT_CALLABLE = "accounts.views.login_locked_out"

_MAIL_BACKEND = os.environ.get("MAIL_BACKEND", "accounts.mail.ConsoleEmailBackend")
"""How mail leaves: by default printed on the server's console (``make run``: the confirmation link is
there to open); in production Django's SMTP backend, ``django.core.mail.backends.smtp.EmailBackend``,
with the SMTP_* settings below."""
MAILERS = {
    "default": {
        "BACKEND": _MAIL_BACKEND,
        "OPTIONS": {
            "host": os.environ.get("SMTP_HOST", "localhost"),
            "port": int(os.environ.get("SMTP_PORT", "587")),
            "username": os.environ.get("SMTP_USER", ""),
            "password": os.environ.get("SMTP_PASSWORD", ""),
            "use_tls": env_bool("SMTP_TLS", True),
            # A mail server that stops answering fails the sending (tried again later), never holds a worker.
            "timeout": float(os.environ.get("SMTP_TIMEOUT_SECONDS", "20")),
        }
        if _MAIL_BACKEND.endswith("smtp.EmailBackend")
        else {},
    }
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Șeptică <noreply@localhost>")

# --- Languages -------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("ro", _("Romanian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "config" / "locale"]
USE_I18N = True
TIME_ZONE = "Europe/Bucharest"
USE_TZ = True

# --- Static files ----------------------------------------------------------------
STATIC_URL = "static/"
PRACTICE_BUILD_DIR = BASE_DIR / "build" / "practice"
"""Where ``manage.py buildpractice`` writes the offline practice table's Python (served as static)."""
STATICFILES_DIRS = [BASE_DIR / "static", ("practice", PRACTICE_BUILD_DIR)]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))

# --- Security --------------------------------------------------------------------
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "observe.logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

SERVE_STATIC = env_bool("SERVE_STATIC", True)
"""Daphne serves /static/ itself unless a front proxy or CDN does (set SERVE_STATIC=0): from the
source folders while DEBUG is on, else the collected files, compressed and cached for a year."""
if SERVE_STATIC:
    MIDDLEWARE.insert(1, "servestatic.middleware.ServeStaticMiddleware")

# --- Presence (who has a table open) ----------------------------------------------
PRESENCE_TTL_SECONDS = float(os.environ.get("PRESENCE_TTL_SECONDS", "30"))
"""A connection not heard of for this long no longer counts as at the table (its server died)."""
PRESENCE_HEARTBEAT_SECONDS = float(os.environ.get("PRESENCE_HEARTBEAT_SECONDS", "10"))
"""How often an open table connection says it is still there (and rejoins its table's group)."""

# --- Metrics and logs ---------------------------------------------------------------
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
"""/metrics answers a request straight from this machine (loopback, no proxy header) or one carrying
``Authorization: Bearer METRICS_TOKEN`` (when set); anyone else is told there is no such page."""
LOG_FORMAT = os.environ.get("LOG_FORMAT", "plain")
"""``json``: one JSON object a line (time, level, logger, message, pid, and the request, table and
match it is about), from the servers and the worker alike; anything else: plain text."""
if LOG_FORMAT == "json":
    LOGGING["handlers"]["console"]["formatter"] = "json"
    # Django's own console handler (DEBUG only) would print the same lines again, as plain text.
    LOGGING["loggers"]["django"] = {"handlers": [], "level": "INFO"}
    logging.captureWarnings(True)  # Python's warnings become lines of the log too
