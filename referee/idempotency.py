"""The ``Idempotency-Key`` store: a retried write gets its first answer and applies once.

A write that carries a key (``Idempotency``) is looked up under the game's row lock
(``replay_of``): the first answer stored under that key for that game comes back as a
``Replay``, and a key sent again with another request is ``idempotency_key_reused``
(422). Otherwise the service writes, and ``remember`` stores the answer in the same
transaction: a write that is rolled back leaves no answer behind, and an answer is
never stored without its write. A move's fast path (``referee.services.event_submit``,
no lock) looks nothing up: it stores the answer in the same statement as the event
(``referee.store.append_event``), and a key already stored makes that whole statement
fail on the key's unique constraint, so the locked path replays it.

What an answer is belongs to the caller, not to the services: the API renders a
service's result as its JSON body and status, the phone pages as what their
flash needs. Each gives ``render`` with its key; a key is replayed only to the
caller that stored it (its fingerprint names the request, and each caller's keys
have their own prefix: ``web:…``, ``computer:…``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import IntegrityError, transaction

from referee.engine.errors import RefereeError
from referee.exceptions import IdempotencyKeyReused
from referee.models import Game, IdempotencyRecord

Result = TypeVar("Result")

Rendered = tuple[int, dict[str, Any]]
"""An answer as stored: ``(status, body)``, the body a JSON object."""


@dataclass(frozen=True)
class Replay:
    """The answer stored for a retried request's ``Idempotency-Key``: nothing was written.

    ``status`` and ``body`` are what the first request's caller rendered (``render``).
    """

    status: int
    body: dict[str, Any]


@dataclass(frozen=True)
class Idempotency(Generic[Result]):
    """An ``Idempotency-Key``, the fingerprint of the request that carried it, and how its
    caller renders a service's ``Result`` as the answer to store (``(status, body)``)."""

    key: str
    fingerprint: str
    render: Callable[[Result], Rendered]
    # How a refusal by the rules is kept for a retry (``remember_refusal``); ``None``: not
    # kept, a retry is judged again.
    refuse: Callable[[RefereeError], Rendered] | None = None

    @staticmethod
    def fingerprint_of(method: str, path: str, body: Any) -> str:
        """A SHA-256 hex digest of the request: ``method``, ``path`` and ``body`` (any JSON;
        other values by ``str``). A retry must send the same three."""
        raw = json.dumps([method, path, body], sort_keys=True, default=str)
        return hashlib.sha256(raw.encode()).hexdigest()


def scope_of(game: Game) -> str:
    """The scope of ``game``'s keys in ``IdempotencyRecord.scope``: ``game:<id>``."""
    return f"game:{game.pk}"


def replay_of(game: Game, idempotency: Idempotency[Any] | None) -> Replay | None:
    """The stored answer to ``idempotency``'s key in ``game``, or ``None`` (a first request).

    Call it with the game's row lock held, before anything is checked or written.
    Raises ``idempotency_key_reused`` (422) when the key was stored for another request
    (another fingerprint).
    """
    if idempotency is None:
        return None
    stored = IdempotencyRecord.objects.filter(scope=scope_of(game), key=idempotency.key).first()
    if stored is None:
        return None
    if stored.fingerprint != idempotency.fingerprint:
        raise IdempotencyKeyReused()
    return Replay(stored.status_code, stored.body)


def remember(game: Game, idempotency: Idempotency[Result] | None, result: Result) -> None:
    """Store ``result``, rendered by ``idempotency.render``, as the answer to its key.

    Call it in the transaction that wrote ``result``, with the game's row lock held: the
    answer is committed or rolled back with the write. Nothing without a key.
    """
    if idempotency is None:
        return
    _store(game, idempotency, idempotency.render(result))


def remember_refusal(game: Game, idempotency: Idempotency[Any] | None, error: RefereeError) -> None:
    """Store the rules' refusal of the request, rendered by ``idempotency.refuse``, as the
    answer to its key, with the game's row lock held and in the transaction that logged
    the refusal: a retry of a lost answer gets the same refusal, and is neither judged nor
    logged nor counted again (a probe of a declared hand, R31, counts once: QA, a phone
    resending on bad Wi-Fi was limited for one mistake). Nothing without a key or a way
    to render it."""
    if idempotency is None or idempotency.refuse is None:
        return
    _store(game, idempotency, idempotency.refuse(error))


def _store(game: Game, idempotency: Idempotency[Any], answer: Rendered) -> None:
    """Keep ``answer`` under ``idempotency``'s key in ``game``'s scope (the lock held)."""
    status, body = answer
    try:
        with transaction.atomic():
            IdempotencyRecord.objects.create(
                scope=scope_of(game),
                key=idempotency.key,
                fingerprint=idempotency.fingerprint,
                status_code=status,
                body=body,
            )
    except IntegrityError:  # pragma: no cover - the game lock makes this unreachable
        raise IdempotencyKeyReused() from None
