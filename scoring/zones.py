"""A club's time zone: what it may be (an IANA name) and the local dates and evenings it
gives to instants kept in UTC.

Every instant is stored and answered by the API in UTC (``USE_TZ``); a club's pages show
it in the club's zone (``Club.time_zone``), and "this evening" and the standings' date
filters (``played_after``, ``played_before``) are the club's local evening and dates.
"""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo
from contextlib import AbstractContextManager
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# The stable code of a refused zone, on the API (400 ``invalid``'s field error), the
# admin and the organiser's forms.
UNKNOWN_TIME_ZONE = "unknown_time_zone"
UNKNOWN_TIME_ZONE_TEXT = _("An IANA time zone name, such as Asia/Makassar or America/Montreal.")


# Files of the system's zone database that name no IANA zone: ``localtime`` is the
# server's own zone (whatever it is set to) and ``Factory`` a placeholder.
_NOT_ZONES = frozenset({"localtime", "Factory", "posixrules"})


@functools.cache
def _known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones()) - _NOT_ZONES


def time_zone_names() -> list[str]:
    """Every zone name ``is_time_zone`` accepts, sorted (the forms' choices)."""
    return sorted(_known_zones())


def time_zone_pattern() -> str:
    """A regular expression (ECMA 262 and Python alike) matching exactly the zone names
    ``is_time_zone`` accepts: the OpenAPI schema's ``pattern`` of a club's ``time_zone``.
    Zone names hold letters, digits, ``/``, ``_``, ``-`` and ``+`` (escaped here)."""
    names = (name.replace("+", "\\+") for name in sorted(_known_zones()))
    return "^(?:" + "|".join(names) + ")$"


def is_time_zone(name: object) -> bool:
    """Whether ``name`` is an IANA zone name known to this machine's time zone database,
    spelt exactly (``Asia/Makassar``; not ``asia/makassar``, a path or an offset)."""
    return isinstance(name, str) and name in _known_zones()


def default_time_zone() -> str:
    """A new club's zone: the server's ``TIME_ZONE`` setting."""
    return str(settings.TIME_ZONE)


def validate_time_zone(value: str) -> None:
    """The model's and forms' validator: an IANA zone name (``unknown_time_zone``)."""
    if not is_time_zone(value):
        raise ValidationError(UNKNOWN_TIME_ZONE_TEXT, code=UNKNOWN_TIME_ZONE)


def zone(name: str | None) -> dt.tzinfo:
    """The zone named ``name``; the server's (``TIME_ZONE``) for none or an unknown name."""
    if not is_time_zone(name):
        name = default_time_zone()
    return zoneinfo.ZoneInfo(str(name))


def day_start(day: dt.date, tz: dt.tzinfo) -> dt.datetime:
    """The instant local ``day`` begins in ``tz`` (its midnight; aware)."""
    return dt.datetime.combine(day, dt.time.min, tzinfo=tz)


def day_end(day: dt.date, tz: dt.tzinfo) -> dt.datetime:
    """The instant local ``day`` ends in ``tz``: the next day's midnight (excluded)."""
    return day_start(day + dt.timedelta(days=1), tz)


def club_time(club: Any) -> AbstractContextManager[None]:
    """Django's current time zone set to ``club``'s while a page of it is drawn
    (``timezone.override``: ``{{ …|date }}``, ``{{ …|time }}`` and ``localtime`` then show
    its local times; the zone before is restored after). ``None``: the server's."""
    return timezone.override(zone(getattr(club, "time_zone", None)))
