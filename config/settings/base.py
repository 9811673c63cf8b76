"""Settings shared by every environment; each value that varies is read through ``env``.

The environment-specific modules (local, test, production) set ``SECRET_KEY``,
``DEBUG``, ``ALLOWED_HOSTS`` and ``DATABASES``, each with its own defaults.
"""

from datetime import timedelta
from pathlib import Path

import dj_database_url

from config.serving import MAX_GC_THRESHOLD
from config.settings.environment import Environment

BASE_DIR = Path(__file__).resolve().parent.parent.parent

# Empty means unset; a malformed value is a one-line error naming the variable.
env = Environment()


# SQLite (``make run``, ``make demo``) with several phones writing at once: every write
# transaction takes the write lock when it begins (a deferred one that reads and then
# writes can only fail with "database is locked"), waits up to 20 s for it, and the
# write-ahead log lets the polls read while a phone writes. Django >= 5.1 reads
# ``transaction_mode`` and ``init_command`` from the OPTIONS; ``timeout`` is sqlite3's.
SQLITE_OPTIONS = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL;",
}


def database_from_env(default: str | None = None) -> dj_database_url.DBConfig:
    """The default database from ``DATABASE_URL`` (``default`` when unset; required if None).

    A SQLite database gets ``SQLITE_OPTIONS`` (options given in the URL win); a PostgreSQL
    one prepares ``referee.store``'s statements unless ``DATABASE_PREPARED_STATEMENTS`` is
    false.
    """
    options = {"conn_max_age": env.int("CONN_MAX_AGE", default=0)}
    if default is None:
        config = env.database("DATABASE_URL", **options)
    else:
        config = env.database("DATABASE_URL", default=default, **options)
    if config.get("ENGINE") == "django.db.backends.sqlite3":
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
    elif config.get("ENGINE") == "django.db.backends.postgresql" and env.bool(
        "DATABASE_PREPARED_STATEMENTS", default=True
    ):
        # The move's statements (``referee.store``) bind on the server and are prepared
        # once per connection; Django's own cursors bind on the client and never are.
        # Off (``DATABASE_PREPARED_STATEMENTS=false``) behind a pooler in transaction
        # mode that does not track prepared statements (PgBouncer before 1.21).
        config.setdefault("OPTIONS", {}).setdefault("prepare_threshold", 0)
    return config


INSTALLED_APPS = [
    "django.contrib.admin",  # clubs, players, seasons and games (events read-only)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "django_htmx",
    "axes",  # login throttling (/accounts/login/, /admin/login/)
    "referee",
    "scoring",
]

# A form sent without a valid CSRF token: the site's own page, translated, with a way back.
CSRF_FAILURE_VIEW = "referee.api.problems.csrf_failure"

MIDDLEWARE = [
    # Outermost: the request's cycles cut once the answer is made (freed without the GC).
    "referee.middleware.ReleaseRequestMiddleware",
    "referee.middleware.HeadWithoutBodyMiddleware",  # HEAD answers carry no body
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "referee.middleware.LegacyLanguageMiddleware",  # in-ID → id-ID, before negotiation
    "django.middleware.locale.LocaleMiddleware",
    "referee.middleware.EdgeTextMiddleware",  # NUL and the like in URLs and headers: 400
    "referee.middleware.InstantsInUtcMiddleware",  # the API answers instants in UTC
    "django.middleware.common.CommonMiddleware",
    # If-Match / If-None-Match on every route: one parser, 400 when malformed (RFC 9110 §13.1).
    "referee.middleware.ConditionalRequestMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Under /api/: a query parameter the operation's schema does not document, or a value it
    # does not allow, is a 400 problem (invalid_query) before the view runs.
    "referee.api.query.QueryParametersMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: answers a locked-out login
]

# django-axes counts failed sign-ins in the database (every worker sees them, a restart
# keeps them); its backend goes first and refuses a locked-out login before any password
# is checked (``referee.auth.LoginThrottleBackend``).
AUTHENTICATION_BACKENDS = [
    "referee.auth.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
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

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Internationalisation: the rule card exists in English, French and Polish; the
# game is from Indonesia. Error codes stay English; messages are translated.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("fr", "Français"),
    ("pl", "Polski"),
    ("id", "Bahasa Indonesia"),
]
USE_I18N = True
LOCALE_PATHS = [BASE_DIR / "locale"]
# English dates day first and a 24-hour clock (config/formats/en/formats.py); the other
# languages keep Django's own formats.
FORMAT_MODULE_PATH = ["config.formats"]
# The server's zone: every instant is stored and answered by the API in UTC; a club's pages
# show its own (``scoring.Club.time_zone``, an IANA name), this one by default.
TIME_ZONE = env.time_zone("DJANGO_TIME_ZONE", default="UTC")
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "referee.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "referee.api.problems.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["referee.api.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["referee.api.parsers.CheckedJSONParser"],
    # Phones use table tokens; organisers the session (browser) or a DRF token (scripts).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "referee.api.auth.TableTokenAuthentication",
        "rest_framework.authentication.TokenAuthentication",
        "referee.api.auth.SessionAuthentication",  # DRF's, its CSRF refusal translated
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Throttles count in ``CACHES["default"]`` (the database): shared by every worker and
    # kept across restarts. Only the public, stateless scoring endpoint is rate-limited;
    # joining counts wrong codes only (``referee.lockouts``).
    "DEFAULT_THROTTLE_RATES": {"score": env.rate("SCORE_THROTTLE_RATE", default="60/min")},
    # How many proxies stand in front of the server: a client is told apart by the
    # address the last of them saw (X-Forwarded-For), or REMOTE_ADDR with none. 0 unless
    # configured (in every environment), so a forged X-Forwarded-For cannot dodge a
    # lockout nor lock out somebody else's address.
    "NUM_PROXIES": env.int("DJANGO_NUM_PROXIES", default=0),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# Throttles and lockouts live in Django's cache framework on the database (a table made by
# the migration ``referee.0003``): every worker counts in the same place, a restart
# forgets nothing.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "domeng_cache",
    }
}

# Join-code guessing is limited per guesser, not per address (docs/threat-model.md). Only
# wrong codes count (a right code is never throttled), each in a window of
# JOIN_LOCKOUT_SECONDS from the window's first one; past a limit every attempt is
# ``join_locked_out`` (429, Retry-After) until the window ends or an organiser lifts the
# address's lockouts (``POST /api/v1/join/lockouts/lift/``).
# - JOIN_LOCKOUT_FAILURES: wrong codes per phone (its ``domeng_device`` cookie at its
#   address; requests without a cookie share one bucket). A club's phones share one address
#   (NAT): one phone's typos or guesses lock out that phone only.
# - JOIN_LOCKOUT_NEW_DEVICE_FAILURES: once an address made JOIN_LOCKOUT_FAILURES wrong codes
#   in its window (someone behind it is guessing), a cookie issued after that moment, and
#   the cookieless bucket, may make only this many: a guesser that drops or renews its cookie
#   gets no fresh budget, while a brand-new phone with the right code still joins.
# - JOIN_LOCKOUT_ADDRESS_FAILURES: the last line, all of an address's phones together. 3,000
#   wrong codes per 10 minutes is harmless against 32**10 join codes: a year of one address
#   guessing at this ceiling finds one of 1,000 open games with a probability under 1/5,000.
JOIN_LOCKOUT_FAILURES = env.int("JOIN_LOCKOUT_FAILURES", default=30, minimum=1)
JOIN_LOCKOUT_NEW_DEVICE_FAILURES = env.int("JOIN_LOCKOUT_NEW_DEVICE_FAILURES", default=3, minimum=1)
JOIN_LOCKOUT_ADDRESS_FAILURES = env.int("JOIN_LOCKOUT_ADDRESS_FAILURES", default=3000, minimum=1)
JOIN_LOCKOUT_SECONDS = env.int("JOIN_LOCKOUT_SECONDS", default=600, minimum=1)

# The serving process's cyclic garbage collector (config/serving.py): its youngest generation
# runs every GC_THRESHOLD net allocations (0: Python's default, 700).
GC_THRESHOLD = env.int("GC_THRESHOLD", default=10_000, minimum=0, maximum=MAX_GC_THRESHOLD)

# Probing a declared hand (R31): refusals whose answer depended on another seat's declared
# hand (an identical one sent again counts once) and undos of another seat's moves while
# that seat's hand is declared, per joining client (the tokens one device cookie, or one
# cookieless address, joined to the game share one count; a device new to the game starts
# from its address's count), before ``probe_limited`` (429). The organiser is never
# counted (docs/threat-model.md).
TABLE_PROBE_LIMIT = env.int("TABLE_PROBE_LIMIT", default=6, minimum=1)
TABLE_PROBE_SECONDS = env.int("TABLE_PROBE_SECONDS", default=600, minimum=1)

# The public scoring endpoint (``POST /api/v1/records/score/``): a body over this many
# bytes is 413 before it is parsed, a record of more rounds 413 before it is replayed.
SCORE_MAX_BODY_BYTES = env.int("SCORE_MAX_BODY_BYTES", default=256 * 1024, minimum=1)
SCORE_MAX_ROUNDS = env.int("SCORE_MAX_ROUNDS", default=500, minimum=1)

# Sign-in (``/accounts/login/``, ``/admin/login/``): django-axes locks a username from one
# address after this many failures, for LOGIN_LOCKOUT_SECONDS (a club's organisers behind
# one address are not locked out by somebody else's typos). ``manage.py axes_reset`` or the
# admin's "Access attempts" lift it.
AXES_FAILURE_LIMIT = env.int("LOGIN_LOCKOUT_FAILURES", default=10, minimum=1)
AXES_COOLOFF_TIME = timedelta(seconds=env.int("LOGIN_LOCKOUT_SECONDS", default=900, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "referee.inputs.client_ident"  # NUM_PROXIES, as the joins
AXES_VERBOSE = False

SPECTACULAR_SETTINGS = {
    "TITLE": "Domeng referee API",
    "VERSION": "0.1.0",
    "DESCRIPTION": (
        "Referee and scorekeeper for Domeng, the five-player block-domino game of "
        "South Sulawesi. Send a game record (`domeng-record/1`) and get back what the "
        "rules conclude from it (`domeng-result/1`): each round's ending, the named "
        "outcomes and every stone that moved.\n\n"
        "Every error is an RFC 9457 problem (`application/problem+json`, see the "
        "`Problem` schema) with a stable machine-readable `code`; a rule violation also "
        "names the rule id (`rule`, e.g. `R7`) and where it happened (`round`, `move`).\n\n"
        "Query parameters are strict: an operation takes only those it documents, with the "
        "values their schemas allow. Any other parameter, a value out of its bounds or "
        "choices, an empty value or one given twice is a 400 problem `invalid_query` that "
        "names the parameter (`parameter`); nothing is silently ignored.\n\n"
        "Every instant (a `date-time` field: `created_at`, `played_at`, …) is answered in UTC, "
        "as ISO 8601 with a `Z` (`2026-12-04T11:00:00Z`), whatever the club's `time_zone`; "
        "an instant sent without an offset is read as UTC. The date filters (`played_after`, "
        "`played_before`) are a club's local dates: those of its `time_zone`, in which its "
        "pages show every time."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    # JSON Schema 2020-12: a field that can be `null` has `null` among its types, which
    # strict validators and generators read (3.0's `nullable` beside `allOf` they do not).
    "OAS_VERSION": "3.1.0",
    # The shared components (Tile, Transfer, GameState, Problem…) first, then the enums.
    "POSTPROCESSING_HOOKS": [
        "referee.api.schema.add_components",
        "referee.api.schema.game_links",
        "referee.api.schema_limits.declare_input_limits",
        "drf_spectacular.hooks.postprocess_schema_enums",
        "referee.api.schema.null_types",
    ],
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.log_level("DJANGO_LOG_LEVEL", default="INFO")},
}

# E-mail: only a forgotten password's link and a new organiser's set-a-password link are
# sent. On a laptop (``make run``, ``make dev``) they are written to the terminal (the
# console backend); production sets DJANGO_EMAIL_BACKEND (e.g. smtp) and its EMAIL_* keys.
EMAIL_BACKEND = env.str(
    "DJANGO_EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend"
)
DEFAULT_FROM_EMAIL = env.str("DJANGO_DEFAULT_FROM_EMAIL", default="domeng@localhost")
