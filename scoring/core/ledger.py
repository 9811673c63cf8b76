"""Who holds the penalty stones: the table and seats 0–4 (R22–R25).

Stones are whole numbers. At every moment ``table + sum(stones)`` equals the
rule set's ``starting_stones`` and nobody holds a negative number (R23).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

TABLE: Literal["table"] = "table"
"""The source of stones that come from the table rather than from a seat."""

SEATS = 5


@dataclass(frozen=True, slots=True)
class Transfer:
    """Stones moving to seat ``to`` (0–4; the table only for an adjustment) from the
    table or a seat.

    ``move`` is the 0-based index of the pass that caused it, or ``None`` for
    an end-of-round award or an adjustment; ``reason`` is one of ``pass``,
    ``passebunge``, ``cappu``, ``ceki``, ``pollo``, ``manguno``, ``mattikkeng``,
    ``adjustment`` (an organiser's ruling, R36).
    """

    move: int | None
    source: int | Literal["table"]
    to: int | Literal["table"]
    stones: int
    reason: str

    def to_dict(self) -> dict[str, object]:
        """The transfer as in a ``domeng-result/1`` result."""
        return {
            "move": self.move,
            "from": self.source,
            "to": self.to,
            "stones": self.stones,
            "reason": self.reason,
        }


_TRANSFERS: dict[tuple[int | None, int | str, int | str, int, str], Transfer] = {}
"""Transfers made so far, by their fields: immutable values, reused rather than built at
every pass (a frozen dataclass costs more to build than to look up). Bounded by the moves
of a round × the seats and the table × the stones a rule set gives × the reasons."""

_TRANSFERS_KEPT = 100_000
"""Beyond this many (odd rule sets with large stakes), transfers are built, not kept."""


def transfer(
    move: int | None,
    source: int | Literal["table"],
    to: int | Literal["table"],
    stones: int,
    reason: str,
) -> Transfer:
    """``Transfer(move, source, to, stones, reason)``, the same object for the same fields."""
    key = (move, source, to, stones, reason)
    made = _TRANSFERS.get(key)
    if made is None:
        made = Transfer(move, source, to, stones, reason)
        if len(_TRANSFERS) < _TRANSFERS_KEPT:
            _TRANSFERS[key] = made
    return made


@dataclass(slots=True)
class Ledger:
    """Stones on the table and held by each seat (R22)."""

    total: int = 25
    table: int = 25
    stones: list[int] = field(default_factory=lambda: [0] * SEATS)

    @classmethod
    def starting(cls, total: int) -> Ledger:
        """A new game's ledger: ``total`` stones on the table, none with the players (R22)."""
        return cls(total=total, table=total, stones=[0] * SEATS)

    def copy(self) -> Ledger:
        return Ledger(total=self.total, table=self.table, stones=list(self.stones))

    def award(
        self,
        *,
        to: int,
        stones: int,
        shortfall_from: Sequence[int],
        reason: str,
        move: int | None = None,
    ) -> list[Transfer]:
        """Seat ``to`` receives up to ``stones``, the shortfall from ``shortfall_from`` (R23).

        ``to`` takes min(stones, table) from the table. What is still missing
        is handed over one stone at a time by the givers in the order given,
        in turn, skipping those who hold none, until it is met or no giver
        holds a stone; what they cannot cover lapses (R23, R23d). A giver who
        is ``to`` itself gives nothing (R23a's closing pass). Returns the
        transfers, the table's part first, then one per giver in order;
        transfers of 0 stones are left out.
        """
        transfers: list[Transfer] = []
        from_table = stones if stones <= self.table else self.table
        if from_table:
            self.table -= from_table
            self.stones[to] += from_table
            transfers.append(transfer(move, TABLE, to, from_table, reason))
        shortfall = stones - from_table
        if not shortfall:
            return transfers
        if len(shortfall_from) == 1:  # one giver (a pass, R23a; a CAPPU, R23b): no rota
            giver = shortfall_from[0]
            held = self.stones[giver] if giver != to else 0
            paid = shortfall if shortfall <= held else held
            if paid:
                self.stones[giver] -= paid
                self.stones[to] += paid
                transfers.append(transfer(move, giver, to, paid, reason))
            return transfers
        givers = [seat for seat in dict.fromkeys(shortfall_from) if seat != to]
        given = dict.fromkeys(givers, 0)
        while shortfall > 0:
            paying = [seat for seat in givers if self.stones[seat] > given[seat]]
            if not paying:
                break  # what the givers cannot cover lapses (R23)
            for seat in paying:
                if shortfall == 0:
                    break
                given[seat] += 1
                shortfall -= 1
        for seat in givers:
            if given[seat]:
                self.stones[seat] -= given[seat]
                self.stones[to] += given[seat]
                transfers.append(transfer(move, seat, to, given[seat], reason))
        return transfers

    def holding(self, holder: int | Literal["table"]) -> int:
        """The stones held by a seat (0–4) or by the table."""
        return self.table if holder == TABLE else self.stones[int(holder)]

    def move(
        self, *, source: int | Literal["table"], to: int | Literal["table"], stones: int
    ) -> Transfer:
        """Move ``stones`` from ``source`` to ``to`` as an adjustment (R36).

        The caller has checked that ``source`` holds them: stones stay conserved.
        """
        assert source != to and 0 < stones <= self.holding(source)
        if source == TABLE:
            self.table -= stones
        else:
            self.stones[int(source)] -= stones
        if to == TABLE:
            self.table += stones
        else:
            self.stones[int(to)] += stones
        return Transfer(None, source, to, stones, "adjustment")

    def reset(self) -> None:
        """Every stone goes back to the table (R25)."""
        self.table = self.total
        self.stones = [0] * SEATS

    def is_conserved(self) -> bool:
        """Whether table + all seats = the total and nobody is negative (R23)."""
        return (
            self.table >= 0
            and all(s >= 0 for s in self.stones)
            and self.table + sum(self.stones) == self.total
        )
