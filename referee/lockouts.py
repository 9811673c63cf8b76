"""Lockouts against guessing join codes, counted in Django's cache (the database).

Only wrong codes count (a right code is never throttled). Failures are counted
per phone — its address (``client_ident``: ``REMOTE_ADDR``, or the address
``NUM_PROXIES`` proxies back in ``X-Forwarded-For``) and its device cookie —
so that one phone typing wrong behind a club's NAT locks out that phone only;
and per address, with a far higher ceiling, so that a client dropping its
cookie gains nothing. An organiser lifts an address's lockouts (a new
generation of its counters). The counts live in ``CACHES["default"]``, a
database table: every worker sees the same counts and a restart keeps them.
"""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from referee.exceptions import JoinLockedOut

DEVICE_COOKIE = "domeng_device"
DEVICE_COOKIE_SALT = "referee.lockouts.device"
DEVICE_COOKIE_MAX_AGE = 365 * 24 * 3600


@dataclass(frozen=True)
class JoinClient:
    """Who tries a join code: an address, the device cookie it sent ("" without one) and,
    without one, the device id its answer gives it (``issued``, ``device_issued``)."""

    address: str
    device: str = ""
    issued: str = ""


def device_of(request: HttpRequest) -> str:
    """The device id of the request's signed ``domeng_device`` cookie, or "" (none, forged)."""
    value = request.get_signed_cookie(DEVICE_COOKIE, default="", salt=DEVICE_COOKIE_SALT)
    return value if isinstance(value, str) and len(value) <= 64 else ""


def device_issued(request: HttpRequest) -> str:
    """The device id that ``give_device`` sets on the answer to a request that sent no
    valid device cookie, chosen once per request; "" for a request that sent one. A join
    records it (R31: a phone that joins again with the cookie its first join got is the
    same client)."""
    if device_of(request):
        return ""
    plain = getattr(request, "_request", request)  # DRF's request wraps Django's
    issued = getattr(plain, "_domeng_device_issued", "")
    if not issued:
        issued = secrets.token_urlsafe(16)
        setattr(plain, "_domeng_device_issued", issued)  # noqa: B010 -- set once, read back above
    return str(issued)


def give_device(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Set a device cookie on ``response`` unless the request had a valid one: the id
    ``device_issued`` chose for it."""
    if not device_of(request):
        response.set_signed_cookie(
            DEVICE_COOKIE,
            device_issued(request),
            salt=DEVICE_COOKIE_SALT,
            max_age=DEVICE_COOKIE_MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )
    return response


def _generation(address: str) -> int:
    return int(cache.get(f"join-gen:{address}", 0))


def _counters(client: JoinClient) -> list[tuple[str, int]]:
    """The (cache key, limit) of the phone's and of its address's failure counters."""
    base = f"join-fail:{_generation(client.address)}:{client.address}"
    return [
        (f"{base}:device:{client.device}", settings.JOIN_LOCKOUT_FAILURES),
        (f"{base}:address", settings.JOIN_LOCKOUT_ADDRESS_FAILURES),
    ]


def window_left(key: str, limit: int) -> int | None:
    """The whole seconds left of the window counted under ``key`` if it reached ``limit``
    (at least 1), else ``None``."""
    window = cache.get(key)
    now = time.time()
    if window is None or window["until"] <= now or window["count"] < limit:
        return None
    return max(1, math.ceil(window["until"] - now))


def window_add(key: str, seconds: int) -> int:
    """Count one more under ``key`` in a window that the first count opens for ``seconds``;
    the count so far."""
    now = time.time()
    window = cache.get(key)
    if window is None or window["until"] <= now:
        window = {"count": 0, "until": now + seconds}
    window["count"] += 1
    cache.set(key, window, max(1, math.ceil(window["until"] - now)))
    return int(window["count"])


def join_lockout_check(client: JoinClient) -> None:
    """Raise ``join_locked_out`` (429, ``retry_after``: seconds left of the window) if the
    phone or its whole address had too many wrong codes in the window."""
    for key, limit in _counters(client):
        if (left := window_left(key, limit)) is not None:
            raise JoinLockedOut(retry_after=left)


def join_failure_record(client: JoinClient) -> None:
    """Count one wrong code against the phone and its address (a window opens with the
    first failure and lasts ``JOIN_LOCKOUT_SECONDS``)."""
    for key, _limit in _counters(client):
        window_add(key, settings.JOIN_LOCKOUT_SECONDS)


def join_lockout_lift(address: str) -> None:
    """Forget every failure counted against ``address`` (all its phones)."""
    key = f"join-gen:{address}"
    cache.set(key, _generation(address) + 1, None)
