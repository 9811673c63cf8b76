"""Which stones move at a pass and at the end of a round, and when a CAMAT is elected.

R23a–R23e and R24–R25, applied to a ``Ledger``. Seats are 0–4; stones are
whole numbers; every function returns the transfers it made, in order.

The referee's engine calls these and never the reverse: what they read of a
rule set and of a round's outcome is spelled out below as protocols, which
``referee.engine``'s ``RuleSet`` and ``RoundOutcome`` meet (import-linter's
contracts in pyproject.toml keep ``scoring.core`` from importing the referee).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from scoring.core.ledger import SEATS, TABLE, Ledger, Transfer, transfer


class Stakes(Protocol):
    """The stones a rule set gives (R40); ``referee.engine.RuleSet`` is one."""

    @property
    def pass_stones(self) -> int: ...
    @property
    def passebunge_stones(self) -> int: ...
    @property
    def cucuq_stones(self) -> int: ...
    @property
    def ceki_stones(self) -> int: ...
    @property
    def pollo_stones(self) -> int: ...
    @property
    def manguno_stones(self) -> int: ...
    @property
    def manguno_reduced_stones(self) -> int: ...
    @property
    def closing_pass_counts(self) -> bool: ...


class Settled(Protocol):
    """What the awards read of a finished round; ``referee.engine.RoundOutcome`` is one.

    ``named`` holds the table's words for it (FIRST CAPPU, CEKI, POLLO, MANGUNO,
    MATTIKKENG, CUCUQ); seats are 0–4, ``remaining_pips`` five whole numbers.
    """

    @property
    def named(self) -> tuple[str, ...]: ...
    @property
    def first_cappu(self) -> int | None: ...
    @property
    def manguno(self) -> int | None: ...
    @property
    def mattikkeng(self) -> tuple[int, ...]: ...
    @property
    def cucuq(self) -> int | None: ...
    @property
    def remaining_pips(self) -> tuple[int, ...] | None: ...
    def is_settled(self) -> bool: ...


def pass_award(
    ledger: Ledger,
    rules: Stakes,
    *,
    seat: int,
    passebunge: bool,
    closing: bool,
    last_mappano: int,
    move: int,
) -> list[Transfer]:
    """The passing seat receives up to 1 stone (PASSEBUNGE: up to 2), the shortfall
    from the LAST MAPPANO (R23a).

    The MANGUNO's closing pass counts like any other (R23a Decision) unless the
    rule set switches ``closing_pass_counts`` off, when it receives nothing (R40).
    """
    return pass_awards(
        ledger,
        rules,
        ((move, seat, passebunge, last_mappano),),
        closing_move=move if closing else None,
    )


def pass_awards(
    ledger: Ledger,
    rules: Stakes,
    passes: Iterable[tuple[int, int, bool, int]],
    *,
    closing_move: int | None = None,
) -> list[Transfer]:
    """``pass_award`` for each pass ``(move, seat, passebunge, last_mappano)`` in order,
    the one at move ``closing_move`` being the MANGUNO's closing pass (R17, R23a).

    A round's passes in one call: the usual pass, which the table pays in full,
    costs no call of ``Ledger.award``.
    """
    transfers: list[Transfer] = []
    for move, seat, passebunge, last_mappano in passes:
        if move == closing_move and not rules.closing_pass_counts:
            continue
        stones = rules.passebunge_stones if passebunge else rules.pass_stones
        reason = "passebunge" if passebunge else "pass"
        if 0 < stones <= ledger.table:  # the table pays it all (R23): Ledger.award's first step
            ledger.table -= stones
            ledger.stones[seat] += stones
            transfers.append(transfer(move, TABLE, seat, stones, reason))
        else:
            transfers += ledger.award(
                to=seat, stones=stones, shortfall_from=(last_mappano,), reason=reason, move=move
            )
    return transfers


@dataclass(frozen=True)
class Award:
    """A settled round's end-of-round award (R23b–R23d): seat ``to`` (0–4) receives up to
    ``stones`` (whole stones), first from the table, the shortfall from the seats of
    ``shortfall_from`` in that order; ``reason`` is the transfers' reason (``cappu``,
    ``ceki``, ``pollo``, ``manguno``, ``mattikkeng``)."""

    to: int
    stones: int
    shortfall_from: tuple[int, ...]
    reason: str


def award_terms(rules: Stakes, outcome: Settled) -> Award:
    """What the end-of-round award of a settled round owes (R23b–R23d).

    FIRST CAPPU: the CUCUQ receives up to 1 / CEKI 3 / POLLO 5, shortfall
    from the FIRST CAPPU (R23b). Blocked without MATTIKKENG: the CUCUQ
    receives up to 1, shortfall from the MANGUNO (R23c). Blocked with
    MATTIKKENG: the MANGUNO receives up to 5 (up to 1 with more than one
    MATTIKKENG or one with exactly the MANGUNO's pips), the shortfall one
    stone at a time from each MATTIKKENG clockwise from the seat after the
    MANGUNO (R23d). Stakes from the rule set (R40).
    """
    named = outcome.named
    if "FIRST CAPPU" in named:
        assert outcome.first_cappu is not None and outcome.cucuq is not None
        if "POLLO" in named:
            stones, reason = rules.pollo_stones, "pollo"
        elif "CEKI" in named:
            stones, reason = rules.ceki_stones, "ceki"
        else:
            stones, reason = rules.cucuq_stones, "cappu"
        return Award(outcome.cucuq, stones, (outcome.first_cappu,), reason)
    manguno = outcome.manguno
    assert manguno is not None and outcome.remaining_pips is not None
    if not outcome.mattikkeng:
        assert outcome.cucuq is not None
        return Award(outcome.cucuq, rules.cucuq_stones, (manguno,), "manguno")
    pips = outcome.remaining_pips
    reduced = len(outcome.mattikkeng) > 1 or pips[outcome.mattikkeng[0]] == pips[manguno]
    clockwise = [(manguno + k) % SEATS for k in range(1, SEATS)]
    return Award(
        manguno,
        rules.manguno_reduced_stones if reduced else rules.manguno_stones,
        tuple(s for s in clockwise if s in outcome.mattikkeng),
        "mattikkeng",
    )


def round_award(ledger: Ledger, rules: Stakes, outcome: Settled) -> list[Transfer]:
    """The end-of-round award of a settled round (R23b–R23d, ``award_terms``), paid
    from ``ledger``: the transfers made (none of 0 stones; what nobody could give lapses,
    R23)."""
    if not outcome.is_settled():
        raise ValueError("a blocked round is awarded once every seat's pips are known")
    award = award_terms(rules, outcome)
    return ledger.award(
        to=award.to,
        stones=award.stones,
        shortfall_from=list(award.shortfall_from),
        reason=award.reason,
    )


def camat_election(ledger: Ledger, outcome: Settled) -> int | None:
    """Elect the FIRST CAPPU as CAMAT if the table and it hold no stones (R24), then
    put every stone back on the table (R25). Returns the elected seat or ``None``.

    A blocked round never elects.
    """
    if "FIRST CAPPU" not in outcome.named or outcome.first_cappu is None:
        return None
    if ledger.table == 0 and ledger.stones[outcome.first_cappu] == 0:
        ledger.reset()
        return outcome.first_cappu
    return None
