"""Tiles of the double-six set (R1, R2).

A tile is ``a-b`` with 0 ≤ a ≤ b ≤ 6; ``6-4`` and ``4-6`` name the same tile.
Input may be written ``a-b``, ``a|b`` or ``[a|b]`` with the halves in either
order and no spaces; output is always ``a-b`` with the smaller half first.

A set of tiles can also be held as a bit mask, an ``int`` with ``tile.bit``
set for each tile in it (python-chess's bitboards): the round's questions
(played? sleeping? carrying a value the seat passed on?) are then one ``&``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from referee.engine.errors import TileInvalid, gettext_noop

HIGHEST_VALUE = 6
"""The highest half of a double-six set."""


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One tile ``low-high`` (0 ≤ low ≤ high ≤ 6). Pips = low + high (R1).

    ``bit`` is the tile's bit in a mask of tiles: ``1 << n`` where ``n`` (0–27) is
    the tile's place in the order ``0-0, 0-1, … 0-6, 1-1, … 6-6``, so masks list
    their tiles in that order and every mask fits one 30-bit digit of a Python int
    (the interpreter's fast path for ``&`` and ``|``).
    """

    low: int
    high: int
    bit: int = field(init=False, repr=False, compare=False)
    name: str = field(init=False, repr=False, compare=False)  # ``a-b``, as ``str`` gives it

    def __post_init__(self) -> None:
        if not (0 <= self.low <= self.high <= HIGHEST_VALUE):
            raise TileInvalid(
                gettext_noop("%(tile)s is not a tile of the double-six set"),
                tile=f"{self.low}-{self.high}",
            )
        place = self.low * (2 * HIGHEST_VALUE + 3 - self.low) // 2 + self.high - self.low
        object.__setattr__(self, "bit", 1 << place)
        object.__setattr__(self, "name", f"{self.low}-{self.high}")

    def __hash__(self) -> int:
        # Equal tiles have equal bits; an int hashes far faster than the fields' tuple.
        return self.bit

    @classmethod
    def parse(cls, text: object) -> Tile:
        """Parse ``a-b``, ``a|b`` or ``[a|b]`` (halves in either order).

        Raises ``TileInvalid`` (``tile_invalid``, R1) for anything else.
        """
        if isinstance(text, str):
            tile = TILE_SPELLINGS.get(text)
            if tile is not None:
                return tile
        elif isinstance(text, Tile):
            return text
        raise TileInvalid(
            gettext_noop("%(tile)s is not a tile: write a-b with halves 0 to 6"),
            tile=repr(text) if not isinstance(text, str) else text,
        )

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
        return self.name

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"


ALL_TILES: tuple[Tile, ...] = tuple(
    Tile(a, b) for a in range(HIGHEST_VALUE + 1) for b in range(a, HIGHEST_VALUE + 1)
)
"""The 28 tiles of the set, ordered ``0-0, 0-1, … 6-6``."""

TILE_SPELLINGS: dict[str, Tile] = {
    spelling: tile
    for tile in ALL_TILES
    for a, b in ((tile.low, tile.high), (tile.high, tile.low))
    for spelling in (f"{a}-{b}", f"{a}|{b}", f"[{a}|{b}]")
}
"""Every way R1 lets a tile be written (``a-b``, ``a|b``, ``[a|b]``, halves in either order)."""


def mask_of(tiles: Iterable[Tile]) -> int:
    """The bit mask of ``tiles`` (see ``Tile.bit``)."""
    mask = 0
    for tile in tiles:
        mask |= tile.bit
    return mask


def tiles_in(mask: int) -> list[Tile]:
    """The tiles of a bit mask, in the order ``0-0, 0-1, … 6-6``."""
    return [
        *_CHUNKS[0][mask & 127],
        *_CHUNKS[1][mask >> 7 & 127],
        *_CHUNKS[2][mask >> 14 & 127],
        *_CHUNKS[3][mask >> 21 & 127],
    ]


_CHUNKS: tuple[tuple[tuple[Tile, ...], ...], ...] = tuple(
    tuple(
        tuple(
            tile
            for place, tile in enumerate(ALL_TILES[7 * chunk : 7 * chunk + 7])
            if bits >> place & 1
        )
        for bits in range(128)
    )
    for chunk in range(4)
)
"""``_CHUNKS[c][bits]``: the tiles of places ``7c … 7c + 6`` whose bits are set in ``bits``
(a mask read 7 bits at a time: 4 look-ups instead of a test of each of the 28 tiles)."""

ALL_MASK = mask_of(ALL_TILES)
"""The mask of all 28 tiles."""

CARRYING: tuple[int, ...] = tuple(
    mask_of(t for t in ALL_TILES if t.carries(value)) for value in range(HIGHEST_VALUE + 1)
)
"""``CARRYING[v]``: the mask of the tiles with a half showing ``v`` (R7)."""

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
