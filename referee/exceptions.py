"""Errors of the stored-game services that are not rule violations.

Each has an HTTP ``status``, a stable snake_case ``code`` and a translatable
``detail``; ``extra`` members (e.g. the current ``state`` after a version
conflict) are added to the problem body. Rule violations are the core's
``referee.engine.errors.RefereeError`` instead.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _


class ServiceError(Exception):
    """A request the services refuse for a reason outside the rules."""

    status = 409
    code = "conflict"
    default_detail: Any = _("The request conflicts with the game's state.")

    def __init__(self, detail: Any = None, **extra: Any) -> None:
        self.detail = str(detail if detail is not None else self.default_detail)
        self.extra = extra
        super().__init__(self.detail)


class GameClosed(ServiceError):
    status = 409
    code = "game_closed"
    default_detail = _("This game is closed: no more events can be entered.")


class VersionMismatch(ServiceError):
    """The client saw an older version of the game (If-Match / expected_version)."""

    status = 409
    code = "version_mismatch"
    default_detail = _("The game has changed since you last saw it; nothing was applied.")


class PreconditionFailed(VersionMismatch):
    """Like ``VersionMismatch`` but from an ``If-Match`` header (HTTP 412)."""

    status = 412


class IdempotencyKeyReused(ServiceError):
    status = 422
    code = "idempotency_key_reused"
    default_detail = _("This Idempotency-Key was already used with a different request.")


class SeatNotAllowed(ServiceError):
    status = 403
    code = "seat_not_allowed"
    default_detail = _("This phone is joined to another seat.")


class NothingToUndo(ServiceError):
    status = 409
    code = "nothing_to_undo"
    default_detail = _("There is no event to undo.")


class EventNotAmendable(ServiceError):
    status = 409
    code = "event_not_amendable"
    default_detail = _("Only a live event of the current round can be amended.")


class JoinCodeInvalid(ServiceError):
    status = 404
    code = "join_code_invalid"
    default_detail = _("No open game has this join code.")


class JoinLockedOut(ServiceError):
    status = 429
    code = "join_locked_out"
    default_detail = _("Too many wrong join codes: try again later.")


class SessionState(ServiceError):
    status = 409
    code = "session_state"
    default_detail = _("No session is open.")
