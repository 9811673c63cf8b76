"""How a round ended and who the named outcomes fall on (R14–R21)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from referee.engine.tiles import SEATS, seat_before
from scoring.core.settlement import Award, award_terms

# ``Award`` and ``award_terms``: what a settled round's award owes (R23), read by the pages.
__all__ = ["Award", "Ending", "Finish", "RoundOutcome", "award_terms"]


class Ending(enum.Enum):
    """How a round ended: a FIRST CAPPU (R14) or blocked with a MANGUNO (R17)."""

    CAPPU = "cappu"
    BLOCKED = "blocked"


class Finish(enum.Enum):
    """How the FIRST CAPPU went out: plain (R14), CEKI (R15) or POLLO (R16)."""

    PLAIN = "plain"
    CEKI = "ceki"
    POLLO = "pollo"


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """A finished round's named outcomes. Seats are 0–4, pips whole numbers.

    For a FIRST CAPPU round: ``first_cappu``, ``finish``, ``cucuq`` (R21),
    ``winner`` = ``first_cappu``. For a blocked round: ``manguno`` (R17) and,
    once every seat's remainder is known (R18), ``remaining_pips`` (five
    numbers), ``mattikkeng`` (ascending, R19), ``winner`` (R20) and ``cucuq``
    (R21, ``None`` with MATTIKKENG). While a blocked round waits for its
    reveals, those are ``None``/empty and ``is_settled()`` is false.

    ``named`` holds the named outcomes as the table calls them, e.g.
    ``("FIRST CAPPU", "CEKI", "CUCUQ")`` (worked out once, when the outcome is made).
    """

    ending: Ending
    finish: Finish | None = None
    first_cappu: int | None = None
    manguno: int | None = None
    mattikkeng: tuple[int, ...] = ()
    cucuq: int | None = None
    winner: int | None = None
    remaining_pips: tuple[int, ...] | None = None
    named: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "named", self._names())

    @classmethod
    def blocked(cls, *, manguno: int, remaining_pips: tuple[int, ...]) -> RoundOutcome:
        """The outcome of a blocked round once every seat's remaining pips are known.

        ``remaining_pips`` holds seats 0–4's pips (R18). MATTIKKENG are the
        other seats with pips ≤ the MANGUNO's (R19); the winner is the lowest
        of them, a tie going to the first clockwise from the seat after the
        MANGUNO (R20 Decision), else the MANGUNO; CUCUQ only without
        MATTIKKENG (R21).
        """
        mine = remaining_pips[manguno]
        mattikkeng = tuple(s for s in range(SEATS) if s != manguno and remaining_pips[s] <= mine)
        if mattikkeng:
            winner = manguno
            lowest = mine + 1
            for k in range(1, SEATS):  # clockwise from the seat after the MANGUNO
                seat = (manguno + k) % SEATS
                if remaining_pips[seat] < lowest:  # strictly: a tie stays with the earlier
                    winner, lowest = seat, remaining_pips[seat]
            cucuq = None
        else:
            winner = manguno
            cucuq = seat_before(manguno)
        return cls(
            ending=Ending.BLOCKED,
            manguno=manguno,
            mattikkeng=mattikkeng,
            cucuq=cucuq,
            winner=winner,
            remaining_pips=remaining_pips,
        )

    def is_settled(self) -> bool:
        """Whether the winner is known (always after a CAPPU; after the reveals if blocked)."""
        return self.winner is not None

    def _names(self) -> tuple[str, ...]:
        """The named outcomes as the table calls them, e.g. ``("FIRST CAPPU", "CEKI", "CUCUQ")``."""
        names: list[str] = []
        if self.ending is Ending.CAPPU:
            names.append("FIRST CAPPU")
            if self.finish is Finish.CEKI:
                names.append("CEKI")
            elif self.finish is Finish.POLLO:
                names.append("POLLO")
        else:
            names.append("MANGUNO")
            if self.mattikkeng:
                names.append("MATTIKKENG")
        if self.cucuq is not None:
            names.append("CUCUQ")
        return tuple(names)
