"""The tiles as the pages draw them: a domino's halves, pips and open ends in SVG units, and
one tile of a picker with what a tap on it does (reads nothing).

Tiles are named ``a-b`` (``TILE_NAMES``: the 28 of a set, in order).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext, gettext_noop

from referee.engine import ALL_TILES

TILE_NAMES = tuple(str(tile) for tile in ALL_TILES)

# Where the pips of a value sit on a 3 × 3 grid (column, row) inside one half.
_SPOTS: dict[int, tuple[tuple[int, int], ...]] = {
    0: (),
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
}
HALF = 50  # one half of a domino is HALF × HALF SVG units
_GRID = (12, 25, 38)


@dataclass(frozen=True)
class Domino:
    """A tile as drawn: ``first`` is the left (or top, ``vertical``) half."""

    name: str
    first: int
    second: int
    vertical: bool = False
    first_is_end: bool = False
    second_is_end: bool = False

    @property
    def label(self) -> str:
        """The tile as laid, e.g. ``4-3`` (the chain reads left to right)."""
        return f"{self.first}-{self.second}"

    @property
    def width(self) -> int:
        return HALF if self.vertical else 2 * HALF

    @property
    def height(self) -> int:
        return 2 * HALF if self.vertical else HALF

    @property
    def pips(self) -> list[tuple[int, int]]:
        """Every pip's centre in SVG units."""
        spots: list[tuple[int, int]] = []
        for index, value in enumerate((self.first, self.second)):
            dx, dy = (0, index * HALF) if self.vertical else (index * HALF, 0)
            spots.extend((dx + _GRID[col], dy + _GRID[row]) for col, row in _SPOTS[value])
        return spots

    @property
    def divider(self) -> tuple[int, int, int, int]:
        """The line between the halves: x1, y1, x2, y2."""
        if self.vertical:
            return (6, HALF, HALF - 6, HALF)
        return (HALF, 6, HALF, HALF - 6)

    @property
    def ends(self) -> list[tuple[int, int]]:
        """The top-left corner of each half that is an open end (to highlight it)."""
        corners = []
        for index, is_end in enumerate((self.first_is_end, self.second_is_end)):
            if is_end:
                corners.append((0, index * HALF) if self.vertical else (index * HALF, 0))
        return corners


# A tile that cannot be tapped says why in its name and with a mark, not only in grey:
# on the table already, not playable now, or (at a reveal) not one the seat can hold.
TILE_STATE_WORDS = {
    "played": gettext_noop("%(tile)s: already played"),
    "blocked": gettext_noop("%(tile)s: cannot be played now"),
    "impossible": gettext_noop("%(tile)s: cannot be held"),
}
TILE_STATE_MARKS = {"played": "✓", "blocked": "✕", "impossible": "⊘"}


@dataclass
class PickerTile:
    """One of the 28 tiles of the picker and what one tap on it does.

    ``state``: ``played`` (already in this round), ``blocked`` (cannot be played
    now), ``play`` (one tap enters it), ``choose_end`` (it fits both open ends
    with different values: a second tap names the end), ``choose_seat`` (the
    game's first lead: a second tap names the seat that leads); at a reveal,
    ``impossible`` (a tile the seat cannot hold, R32/R33). A tile that cannot be
    tapped carries its state in its name (``label``) and a ``mark``, not only in grey.
    """

    domino: Domino
    state: str
    ends: list[int] = field(default_factory=list)
    why: str = ""
    checked: bool = False

    @property
    def enabled(self) -> bool:
        return self.state in {"play", "choose_end", "choose_seat"}

    @property
    def label(self) -> str:
        """The tile's accessible name: its name, and why it cannot be tapped when it cannot."""
        words = TILE_STATE_WORDS.get(self.state)
        return gettext(words) % {"tile": self.domino.name} if words else self.domino.name

    @property
    def mark(self) -> str:
        """The glyph that tells a greyed-out tile's state apart by more than its shade."""
        return TILE_STATE_MARKS.get(self.state, "")


def domino(name: str) -> Domino:
    """The tile ``a-b`` as drawn flat, its lower value first."""
    low, high = (int(v) for v in name.split("-"))
    return Domino(name=name, first=low, second=high)
