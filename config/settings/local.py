"""Settings for a developer's machine: debug on, SQLite file in the checkout by default."""

from .base import *  # noqa: F403
from .base import BASE_DIR, database_from_env, env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="django-insecure-local-development-only")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])

DATABASES = {"default": database_from_env(f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
