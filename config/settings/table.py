"""Settings of ``make run``: the referee at a real table, on one laptop.

DEBUG off (the phones never see a debug page, whatever ``DJANGO_DEBUG`` says), the
SQLite file of the checkout by default (``DATABASE_URL`` to change it), static files
served by whitenoise under the WSGI server (waitress, ``manage.py serve``), and the
phones' hosts allowed: this machine's address on the local network (found, or
``DOMENG_LAN_HOST``), its host name, and ``DJANGO_ALLOWED_HOSTS``. Plain HTTP on
the Wi-Fi: no HTTPS redirect and no secure-only cookies (that is ``production``).
"""

import secrets
import socket

from referee.web.lan import lan_address

from .base import *  # noqa: F403
from .base import BASE_DIR, MIDDLEWARE, database_from_env, env

DEBUG = False


def _secret_key() -> str:
    """``DJANGO_SECRET_KEY``, else a key made once and kept beside the database (not in git)."""
    configured = env.str("DJANGO_SECRET_KEY", default="")
    if configured:
        return configured
    path = BASE_DIR / ".table-secret-key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()

_hostname = socket.gethostname()
ALLOWED_HOSTS = [
    "127.0.0.1",
    "localhost",
    "[::1]",
    _hostname,
    f"{_hostname}.local",
    *([lan] if (lan := lan_address()) else []),
    *env.list("DJANGO_ALLOWED_HOSTS", default=[]),
]

DATABASES = {"default": database_from_env(f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}

# whitenoise serves the static files (idiomorph, the page's script and CSS, Swagger UI)
# from the WSGI server itself, right after the security middleware. It finds them where
# the apps keep them, as ``runserver`` does: no ``collectstatic`` step before a game night.
WHITENOISE_USE_FINDERS = True
# Nothing is collected, so no ``STATIC_ROOT``: whitenoise would warn at every start that the
# (never made) ``staticfiles/`` is missing.
STATIC_ROOT = None  # type: ignore[assignment]  # base.py names a folder
WHITENOISE_AUTOREFRESH = False
_AFTER_SECURITY = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1
MIDDLEWARE = [
    *MIDDLEWARE[:_AFTER_SECURITY],
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[_AFTER_SECURITY:],
]
