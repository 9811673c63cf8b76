"""The one reader of the settings' environment variables.

Every variable the settings read goes through ``Environment`` (the module-level
``env`` of ``config.settings.base``), which holds two promises:

- **empty means unset.** ``DATABASE_URL=`` (as ``.env`` and compose files often
  leave it) is the same as no ``DATABASE_URL`` at all: the default, or the
  "required" error when there is none;
- **a malformed value is one line naming the variable** (``ConfigurationError``,
  e.g. ``DJANGO_NUM_PROXIES must be a whole number >= 0, not 'one'``), never a
  traceback from deep inside a cast, and never a silent guess (``DJANGO_DEBUG=flase``
  is an error, not ``False``).

Values are taken literally: unlike ``django-environ``, a value starting with ``$``
is not looked up as another variable (a secret key may start with ``$``).
``manage.py``, ``wsgi.py`` and ``asgi.py`` print the error's one line and exit.
"""

from __future__ import annotations

import builtins
import os
import re
import zoneinfo
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")
_NOTSET: Any = object()

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
# DRF's rate grammar (``SimpleRateThrottle.parse_rate``): requests / s|m|h|d (+ any suffix).
_RATE_RE = re.compile(r"[0-9]+/[smhd][a-z]*")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigurationError(ImproperlyConfigured):
    """A settings variable that is required and unset, or set to a malformed value."""

    def __init__(self, variable: str, problem: str) -> None:
        self.variable = variable
        super().__init__(f"{variable} {problem}")


class Environment:
    """Typed reads of environment variables: ``env.int("X", default=3)``.

    Each method takes the variable's name and an optional ``default`` (when
    there is none, an unset or empty variable is a ``ConfigurationError``
    saying so). The methods mirror ``django-environ``'s names (``str``,
    ``int``, ``bool``, ``list``) so settings modules read the same.
    """

    def __init__(self, environ: Mapping[builtins.str, builtins.str] | None = None) -> None:
        self.environ = os.environ if environ is None else environ

    def raw(self, variable: builtins.str) -> builtins.str | None:
        """The variable's value with surrounding blanks removed; ``None`` if unset or empty."""
        value = self.environ.get(variable, "").strip()
        return value or None

    def _read(
        self,
        variable: builtins.str,
        default: Any,
        parse: Callable[[builtins.str], T],
        *,
        echo: builtins.bool = True,
    ) -> T:
        value = self.raw(variable)
        if value is None:
            if default is _NOTSET:
                raise ConfigurationError(variable, "must be set (it is unset or empty)")
            return default  # type: ignore[no-any-return]
        try:
            return parse(value)
        except ValueError as error:
            # A URL may hold a password: such a value is not repeated in the error.
            shown = f", not {value!r}" if echo else ""
            raise ConfigurationError(variable, f"{error}{shown}") from None

    def str(self, variable: builtins.str, default: Any = _NOTSET) -> Any:
        """The value as given (blanks around it removed)."""
        return self._read(variable, default, lambda value: value)

    def int(
        self,
        variable: builtins.str,
        default: Any = _NOTSET,
        *,
        minimum: builtins.int = 0,
        maximum: builtins.int | None = None,
    ) -> Any:
        """A whole number in ``minimum``…``maximum`` (decimal digits only; ≥ 0 by default)."""

        def parse(value: builtins.str) -> builtins.int:
            if not value.isascii() or not value.lstrip("-").isdigit() or len(value) > 18:
                raise ValueError(_range_text(minimum, maximum))
            number = int(value)
            if number < minimum or (maximum is not None and number > maximum):
                raise ValueError(_range_text(minimum, maximum))
            return number

        return self._read(variable, default, parse)

    def bool(self, variable: builtins.str, default: Any = _NOTSET) -> Any:
        """``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``, any case)."""

        def parse(value: builtins.str) -> builtins.bool:
            if value.lower() in _TRUE:
                return True
            if value.lower() in _FALSE:
                return False
            raise ValueError("must be true or false (1/0, yes/no, on/off)")

        return self._read(variable, default, parse)

    def time_zone(self, variable: builtins.str, default: Any = _NOTSET) -> Any:
        """An IANA time zone name this machine knows, spelt exactly (``Asia/Makassar``)."""

        def parse(value: builtins.str) -> builtins.str:
            if value not in zoneinfo.available_timezones():
                raise ValueError("must be an IANA time zone name such as Asia/Makassar")
            return value

        return self._read(variable, default, parse)

    def list(self, variable: builtins.str, default: Any = _NOTSET) -> Any:
        """Comma-separated items, blanks around each removed; an item may not be empty."""

        def parse(value: builtins.str) -> builtins.list[builtins.str]:
            items = [item.strip() for item in value.split(",")]
            if any(not item for item in items):
                raise ValueError("must be a comma-separated list without empty items")
            return items

        return self._read(variable, default, parse)

    def choice(
        self, variable: builtins.str, choices: tuple[builtins.str, ...], default: Any = _NOTSET
    ) -> Any:
        """One of ``choices`` (case-insensitive; returned as spelled in ``choices``)."""

        def parse(value: builtins.str) -> builtins.str:
            for choice in choices:
                if value.lower() == choice.lower():
                    return choice
            raise ValueError("must be one of " + ", ".join(choices))

        return self._read(variable, default, parse)

    def log_level(self, variable: builtins.str, default: Any = _NOTSET) -> Any:
        """A ``logging`` level name: DEBUG, INFO, WARNING, ERROR or CRITICAL."""
        return self.choice(variable, _LOG_LEVELS, default)

    def rate(self, variable: builtins.str, default: Any = _NOTSET) -> Any:
        """A DRF throttle rate: ``<requests>/<period>``, period s, m, h or d (``30/min``)."""

        def parse(value: builtins.str) -> builtins.str:
            if not _RATE_RE.fullmatch(value):
                raise ValueError("must be a rate such as 30/min (requests/s, m, h or d)")
            return value

        return self._read(variable, default, parse)

    def database(self, variable: builtins.str, default: Any = _NOTSET, **options: Any) -> Any:
        """A database URL parsed by ``dj-database-url`` (``postgres://…``, ``sqlite:///…``)."""

        def parse(value: builtins.str) -> dj_database_url.DBConfig:
            try:
                config = dj_database_url.parse(value, **options)
            except (ValueError, KeyError, TypeError):
                config = None
            if not config or not config.get("ENGINE") or not config.get("NAME"):
                raise ValueError(
                    "must be a database URL such as postgres://user@host:5432/name "
                    "or sqlite:///path/to/file.sqlite3"
                )
            return config

        if default is not _NOTSET and isinstance(default, str):
            default = dj_database_url.parse(default, **options)
        return self._read(variable, default, parse, echo=False)


def _range_text(minimum: int, maximum: int | None) -> str:
    if maximum is None:
        return f"must be a whole number >= {minimum}"
    return f"must be a whole number from {minimum} to {maximum}"


def exit_on_configuration_error(run: Callable[[], T]) -> T:
    """Call ``run``; a ``ConfigurationError`` ends the process with its one line (status 1)."""
    try:
        return run()
    except ConfigurationError as error:
        raise SystemExit(f"configuration error: {error}") from None
