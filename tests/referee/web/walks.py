"""Rounds the web form's tests play, as data (checked against the rules by the tests)."""

from __future__ import annotations

from typing import Any

# A round to a CEKI with a PASSEBUNGE on the way: (seat, tile, end tapped second or None).
# Seat 3 passes at move 3 (+2 stones from the table, R23a); seat 0 goes out with its fifth
# tile, 2-3 on the 2 end, leaving ends (3, 3): MAPPAKULING with a non-double = CEKI (R15);
# CUCUQ seat 4 receives 3 (R23b). Only 5-6, 1-2 and 2-3 fit two open ends of different
# values, so only they take a second tap (R11).
CEKI_WITH_A_PASS: list[tuple[int, str | None, int | None]] = [
    (0, "6-6", None),
    (1, "1-6", None),
    (2, "1-3", None),
    (3, None, None),
    (4, "3-3", None),
    (0, "0-3", None),
    (1, "2-6", None),
    (2, "0-6", None),
    (3, "2-4", None),
    (4, "4-5", None),
    (0, "5-6", 6),
    (1, "5-5", None),
    (2, "2-5", None),
    (3, "1-5", None),
    (4, "1-2", 2),
    (0, "1-4", None),
    (1, "3-4", None),
    (2, "0-1", None),
    (3, "0-2", None),
    (4, "2-2", None),
    (0, "2-3", 2),
]
# Scenario 05's round up to its block: ends (6, 6), every seat passes, MANGUNO seat 1.
BLOCKED = [
    {"seat": 0, "tile": "6-6"},
    {"seat": 1, "tile": "3-6"},
    {"seat": 2, "tile": "2-3"},
    {"seat": 3, "tile": "2-6", "on": 2},
    {"seat": 4, "tile": "4-6"},
    {"seat": 0, "tile": "4-5"},
    {"seat": 1, "tile": "5-6", "on": 5},
    *({"seat": seat, "pass": True} for seat in (2, 3, 4, 0, 1)),
]


def record_move(seat: int, tile: str | None, end: int | None) -> dict[str, Any]:
    """A ``CEKI_WITH_A_PASS`` step as a move in record form."""
    if tile is None:
        return {"seat": seat, "pass": True}
    return {"seat": seat, "tile": tile, **({"on": end} if end is not None else {})}
