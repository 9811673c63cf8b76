"""Who may write to a stored game, and the one lock every write to it takes.

Every service of ``referee.services`` that changes a game goes through this module:
``lock`` (the game row, ``SELECT … FOR UPDATE`` on PostgreSQL, with a phone's table token
read again under it), ``check_open`` (the game is open and the client's version still
holds: ``game_closed`` 409, ``precondition_failed`` 412, ``version_mismatch`` 409),
``check_organiser`` (``organiser_only`` 403) and ``refusal_log`` (a refused event kept for
disputes, ``RefusedEvent``). ``Actor`` is who writes: an organiser or a phone's table
token; ``Precondition`` the version a write may apply at. Callers call ``guard.lock``
through this module, so replacing it (the paired race tests) replaces it for every
service.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils.translation import gettext

from referee import conditional, store
from referee.engine import RefereeError
from referee.exceptions import (
    GameClosed,
    OrganiserOnly,
    PreconditionFailed,
    SeatNotAllowed,
    TokenRevoked,
    VersionMismatch,
)
from referee.models import Game, RefusedEvent, TableToken
from referee.selectors import game_state_for


@dataclass(frozen=True)
class Actor:
    """Who is writing: an organiser (Django user) or a phone's table token."""

    user: AbstractBaseUser | AnonymousUser | None = None
    token: TableToken | None = None

    @property
    def label(self) -> str:
        if self.token is not None:
            return self.token.actor
        if self.user is not None and self.user.is_authenticated:
            return f"user {self.user.get_username()}"
        return "anonymous"

    @property
    def seat(self) -> int | None:
        """The seat this phone is joined to, or ``None`` (organiser, scorekeeper)."""
        return self.token.seat if self.token is not None else None

    @property
    def is_organiser(self) -> bool:
        """Whether the game's organiser writes (no table token; the caller checked access)."""
        return self.token is None and self.user is not None and self.user.is_authenticated

    def check_table_wide(self) -> None:
        """Raise ``seat_not_allowed`` (403) for a phone bound to one seat.

        Sittings are the organiser's or the table's scorekeeper's business, not
        one seat's (closing the game is the organiser's alone; releasing a seat is
        the organiser's or that seat's own phone's, ``release_detail``, R31).
        """
        if self.seat is not None:
            raise SeatNotAllowed(table_wide_detail())

    def check_seat(self, seat: object) -> None:
        """Raise ``seat_not_allowed`` (403) if a seat-bound phone enters for another seat.

        A ``seat`` that is not a whole number at all is left to the rules core, which
        refuses it as in a record (``record_invalid``, R3).
        """
        if self.seat is not None and _is_whole_number(seat) and seat != self.seat:
            raise SeatNotAllowed()

    def may_declare(self, seat: object) -> bool:
        """Only a phone joined to ``seat`` declares its hand (R31); a ``seat`` that is not a
        whole number is left to the rules core, as in ``check_seat``."""
        if self.token is None or self.seat is None:
            return False
        return not _is_whole_number(seat) or seat == self.seat


def _is_whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Precondition:
    """The versions a write may apply at, checked under the game's lock.

    ``version``: the one version the client saw — a body field (``expected_version``,
    the phone form's ``version``: 409 when stale), or with ``from_header`` an
    ``If-Match`` (412). ``conditions``: the request's ``If-Match`` (strong) and
    ``If-None-Match`` (weak) as ``referee.conditional`` parsed them. A failed
    header condition is 412, checked before ``version``.
    """

    version: int | None = None
    from_header: bool = False
    conditions: conditional.Conditions | None = None

    def headers_admit(self, version: int) -> bool:
        """Whether the conditional headers let a write proceed at ``version``."""
        if self.conditions is not None and not self.conditions.admits(version):
            return False
        return not (self.from_header and self.version is not None and self.version != version)

    @property
    def names_a_version_by_header(self) -> bool:
        """Whether the write came with an ``If-Match`` (parsed, or as ``from_header``)."""
        if self.conditions is not None and self.conditions.if_match is not None:
            return True
        return self.from_header and self.version is not None

    def admits(self, version: int) -> bool:
        """Whether a write may proceed at ``version`` (headers and body alike)."""
        return self.headers_admit(version) and self.version in (None, version)


def check_organiser(actor: Actor) -> None:
    """Raise ``organiser_only`` (403) for a phone (the caller checked the game's access)."""
    if actor.token is not None or actor.user is None or not actor.user.is_authenticated:
        raise OrganiserOnly()


# -- the lock and the checks under it --------------------------------------------------


def lock(game_id: Any, actor: Actor | None = None) -> Game:
    """The game row, locked until the transaction ends (serialises writes to one game).

    For a phone (``actor`` with a table token) its token is read again under the lock: a
    token revoked, released or left since the request authenticated raises
    ``TokenRevoked`` (401 ``authentication_failed``), and its probe count (R31) is the
    current one. Revoking takes the same lock (``_revoke``), so no write of a phone lands
    after its revocation returned.
    """
    game = store.lock(game_id)
    token = actor.token if actor is not None else None
    if token is not None:
        # A statement of its own, not joined to the lock's: PostgreSQL re-reads only the
        # locked row once a waited-for lock is granted, and a joined token row would keep
        # the count from before the request that held the lock (R31; issue 14 tried it,
        # test_probes_sent_at_once_get_no_more_answers_than_the_limit_R31 caught it).
        fresh = store.live_token_window(token.pk)
        if fresh is None:
            raise TokenRevoked()
        token.probes, token.probes_until = fresh
    return game


def check_open(game: Game, precondition: Precondition | None, actor: Actor) -> None:
    if game.status != Game.Status.OPEN:
        raise GameClosed()
    if precondition is not None and not precondition.admits(game.version):
        stale_header = not precondition.headers_admit(game.version)
        error = PreconditionFailed if stale_header else VersionMismatch
        raise error(
            state=game_state_for(
                game,
                viewer=actor.seat,
                viewer_label=actor.label,
                organiser=actor.is_organiser,
            )
        )


# -- refusals ----------------------------------------------------------------------

# A refused event's payload is kept for disputes, bounded: a string longer than this many
# characters, or a list longer than this many items, is cut (the log never grows by what
# a client chose to send).
REFUSED_TEXT_MAX = 64
REFUSED_ITEMS_MAX = 10


def bounded_payload(value: Any, *, depth: int = 0) -> Any:
    """``value`` with strings cut to ``REFUSED_TEXT_MAX`` characters (``…`` appended), lists
    and objects to ``REFUSED_ITEMS_MAX`` items, nesting to three levels."""
    if isinstance(value, str):
        return value if len(value) <= REFUSED_TEXT_MAX else value[:REFUSED_TEXT_MAX] + "…"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return "…"  # beyond what jsonb keeps exactly, and no seat, pip sum or value anyway
    if depth >= 3 and isinstance(value, (list, dict)):
        return "…"
    if isinstance(value, list):
        return [bounded_payload(v, depth=depth + 1) for v in value[:REFUSED_ITEMS_MAX]]
    if isinstance(value, dict):
        items = list(value.items())[:REFUSED_ITEMS_MAX]
        return {bounded_payload(str(k)): bounded_payload(v, depth=depth + 1) for k, v in items}
    return value


def refusal_log(
    game: Game, kind: str, payload: dict[str, Any], error: RefereeError, actor: Actor
) -> None:
    """Keep a refused event for disputes at the table: bounded payload, code, rule, detail."""
    RefusedEvent.objects.create(
        game=game,
        kind=kind,
        payload=bounded_payload(payload),
        code=error.code,
        rule=error.rule or "",
        detail=error.message[:500],
        entered_by=actor.label,
    )


def hand_detail() -> str:
    return gettext("Only a phone joined to this seat may declare its hand (R31).")


def hand_undo_detail() -> str:
    return gettext(
        "This hand can be undone only by the phone that declared it, or by the organiser (R31)."
    )


def hand_change_detail() -> str:
    return gettext(
        "This hand can be changed only by the phone that declared it, or by the organiser (R31)."
    )


def table_wide_detail() -> str:
    return gettext("Only the organiser or the table's scorekeeper may do this.")


def release_detail() -> str:
    return gettext(
        "A claimed seat is its phone's (R31): only the organiser or the seat's own phone "
        "may release it."
    )
