"""Ratings over CAMAT cycles: the model, one cycle's ranks, and ranks of a sorted list.

Pure Python (no Django): ``scoring.selectors.club_ratings`` reads the cycles
from ``SeatRound`` and folds them here.

The model is OpenSkill's Weng–Lin **Bradley–Terry with full pairing**: every
pair of seats of a cycle is one comparison, and two seats with equal stones
are a draw between them. OpenSkill's Plackett–Luce, used before, mishandles
ties: after a cycle with stones held 5, 6, 5, 9 it rated the player who held 6
above the two who held 5 (their shared rank shrank their σ less). Stones are
penalties (R22: fewer is better), so the rule this model keeps — tested as a
Hypothesis property over random cycles — is: among players rated equally
before a cycle, one who held more stones never ends above one who held fewer,
and equal stones end equal.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import BradleyTerryFull

MODEL_NAME = "openskill.BradleyTerryFull"


def rating_model() -> BradleyTerryFull:
    """The ratings model, with OpenSkill's defaults (μ 25, σ 25/3)."""
    return BradleyTerryFull()


@dataclass(frozen=True, slots=True)
class CycleSeat:
    """One seat at the end of a CAMAT cycle: who sat it (``None``: a guest), whether they
    were elected CAMAT (R24) and the stones they held before the reset (R25)."""

    player: Hashable | None
    camat: bool
    stones_held: int

    @property
    def place(self) -> int:
        """The seat's place in the cycle (lower is better): the CAMAT 0, else 1 + stones."""
        return 0 if self.camat else 1 + self.stones_held


def rate_cycle(model: Any, ratings: dict[Any, Any], seats: Sequence[CycleSeat]) -> None:
    """Rate one cycle as a five-seat free-for-all and store the players' new ratings.

    ``ratings`` maps a player to its rating and is updated in place; a guest
    (``player`` ``None``) or a player not in it plays with a fresh default
    rating. Equal places are ties (draws).
    """
    teams = [[ratings.get(s.player) or model.rating()] for s in seats]  # guests: never kept
    rated = model.rate(teams, ranks=[s.place for s in seats])
    for seat, [rating] in zip(seats, rated, strict=True):
        if seat.player is not None:
            ratings[seat.player] = rating


def competition_ranks(values: Iterable[Any]) -> list[int]:
    """Ranks of already-sorted ``values``: equal values share a rank, the next skips
    (standard competition ranking: ``[9, 7, 7, 3]`` → ``[1, 2, 2, 4]``)."""
    ranks: list[int] = []
    previous: Any = object()
    for index, value in enumerate(values, 1):
        ranks.append(ranks[-1] if ranks and value == previous else index)
        previous = value
    return ranks
