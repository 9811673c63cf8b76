"""Settings shared by every environment; each value that varies is read through ``env``.

The environment-specific modules (local, test, production) set ``SECRET_KEY``,
``DEBUG``, ``ALLOWED_HOSTS`` and ``DATABASES``, each with its own defaults.
"""

from pathlib import Path

import dj_database_url
import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()


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

    A SQLite database gets ``SQLITE_OPTIONS`` (options given in the URL win).
    """
    if default is None:
        url = env.str("DATABASE_URL")
    else:
        url = env.str("DATABASE_URL", default=default)
    config = dj_database_url.parse(url, conn_max_age=env.int("CONN_MAX_AGE", default=0))
    if config.get("ENGINE") == "django.db.backends.sqlite3":
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
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
    "referee",
    "scoring",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "referee.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "referee.api.problems.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    # Phones use table tokens; organisers the session (browser) or a DRF token (scripts).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "referee.api.auth.TableTokenAuthentication",
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_RATES": {"join": env.str("JOIN_THROTTLE_RATE", default="30/min")},
    # How many proxies stand in front of the server: a client is told apart by the
    # address the last of them saw (X-Forwarded-For), or REMOTE_ADDR with none. 0 here,
    # so a forged X-Forwarded-For cannot dodge the join throttle and lockout.
    "NUM_PROXIES": env.int("DJANGO_NUM_PROXIES", default=0),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# Wrong join codes from one client (DRF's throttle ident) before ``join_locked_out`` (429),
# counted over a window of this many seconds from the first one. A club's phones often
# share one address (NAT), so the threshold is generous; the scoped throttle stays.
JOIN_LOCKOUT_FAILURES = env.int("JOIN_LOCKOUT_FAILURES", default=30)
JOIN_LOCKOUT_SECONDS = env.int("JOIN_LOCKOUT_SECONDS", default=600)

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
        "names the rule id (`rule`, e.g. `R7`) and where it happened (`round`, `move`)."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    # The shared components (Tile, Transfer, GameState, Problem…) first, then the enums.
    "POSTPROCESSING_HOOKS": [
        "referee.api.schema.add_components",
        "drf_spectacular.hooks.postprocess_schema_enums",
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
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}
