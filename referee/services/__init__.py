"""Writes to stored games, one concern a module; every write to one game takes its row lock.

- ``guard``: who writes (``Actor``), the version a write may apply at (``Precondition``),
  the one lock (``guard.lock``) and the checks under it, the refusal log.
- ``probes``: refusals and undos that could reveal a declared hand (R31), counted.
- ``games``: a game created (R3, R40), imported from a record, exported, closed.
- ``tables``: join codes, table tokens, seats released.
- ``verification``: a second seat confirms or disputes a settled round.
- ``corrections``: corrections of any round and the organiser's rulings (R35–R38).
- ``events``: moves, declared hands and reveals entered (with the fast path), undos,
  sittings (R27).
- ``computer``: computer seats (R39).

Each service locks the game row (``SELECT … FOR UPDATE`` on PostgreSQL), checks the
client's version and ``Idempotency-Key``, folds the change through the rules core and
stores it through ``referee.store`` (the only place a game's version moves) — the event,
the refused attempt, the cached state and the idempotent answer all in one transaction.
Services take and return domain values and know nothing of HTTP: a write returns what
it stored and caused (``Submitted``, ``Undone``, ``SessionChanged``, ``Corrected``, …) or,
for a retried ``Idempotency-Key``, the answer stored the first time
(``referee.idempotency.Replay``).

This package's own names are the public services below; callers may also use the
modules themselves (``from referee.services import corrections``).
"""

from referee.services import guard, probes  # noqa: I001 -- in layer order
from referee.services import games, tables, verification
from referee.services import corrections, events, computer
from referee.services.games import (
    PLAYER_NAME_MAX_LENGTH,
    Closed,
    game_close,
    game_create,
    game_export,
    game_export_rounds,
    game_import,
)
from referee.services.guard import (
    REFUSED_ITEMS_MAX,
    REFUSED_TEXT_MAX,
    Actor,
    Precondition,
    bounded_payload,
)
from referee.services.events import (
    AFTER_EVENT_HOOKS,
    SessionChanged,
    Submitted,
    Undone,
    event_amend,
    event_submit,
    event_undo,
    session_end,
    session_start,
)
from referee.services.tables import (
    join_code_check,
    normalise_join_code,
    notice_dismiss,
    seat_release,
    table_join,
    table_leave,
    table_tokens,
    token_revoke,
)

__all__ = [
    "AFTER_EVENT_HOOKS",
    "PLAYER_NAME_MAX_LENGTH",
    "REFUSED_ITEMS_MAX",
    "REFUSED_TEXT_MAX",
    "Actor",
    "Closed",
    "Precondition",
    "SessionChanged",
    "Submitted",
    "Undone",
    "bounded_payload",
    "computer",
    "corrections",
    "event_amend",
    "event_submit",
    "event_undo",
    "events",
    "game_close",
    "game_create",
    "game_export",
    "game_export_rounds",
    "game_import",
    "games",
    "guard",
    "join_code_check",
    "normalise_join_code",
    "notice_dismiss",
    "probes",
    "seat_release",
    "session_end",
    "session_start",
    "table_join",
    "table_leave",
    "table_tokens",
    "tables",
    "token_revoke",
    "verification",
]
