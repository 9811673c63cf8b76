"""Tiles of the double-six set (R1, R2).

A tile is ``a-b`` with 0 ≤ a ≤ b ≤ 6; ``6-4`` and ``4-6`` name the same tile.
Input may be written ``a-b``, ``a|b`` or ``[a|b]`` with the halves in either
order and no spaces; output is always ``a-b`` with the smaller half first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from referee.engine.errors import TileInvalid, gettext_noop

_TILE_RE = re.compile(r"([0-6])-([0-6])|([0-6])\|([0-6])|\[([0-6])\|([0-6])\]")

HIGHEST_VALUE = 6
"""The highest half of a double-six set."""


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One tile ``low-high`` (0 ≤ low ≤ high ≤ 6). Pips = low + high (R1)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not (0 <= self.low <= self.high <= HIGHEST_VALUE):
            raise TileInvalid(
                gettext_noop("%(tile)s is not a tile of the double-six set"),
                tile=f"{self.low}-{self.high}",
            )

    @classmethod
    def parse(cls, text: object) -> Tile:
        """Parse ``a-b``, ``a|b`` or ``[a|b]`` (halves in either order).

        Raises ``TileInvalid`` (``tile_invalid``, R1) for anything else.
        """
        if isinstance(text, Tile):
            return text
        match = _TILE_RE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise TileInvalid(
                gettext_noop("%(tile)s is not a tile: write a-b with halves 0 to 6"),
                tile=repr(text) if not isinstance(text, str) else text,
            )
        a, b = (int(g) for g in match.groups() if g is not None)
        return _tile(min(a, b), max(a, b))

    @property
    def pips(self) -> int:
        """The tile's pips: low + high (R1)."""
        return self.low + self.high

    @property
    def values(self) -> tuple[int, int]:
        """Both halves, smaller first."""
        return (self.low, self.high)

    def is_double(self) -> bool:
        """Whether the tile is a LEMPA, a double (R2)."""
        return self.low == self.high

    def carries(self, value: int) -> bool:
        """Whether either half shows ``value``."""
        return self.low == value or self.high == value

    def carries_any(self, values: frozenset[int] | set[int] | tuple[int, ...]) -> bool:
        """Whether either half shows one of ``values``."""
        return self.low in values or self.high in values

    def other(self, value: int) -> int:
        """The half left open when the tile is put on an end showing ``value`` (R7)."""
        if value == self.low:
            return self.high
        if value == self.high:
            return self.low
        raise ValueError(f"{self} does not carry {value}")

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"


@cache
def _tile(low: int, high: int) -> Tile:
    return Tile(low, high)


ALL_TILES: tuple[Tile, ...] = tuple(
    _tile(a, b) for a in range(HIGHEST_VALUE + 1) for b in range(a, HIGHEST_VALUE + 1)
)
"""The 28 tiles of the set, ordered ``0-0, 0-1, … 6-6``."""

TILES_PER_HAND = 5
"""Each seat is dealt five tiles (R4)."""

SEATS = 5
"""Exactly five seats, 0–4 clockwise (R3)."""


def next_seat(seat: int) -> int:
    """The seat after ``seat`` clockwise (R3)."""
    return (seat + 1) % SEATS


def seat_before(seat: int) -> int:
    """The player before ``seat``: whose turn comes just before it (R3)."""
    return (seat - 1) % SEATS
