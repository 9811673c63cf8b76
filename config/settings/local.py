"""Settings for a developer's machine: debug on, SQLite file in the checkout by default."""

from .base import *  # noqa: F403
from .base import BASE_DIR, database_from_env, env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="django-insecure-local-development-only")
# The laptop itself, plus the hosts the table's phones use to reach it (``make run`` with
# ``HOST=0.0.0.0 DJANGO_ALLOWED_HOSTS=192.168.1.20``: the laptop's address on the Wi-Fi).
ALLOWED_HOSTS = [
    "127.0.0.1",
    "localhost",
    "[::1]",
    *env.list("DJANGO_ALLOWED_HOSTS", default=[]),
]

# SQLite by default: ``database_from_env`` gives it a write-lock timeout, immediate write
# transactions and WAL (base.SQLITE_OPTIONS), so phones writing at once wait their turn.
DATABASES = {"default": database_from_env(f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
