"""The events a table enters: a play or a pass (R7–R11)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.engine.tiles import Tile


@dataclass(frozen=True, slots=True)
class Play:
    """Seat ``seat`` (0–4) puts ``tile`` on the open end showing ``on`` (R7, R11).

    ``on`` may be ``None`` where it can be inferred (R11); it is ignored for a lead.
    """

    seat: int
    tile: Tile
    on: int | None = None

    is_pass = False

    def to_dict(self) -> dict[str, Any]:
        """The move as in a ``domeng-record/1`` record (``on`` only when given)."""
        data: dict[str, Any] = {"seat": self.seat, "tile": str(self.tile)}
        if self.on is not None:
            data["on"] = self.on
        return data


@dataclass(frozen=True, slots=True)
class Pass:
    """Seat ``seat`` (0–4) passes: it holds no tile matching an open end (R9)."""

    seat: int

    is_pass = True

    def to_dict(self) -> dict[str, Any]:
        """The move as in a ``domeng-record/1`` record."""
        return {"seat": self.seat, "pass": True}


Move = Play | Pass
