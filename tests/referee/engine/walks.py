"""Worked walks shared by the engine tests: the CEKI walk, the blocked walk (S1) and helpers.

CEKI_WALK: 6-6 led by seat 0, every seat plays every turn; seat 0's fifth tile 1-6 on the
1 end leaves ends (6, 6): FIRST CAPPU with CEKI (R13, R15). BLOCKED_WALK: after seven
tiles both ends show 6 and the other sixes sleep; five passes from seat 2 make seat 1
the MANGUNO (R17). BLOCKED_REVEAL: seats 0–3's remaining tiles (seat 4 holds 29 pips).
"""

from __future__ import annotations

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]

CEKI_WALK = [
    "6-6", "5-6", "5-5", "4-5", "4-4", "3-4", "3-3", "2-3", "2-2", "1-2", "1-1",
    "0-1", "0-0", ("0-6", 0), "4-6", "2-4", "0-2", "0-5", "3-5", "1-3", ("1-6", 1),
]  # fmt: skip
BLOCKED_WALK = ["6-6", "3-6", "2-3", ("2-6", 2), "4-6", "4-5", ("5-6", 5)]
BLOCKED_REVEAL = {
    "0": ["0-3", "0-4", "0-5"],
    "1": ["0-0", "0-1", "0-2"],
    "2": ["1-1", "1-2", "1-3", "1-4"],
    "3": ["1-5", "2-2", "2-4", "2-5"],
}


def moves(walk: list, leader: int = 0) -> list[dict]:
    """Record moves for a walk of tiles (or ``(tile, on)``), seats clockwise from ``leader``."""
    result = []
    for i, step in enumerate(walk):
        tile, on = step if isinstance(step, tuple) else (step, None)
        move = {"seat": (leader + i) % 5, "tile": tile}
        if on is not None:
            move["on"] = on
        result.append(move)
    return result


def passes(first: int, count: int = 5) -> list[dict]:
    """``count`` passes clockwise from seat ``first``."""
    return [{"seat": (first + k) % 5, "pass": True} for k in range(count)]
