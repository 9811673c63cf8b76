"""The ``Idempotency-Key`` store: a retried write gets its first outcome and applies once.

A write that carries a key (``Idempotency``) is looked up under the game's row lock
(``replay_of``): the outcome stored under that key for that game comes back as a
``Replay`` — the first request's result as a value, rebuilt from what was stored, or the
rules' refusal of it — and a key sent again with another request is
``idempotency_key_reused`` (422). Otherwise the service writes, and ``remember`` stores
its result in the same transaction: a write that is rolled back leaves no outcome
behind, and an outcome is never stored without its write. A move's fast path
(``referee.services.events.event_submit``, no lock) looks nothing up: it stores the
outcome in the same statement as the event (``referee.store.append_event``), and a key
already stored makes that whole statement fail on the key's unique constraint, so the
locked path replays it.

What is stored is the service's own: each result type that a key can replay
(``Outcome``: ``Submitted``, ``Undone``, ``SessionChanged``, ``Closed``, ``Corrected``,
``Verified``) says how it is kept (``to_stored``, JSON) and rebuilt (``from_stored``),
registered by ``outcome`` under its ``outcome_kind``. No caller renders anything into the store: the
API renders a replayed result as it renders a fresh one (with ``Idempotent-Replayed:
true``), the phone pages say the tap counted once. A key is replayed only to the caller
that stored it (its fingerprint names the request, and each caller's keys have their
own prefix: ``web:…``, ``computer:…``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar
from uuid import UUID

from django.db import IntegrityError, models, transaction

from referee.engine import errors
from referee.engine.errors import RefereeError
from referee.exceptions import IdempotencyKeyReused
from referee.models import Game, IdempotencyRecord

Result = TypeVar("Result")
_M = TypeVar("_M", bound=models.Model)

REFUSED = "refused"
"""``IdempotencyRecord.outcome`` of a request the rules refused (kept for a retry)."""


class Outcome(Protocol):
    """A service's result a retried key gets again: kept as JSON, rebuilt for ``game``."""

    outcome_kind: ClassVar[str]

    def to_stored(self) -> dict[str, Any]: ...


OUTCOMES: dict[str, Callable[[Game, dict[str, Any]], Any]] = {}
"""Outcome name → how it is rebuilt (``from_stored``), filled in by ``outcome``."""

_T = TypeVar("_T")


def outcome(cls: type[_T]) -> type[_T]:
    """Register a result class (its ``outcome_kind``, ``to_stored``, ``from_stored``) as an
    outcome a retried key gets again."""
    OUTCOMES[cls.outcome_kind] = cls.from_stored  # type: ignore[attr-defined]
    return cls


@dataclass(frozen=True)
class Replay(Generic[Result]):
    """A retried request's ``Idempotency-Key``: nothing was written.

    ``outcome``: the first request's result (``Submitted``, ``Corrected`` …) as it was
    stored, its rows rebuilt unsaved from their stored fields and its ``state`` the state
    answered then; ``refusal``: the rules' refusal of it instead (kept, not judged again).
    ``earlier``: an answer stored by a release before outcomes were kept (its HTTP status
    and body as its caller rendered them), for a retry sent across the upgrade.
    """

    outcome: Result | None = None
    refusal: RefereeError | None = None
    earlier: tuple[int, dict[str, Any]] | None = None

    @property
    def refused(self) -> bool:
        """Whether the first request was refused by the rules."""
        if self.earlier is not None:
            return self.earlier[0] >= 400
        return self.refusal is not None


@dataclass(frozen=True)
class Idempotency:
    """An ``Idempotency-Key`` and the fingerprint of the request that carried it.

    ``keeps_refusals``: a refusal by the rules is kept for a retry (``remember_refusal``),
    which then gets it without being judged, logged or counted as a probe again (R31);
    otherwise a retry of a refused request is judged again.
    """

    key: str
    fingerprint: str
    keeps_refusals: bool = False

    @staticmethod
    def fingerprint_of(method: str, path: str, body: Any) -> str:
        """A SHA-256 hex digest of the request: ``method``, ``path`` and ``body`` (any JSON;
        other values by ``str``). A retry must send the same three."""
        raw = json.dumps([method, path, body], sort_keys=True, default=str)
        return hashlib.sha256(raw.encode()).hexdigest()


def scope_of(game: Game) -> str:
    """The scope of ``game``'s keys in ``IdempotencyRecord.scope``: ``game:<id>``."""
    return f"game:{game.pk}"


def replay_of(game: Game, idempotency: Idempotency | None) -> Replay[Any] | None:
    """The stored outcome of ``idempotency``'s key in ``game``, or ``None`` (a first request).

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
    return stored_replay(game, stored.outcome, stored.body, stored.status_code)


def stored_replay(
    game: Game, kind: str, body: dict[str, Any], status_code: int | None = None
) -> Replay[Any]:
    """The ``Replay`` of an outcome stored as ``kind`` and ``body`` for ``game``."""
    if kind == REFUSED:
        return Replay(refusal=refusal_from_stored(body))
    if kind in OUTCOMES:
        return Replay(outcome=OUTCOMES[kind](game, body))
    return Replay(earlier=(status_code or 200, body))  # stored by an earlier release


def remember(game: Game, idempotency: Idempotency | None, result: Outcome) -> None:
    """Store ``result`` as the outcome of its key.

    Call it in the transaction that wrote ``result``, with the game's row lock held: the
    outcome is committed or rolled back with the write. Nothing without a key.
    """
    if idempotency is None:
        return
    _store(game, idempotency, result.outcome_kind, result.to_stored())


def remember_refusal(game: Game, idempotency: Idempotency | None, error: RefereeError) -> None:
    """Store the rules' refusal of the request as the outcome of its key, with the game's
    row lock held and in the transaction that logged the refusal: a retry of a lost answer
    gets the same refusal, and is neither judged nor logged nor counted again (a probe of
    a declared hand, R31, counts once: QA, a phone resending on bad Wi-Fi was limited for
    one mistake). Nothing without a key or unless it ``keeps_refusals``."""
    if idempotency is None or not idempotency.keeps_refusals:
        return
    _store(game, idempotency, REFUSED, refusal_to_stored(error))


def _store(game: Game, idempotency: Idempotency, kind: str, body: dict[str, Any]) -> None:
    """Keep ``body`` under ``idempotency``'s key in ``game``'s scope (the lock held)."""
    try:
        with transaction.atomic():
            IdempotencyRecord.objects.create(
                scope=scope_of(game),
                key=idempotency.key,
                fingerprint=idempotency.fingerprint,
                outcome=kind,
                body=body,
            )
    except IntegrityError:  # pragma: no cover - the game lock makes this unreachable
        raise IdempotencyKeyReused() from None


# -- what is stored ------------------------------------------------------------------------


def row_to_stored(row: models.Model) -> dict[str, Any]:
    """A row's concrete fields as JSON (``attname`` → value; times in ISO 8601)."""
    data: dict[str, Any] = {}
    for field in row._meta.concrete_fields:
        value = getattr(row, field.attname)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, UUID):
            value = str(value)
        data[field.attname] = value
    return data


def row_from_stored(model: type[_M], data: dict[str, Any], **related: Any) -> _M:
    """The row ``row_to_stored`` kept, rebuilt unsaved (as read: not to be saved again)."""
    values = {}
    for field in model._meta.concrete_fields:
        if field.name in related:
            continue
        if field.attname in data:
            value = data[field.attname]
            values[field.attname] = field.to_python(value) if value is not None else None
    row = model(**values, **related)
    row._state.adding = False
    return row


def _refusal_classes() -> dict[str, type[RefereeError]]:
    """Code → the class that names it (``code`` in its own body), every subclass seen."""
    found: dict[str, type[RefereeError]] = {}
    pending: list[type[RefereeError]] = list(RefereeError.__subclasses__())
    while pending:
        cls = pending.pop()
        if "code" in vars(cls):
            found.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return found


def refusal_to_stored(error: RefereeError) -> dict[str, Any]:
    """A refusal by the rules as JSON: its code, rule, message template and parameters,
    round, move, what it contradicts and the seats' names (translated when shown)."""
    return {
        "code": error.code,
        "rule": error.rule,
        "template": str(error.template),
        "plural": error.plural,
        "number": error.number,
        "params": error.params,
        "round": error.round,
        "move": error.move,
        "contradicts": error.contradicts,
        "choices": error.choices,
        "names": list(error.names) if error.names is not None else None,
    }


def refusal_from_stored(data: dict[str, Any]) -> RefereeError:
    """The ``RefereeError`` ``refusal_to_stored`` kept, of its own class (``code``)."""
    cls = _refusal_classes().get(data.get("code", ""), errors.RecordInvalid)
    error = cls.__new__(cls)
    error.template = data["template"]
    error.plural = data.get("plural")
    error.number = data.get("number")
    error.params = dict(data.get("params") or {})
    error.names = tuple(data["names"]) if data.get("names") is not None else None
    if data.get("rule") is not None:
        error.rule = data["rule"]
    error.round = data.get("round")
    error.move = data.get("move")
    error.contradicts = data.get("contradicts")
    error.choices = data.get("choices")
    error.args = (error.message,)
    return error
