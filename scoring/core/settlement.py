"""Which stones move at a pass and at the end of a round, and when a CAMAT is elected.

R23a–R23e and R24–R25, applied to a ``Ledger``. Seats are 0–4; stones are
whole numbers; every function returns the transfers it made, in order.
"""

from __future__ import annotations

from referee.engine.errors import RulingInvalid, gettext_noop
from referee.engine.outcome import Ending, Finish, RoundOutcome
from referee.engine.rules import RuleSet
from scoring.core.ledger import SEATS, TABLE, Ledger, Transfer


def pass_award(
    ledger: Ledger,
    rules: RuleSet,
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
    if closing and not rules.closing_pass_counts:
        return []
    stones = rules.passebunge_stones if passebunge else rules.pass_stones
    return ledger.award(
        to=seat,
        stones=stones,
        shortfall_from=[last_mappano],
        reason="passebunge" if passebunge else "pass",
        move=move,
    )


def round_award(ledger: Ledger, rules: RuleSet, outcome: RoundOutcome) -> list[Transfer]:
    """The end-of-round award of a settled round (R23b–R23d).

    FIRST CAPPU: the CUCUQ receives up to 1 / CEKI 3 / POLLO 5, shortfall
    from the FIRST CAPPU (R23b). Blocked without MATTIKKENG: the CUCUQ
    receives up to 1, shortfall from the MANGUNO (R23c). Blocked with
    MATTIKKENG: the MANGUNO receives up to 5 (up to 1 with more than one
    MATTIKKENG or one with exactly the MANGUNO's pips), the shortfall one
    stone at a time from each MATTIKKENG clockwise from the seat after the
    MANGUNO (R23d).
    """
    if not outcome.is_settled():
        raise ValueError("a blocked round is awarded once every seat's pips are known")
    if outcome.ending is Ending.CAPPU:
        assert outcome.first_cappu is not None and outcome.cucuq is not None
        stones, reason = {
            Finish.PLAIN: (rules.cucuq_stones, "cappu"),
            Finish.CEKI: (rules.ceki_stones, "ceki"),
            Finish.POLLO: (rules.pollo_stones, "pollo"),
        }[outcome.finish or Finish.PLAIN]
        return ledger.award(
            to=outcome.cucuq, stones=stones, shortfall_from=[outcome.first_cappu], reason=reason
        )
    manguno = outcome.manguno
    assert manguno is not None and outcome.remaining_pips is not None
    if not outcome.mattikkeng:
        assert outcome.cucuq is not None
        return ledger.award(
            to=outcome.cucuq, stones=rules.cucuq_stones, shortfall_from=[manguno], reason="manguno"
        )
    pips = outcome.remaining_pips
    reduced = len(outcome.mattikkeng) > 1 or pips[outcome.mattikkeng[0]] == pips[manguno]
    clockwise = [(manguno + k) % SEATS for k in range(1, SEATS)]
    return ledger.award(
        to=manguno,
        stones=rules.manguno_reduced_stones if reduced else rules.manguno_stones,
        shortfall_from=[s for s in clockwise if s in outcome.mattikkeng],
        reason="mattikkeng",
    )


def camat_election(ledger: Ledger, outcome: RoundOutcome) -> int | None:
    """Elect the FIRST CAPPU as CAMAT if the table and it hold no stones (R24), then
    put every stone back on the table (R25). Returns the elected seat or ``None``.

    A blocked round never elects.
    """
    if outcome.ending is not Ending.CAPPU or outcome.first_cappu is None:
        return None
    if ledger.table == 0 and ledger.stones[outcome.first_cappu] == 0:
        ledger.reset()
        return outcome.first_cappu
    return None


def adjustment(ledger: Ledger, data: object) -> Transfer:
    """Apply an organiser's adjustment ``{"from", "to", "stones", "reason"}`` (R36).

    ``from``/``to`` are ``"table"`` or a seat 0–4, ``stones`` a whole number
    ≥ 1, ``reason`` a non-empty text. Nobody gives more than they hold, so
    stones stay conserved and nobody goes negative; no CAMAT is elected (R24
    is checked only at a round's end). Raises ``ruling_invalid`` (R36) for
    anything else; the ledger is unchanged then.
    """
    if not isinstance(data, dict) or set(data) != {"from", "to", "stones", "reason"}:
        raise RulingInvalid(
            gettext_noop('an adjustment is {"from", "to", "stones", "reason"}'), rule="R36"
        )
    source, to, stones, reason = data["from"], data["to"], data["stones"], data["reason"]
    for holder in (source, to):
        if holder != TABLE and (type(holder) is not int or not 0 <= holder < SEATS):
            raise RulingInvalid(
                gettext_noop('an adjustment moves stones between "table" and seats 0 to 4'),
                rule="R36",
            )
    if source == to:
        raise RulingInvalid(
            gettext_noop("an adjustment cannot give stones to the giver"), rule="R36"
        )
    if type(stones) is not int or stones < 1:
        raise RulingInvalid(gettext_noop("an adjustment moves at least 1 stone"), rule="R36")
    if not isinstance(reason, str) or not reason.strip():
        raise RulingInvalid(gettext_noop("an adjustment always carries its reason"), rule="R36")
    held = ledger.holding(source)
    if held < stones:
        if source == TABLE:
            raise RulingInvalid(
                gettext_noop("the table cannot give %(stones)s: it holds %(held)s"),
                rule="R36",
                held=held,
                stones=stones,
            )
        raise RulingInvalid(
            gettext_noop("seat %(seat)s cannot give %(stones)s: it holds %(held)s"),
            rule="R36",
            seat=source,
            held=held,
            stones=stones,
        )
    return ledger.move(source=source, to=to, stones=stones)
