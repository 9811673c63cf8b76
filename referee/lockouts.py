"""Lockouts against guessing join codes, counted in Django's cache (the database).

Only wrong codes count (a right code is never throttled). Guessing is limited per
guesser, not per address (issue 27, finding 8): a club's phones share one address (NAT),
and one of them guessing must not keep the others, or a brand-new phone, from joining.

- **Per device**: a phone's signed ``domeng_device`` cookie at its address
  (``client_ident``: ``REMOTE_ADDR``, or the address ``NUM_PROXIES`` proxies back in
  ``X-Forwarded-For``) may make ``JOIN_LOCKOUT_FAILURES`` wrong codes per window.
  Requests without a valid cookie share one device of their address ("").
- **Newcomers on probation**: once an address has made ``JOIN_LOCKOUT_FAILURES`` wrong
  codes in its window, someone behind it is guessing. From then until the window ends,
  a device cookie issued after that moment — and the cookieless bucket — may make only
  ``JOIN_LOCKOUT_NEW_DEVICE_FAILURES`` wrong codes: a guesser that drops its cookie gets
  no fresh budget, while a brand-new phone typing the right code still joins. The cookie
  carries the time it was issued (signed), so this costs no write when it is issued.
- **Per address**, the last line: ``JOIN_LOCKOUT_ADDRESS_FAILURES`` wrong codes from all
  its devices together lock the whole address. Sized by the join-code space (32**10
  codes): a whole year of one address guessing at that ceiling finds one of a thousand
  open games with a probability under 1 in 5,000 (docs/threat-model.md).

An organiser lifts an address's lockouts (a new generation of all its counters). The
counts live in ``CACHES["default"]``, a database table: every worker sees the same counts
and a restart keeps them.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
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


def new_device_id(now: float | None = None) -> str:
    """A fresh device id, ``<random>.<milliseconds since the epoch it was issued>``."""
    issued_ms = int((time.time() if now is None else now) * 1000)
    return f"{secrets.token_urlsafe(16)}.{issued_ms}"


def device_issued_at(device: str) -> float | None:
    """The time (seconds since the epoch) a device id was issued; ``None`` for an id issued
    before ids carried it (such a phone is no newcomer)."""
    _, dot, issued_ms = device.rpartition(".")
    if not dot or not issued_ms.isascii() or not issued_ms.isdigit() or len(issued_ms) > 15:
        return None
    return int(issued_ms) / 1000


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
        issued = new_device_id()
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


def _keys(client: JoinClient) -> tuple[str, str]:
    """The cache keys of the phone's and of its address's failure windows."""
    base = f"join-fail:{_generation(client.address)}:{client.address}"
    return f"{base}:device:{client.device}", f"{base}:address"


def _guessing_since(address_window: dict[str, Any] | None) -> float | None:
    """When the address's open window reached ``JOIN_LOCKOUT_FAILURES`` wrong codes (from
    then on someone behind it is guessing), else ``None``."""
    if address_window is None or address_window["until"] <= time.time():
        return None
    since = address_window.get("guessing_since")
    return float(since) if since is not None else None


def on_probation(client: JoinClient, address_window: dict[str, Any] | None = None) -> bool:
    """Whether the phone is a newcomer at an address that is being guessed from: its
    address reached ``JOIN_LOCKOUT_FAILURES`` wrong codes in its window, and the phone sends
    no valid cookie or one issued after that moment (``device_issued_at``)."""
    if address_window is None:
        address_window = cache.get(_keys(client)[1])
    since = _guessing_since(address_window)
    if since is None:
        return False
    if not client.device:
        return True
    issued_at = device_issued_at(client.device)
    return issued_at is not None and issued_at >= since


def device_limit(client: JoinClient, address_window: dict[str, Any] | None = None) -> int:
    """The wrong codes the phone may make in its window: ``JOIN_LOCKOUT_FAILURES``, or
    ``JOIN_LOCKOUT_NEW_DEVICE_FAILURES`` for a newcomer on probation (``on_probation``)."""
    if on_probation(client, address_window):
        return min(settings.JOIN_LOCKOUT_NEW_DEVICE_FAILURES, settings.JOIN_LOCKOUT_FAILURES)
    return int(settings.JOIN_LOCKOUT_FAILURES)


def window_left(key: str, limit: int) -> int | None:
    """The whole seconds left of the window counted under ``key`` if it reached ``limit``
    (at least 1), else ``None``."""
    return _left(cache.get(key), limit)


def _left(window: dict[str, Any] | None, limit: int) -> int | None:
    now = time.time()
    if window is None or window["until"] <= now or window["count"] < limit:
        return None
    return max(1, math.ceil(window["until"] - now))


def window_add(key: str, seconds: int) -> int:
    """Count one more under ``key`` in a window that the first count opens for ``seconds``;
    the count so far."""
    return int(_window_add(key, seconds)["count"])


def _window_add(key: str, seconds: int, *, mark_at: int | None = None) -> dict[str, Any]:
    """``window_add``, answering the window; with ``mark_at``, the window records when its
    count reached it (``guessing_since``)."""
    now = time.time()
    window = cache.get(key)
    if window is None or window["until"] <= now:
        window = {"count": 0, "until": now + seconds}
    window["count"] += 1
    if mark_at is not None and window["count"] >= mark_at and "guessing_since" not in window:
        window["guessing_since"] = now
    cache.set(key, window, max(1, math.ceil(window["until"] - now)))
    return window


def serialise_attempts(address: str) -> None:
    """Make the join attempts of ``address`` take turns until the caller's transaction ends
    (PostgreSQL: a transaction-level advisory lock on the address; elsewhere a no-op, as
    SQLite has one writer at a time anyway). A guesser's parallel requests would otherwise
    all pass ``join_lockout_check`` before any of their failures is counted, and counts
    written at once would overwrite each other."""
    if connection.vendor != "postgresql":
        return
    digest = hashlib.sha256(f"join-attempts:{address}".encode()).digest()
    key = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def join_lockout_check(client: JoinClient) -> None:
    """Raise ``join_locked_out`` (429, ``retry_after``: seconds left of the window) if the
    phone made its wrong codes of the window (``device_limit``) or its whole address made
    ``JOIN_LOCKOUT_ADDRESS_FAILURES``."""
    device_key, address_key = _keys(client)
    address_window = cache.get(address_key)
    for window, limit in (
        (cache.get(device_key), device_limit(client, address_window)),
        (address_window, settings.JOIN_LOCKOUT_ADDRESS_FAILURES),
    ):
        if (left := _left(window, limit)) is not None:
            raise JoinLockedOut(retry_after=left)


def join_failure_record(client: JoinClient) -> None:
    """Count one wrong code against the phone and its address (a window opens with the
    first failure and lasts ``JOIN_LOCKOUT_SECONDS``). The address's window notes when it
    reached ``JOIN_LOCKOUT_FAILURES``: newcomers from then on are on probation."""
    device_key, address_key = _keys(client)
    _window_add(device_key, settings.JOIN_LOCKOUT_SECONDS)
    _window_add(address_key, settings.JOIN_LOCKOUT_SECONDS, mark_at=settings.JOIN_LOCKOUT_FAILURES)


def join_lockout_lift(address: str) -> None:
    """Forget every failure counted against ``address`` (all its phones)."""
    key = f"join-gen:{address}"
    cache.set(key, _generation(address) + 1, None)
