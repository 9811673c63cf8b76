"""Errors of the stored-game services that are not rule violations.

Each has an HTTP ``status``, a stable snake_case ``code``, a translatable
``title`` (the problem type's summary: no rule is involved, so not "Refused by
the rules") and ``detail``; ``extra`` members (e.g. the current ``state`` after
a version conflict) are added to the problem body, and ``retry_after`` (seconds)
becomes a ``Retry-After`` header. Rule violations are the core's
``referee.engine.errors.RefereeError`` instead.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from referee.engine.errors import RefereeError


class ServiceError(Exception):
    """A request the services refuse for a reason outside the rules."""

    status = 409
    code = "conflict"
    title: Any = _("Conflict")
    default_detail: Any = _("The request conflicts with the game's state.")

    def __init__(self, detail: Any = None, *, retry_after: int | None = None, **extra: Any) -> None:
        self.detail = str(detail if detail is not None else self.default_detail)
        self.retry_after = retry_after
        self.extra = extra
        super().__init__(self.detail)


class GameClosed(ServiceError):
    status = 409
    code = "game_closed"
    title = _("Game closed")
    default_detail = _("This game is closed: no more events can be entered.")


class VersionMismatch(ServiceError):
    """The client saw an older version of the game (If-Match / expected_version)."""

    status = 409
    code = "version_mismatch"
    title = _("Version mismatch")
    default_detail = _("The game has changed since you last saw it; nothing was applied.")


class PreconditionFailed(VersionMismatch):
    """Like ``VersionMismatch`` but from an ``If-Match`` header (HTTP 412)."""

    status = 412


class IdempotencyKeyReused(ServiceError):
    status = 422
    code = "idempotency_key_reused"
    title = _("Idempotency key reused")
    default_detail = _("This Idempotency-Key was already used with a different request.")


class SeatedElsewhere(ServiceError):
    """A registered player already sits in another open game (R38): ``game`` (the API's
    body names it) and ``player``, the player's name, which only the pages show."""

    status = 409
    code = "player_seated_elsewhere"
    title = _("Player seated elsewhere")
    default_detail = _("This player already sits in another open game.")

    def __init__(
        self, detail: Any = None, *, game: str = "", player: str = "", **extra: Any
    ) -> None:
        if game:
            extra["game"] = game
        super().__init__(detail, **extra)
        self.game = game
        self.player = player


class SeatNotAllowed(ServiceError):
    status = 403
    code = "seat_not_allowed"
    title = _("Seat not allowed")
    default_detail = _("This phone is joined to another seat.")


class NothingToUndo(ServiceError):
    status = 409
    code = "nothing_to_undo"
    title = _("Nothing to undo")
    default_detail = _("There is no event to undo.")


class EventNotAmendable(ServiceError):
    status = 409
    code = "event_not_amendable"
    title = _("Event not amendable")
    default_detail = _("Only a live event of the current round can be amended.")


class JoinCodeInvalid(ServiceError):
    status = 404
    code = "join_code_invalid"
    title = _("Join code invalid")
    default_detail = _("No open game has this join code.")


class JoinLockedOut(ServiceError):
    status = 429
    code = "join_locked_out"
    title = _("Locked out")
    default_detail = _("Too many wrong join codes: try again later.")


class SessionState(ServiceError):
    status = 409
    code = "session_state"
    title = _("Session state")
    default_detail = _("No session is open.")


class SeatNotComputer(ServiceError):
    status = 409
    code = "seat_not_computer"
    title = _("Seat not a computer")
    default_detail = _("This seat is played by a person, not by the computer (R39).")


class RoundInPlay(ServiceError):
    status = 409
    code = "round_in_play"
    title = _("Round in play")
    default_detail = _("A seat becomes a computer or a person again only between rounds (R39).")


class NoComputerTurn(ServiceError):
    status = 409
    code = "no_computer_turn"
    title = _("No computer turn")
    default_detail = _(
        "No computer seat is to move now, or its hand for this round is not entered yet (R39)."
    )


class SeatIsComputer(ServiceError):
    status = 409
    code = "seat_is_computer"
    title = _("Seat is a computer")
    default_detail = _("The computer plays this seat: no phone may join it (R39).")


class SeatTaken(ServiceError):
    """A seat is claimed by one phone at a time; the organiser or the table's scorekeeper
    releases it, or its phone leaves."""

    status = 409
    code = "seat_taken"
    title = _("Seat taken")
    default_detail = _(
        "Another phone has this seat. The organiser can release it, or that phone can "
        "leave the table."
    )


class OrganiserOnly(ServiceError):
    """Closing the game, tokens, corrections of earlier rounds and rulings (R35–R38)."""

    status = 403
    code = "organiser_only"
    title = _("Organiser only")
    default_detail = _("Only the game's organiser may do this.")


class PreconditionRequired(ServiceError):
    """RFC 6585: this write must say which version it was made on (``If-Match``)."""

    status = 428
    code = "precondition_required"
    title = _("Precondition required")
    default_detail = _('Send If-Match with the state\'s ETag ("<version>") to do this.')


class TokenNotFound(ServiceError):
    status = 404
    code = "token_not_found"
    title = _("Token not found")
    default_detail = _("This game has no such live table token.")


class TokenRevoked(ServiceError):
    """The phone's table token was revoked (or its seat released, or the phone left) while
    its request was on the way: checked again under the game's lock, so nothing it sends
    after the revocation is stored. The same code as a revoked token at authentication."""

    status = 401
    code = "authentication_failed"
    title = _("Token revoked")
    default_detail = _("This phone's table token was revoked: nothing was applied. Join again.")


class ProbeLimited(ServiceError):
    """Too many refusals against declared hands, or undos of another seat's moves (R31)."""

    status = 429
    code = "probe_limited"
    title = _("Too many attempts")
    default_detail = _(
        "Too many refused or undone moves against declared hands from this phone: try again "
        "later. The organiser and the seats concerned have been told."
    )


class RequestTooLarge(ServiceError):
    status = 413
    code = "request_too_large"
    title = _("Body over the limit")
    default_detail = _("The request body is too large.")


class RecordTooLong(ServiceError):
    """The public scoring endpoint replays at most ``SCORE_MAX_ROUNDS`` rounds a request."""

    status = 413
    code = "record_too_long"
    title = _("Record too long")
    default_detail = _("This record has more rounds than one request may score.")


def referee_message(err: RefereeError) -> str:
    """The rules core's message in the active language: its template through gettext, or
    ngettext for a plural-aware one (R-numbers, tiles and players' names as the core gave)."""
    return err.render(gettext, ngettext)
