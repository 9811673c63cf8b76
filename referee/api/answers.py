"""The API's answers to writes: a service's domain result rendered as JSON, status and ETag.

The services (``referee.services``: its ``events``, ``corrections``, ``verification``
modules) return what they stored and caused and know nothing of HTTP. A view renders that
result with one of this module's renderers — ``submitted`` (201 ``{event, effects,
state}``), ``undone`` and ``corrected`` (200 ``{correction, state}``), ``verified``
(200 ``{round, verification, state}``) — and ``respond`` sends it with the game's
``ETag``. A retried ``Idempotency-Key`` gets the first request's outcome back from the
service (``referee.idempotency.Replay``), which ``respond`` renders with the same
renderer, with ``Idempotent-Replayed: true`` and no ``ETag`` (the game may have moved on
since).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from django.conf import settings
from rest_framework import serializers
from rest_framework.response import Response

from referee import conditional, folding, selectors
from referee.api.problems import ProblemResponse, referee_problem
from referee.idempotency import Replay
from referee.models import Correction, Event, Game
from referee.services import Closed, SessionChanged, Submitted, Undone
from referee.services.corrections import Corrected, redacted
from referee.services.verification import Verified, verification_dict


class _OfAGame(Protocol):
    @property
    def game(self) -> Game: ...


Result = TypeVar("Result", bound=_OfAGame)

Rendered = tuple[int, dict[str, Any]]
"""An answer: ``(status, body)``, the body a JSON object."""


def respond(result: Result | Replay[Result], render: Callable[[Result], Rendered]) -> Response:
    """``result`` rendered, with the game's ``ETag`` (its version after the write).

    A ``Replay`` (a retried ``Idempotency-Key``: nothing written) is rendered from the
    first request's outcome, as that request was answered, with ``Idempotent-Replayed:
    true`` and no ``ETag`` (the game may have moved on since); a refusal kept for it is
    its problem again."""
    if isinstance(result, Replay):
        replayed = {"Idempotent-Replayed": "true"}
        if result.earlier is not None:  # stored, rendered, by an earlier release
            status, body = result.earlier
            if status >= 400:
                return ProblemResponse(body, headers=replayed)
            return Response(body, status=status, headers=replayed)
        if result.refusal is not None:
            return ProblemResponse(referee_problem(result.refusal), headers=replayed)
        assert result.outcome is not None
        status, body = render(result.outcome)
        return Response(body, status=status, headers=replayed)
    status, body = render(result)
    return Response(body, status=status, headers={"ETag": conditional.etag(result.game.version)})


def submitted(result: Submitted) -> Rendered:
    """201 ``{"event", "effects", "state"}``: the stored event (a declared hand's tiles
    left out, R31), what it caused and the state as the sender sees it."""
    return 201, {
        "event": event_dict(result.event, result.effect),
        "effects": result.effect.to_dict(),
        "state": result.state,
    }


def session_started(result: SessionChanged) -> Rendered:
    """201 ``{"number", "started_at"}``: the sitting started (R27)."""
    session = result.session
    return 201, {"number": session.number, "started_at": _when(session.started_at)}


def session_ended(result: SessionChanged) -> Rendered:
    """200 ``{"number", "started_at", "ended_at"}``: the sitting ended (R27)."""
    session = result.session
    ended = session.ended_at
    return 200, {
        "number": session.number,
        "started_at": _when(session.started_at),
        "ended_at": _when(ended) if ended is not None else None,
    }


def closed(result: Closed) -> Rendered:
    """200: the closed game's state."""
    return 200, selectors.game_state_for(result.game, organiser=True)  # closing: the organiser's


def undone(result: Undone) -> Rendered:
    """200 ``{"correction", "state"}``: the undo (the event it revoked) and the state."""
    correction = result.correction
    return 200, {
        "correction": {
            "kind": correction.kind,
            "entered_by": correction.entered_by,
            "created_at": _when(correction.created_at),
            "reason": correction.reason,
            "replaced": [event_dict(result.undone)],
            "replacement": event_dict(correction.replacement) if correction.replacement else None,
        },
        "state": result.state,
    }


def corrected(result: Corrected) -> Rendered:
    """200 ``{"correction", "state"}``: the correction (``null`` when nothing changed)."""
    correction = result.correction
    return 200, {
        "correction": correction_dict(correction) if correction is not None else None,
        "state": result.state,
    }


def verified(result: Verified) -> Rendered:
    """200 ``{"round", "verification", "state"}``: the round's verification as it stands."""
    return 200, {
        "round": result.round,
        "verification": verification_dict(result.verification),
        "state": result.state,
    }


def event_dict(event: Event, effect: folding.Effects | None = None) -> dict[str, Any]:
    """A stored event as the API shows it: position, kind, round, its payload (a declared
    hand's tiles left out, R31), author and time; with ``effect``, what it named and the
    stones it moved."""
    data: dict[str, Any] = {
        "position": event.position,
        "kind": event.kind,
        "round": event.round_number,
        **{k: v for k, v in event.payload.items() if not (event.kind == "hand" and k == "tiles")},
        "entered_by": event.entered_by,
        "created_at": _when(event.created_at) if event.created_at else None,
    }
    if effect is not None:
        data["named"] = effect.named
        data["transfers"] = effect.transfers
    return data


def correction_dict(correction: Correction) -> dict[str, Any]:
    """A correction as the API shows it: kind, author, time, reason and its changes."""
    return {
        "id": correction.pk,
        "kind": correction.kind,
        "entered_by": correction.entered_by,
        "created_at": _when(correction.created_at),
        "reason": correction.reason,
        "changes": redacted(correction.changes),
        "replaced": [event_dict(e) for e in correction.revoked.order_by("position")],
        "replacement": event_dict(correction.replacement) if correction.replacement else None,
    }


_DATETIME = serializers.DateTimeField()


def _when(moment: datetime) -> str:
    """A time as every other answer of the API spells it (DRF's ``DateTimeField``: ``…Z``
    in UTC), not ``isoformat``'s ``+00:00`` (QA: two spellings of one instant).

    A time in UTC, where the API speaks UTC (``TIME_ZONE``; it never activates another
    zone), is spelled without DRF's field: the same text at a fraction of the cost, once
    for every event answered (issue 14; tested against DRF's)."""
    if moment.tzinfo is UTC and settings.TIME_ZONE == "UTC":
        return moment.isoformat()[:-6] + "Z"
    return str(_DATETIME.to_representation(moment))
