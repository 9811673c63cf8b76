"""Settings for the test suite: PostgreSQL (pytest-django creates the test database)."""

from .base import *  # noqa: F403
from .base import database_from_env, env

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="django-insecure-test-only")
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]

DATABASES = {"default": database_from_env("postgres://postgres@127.0.0.1:5432/domeng")}

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
