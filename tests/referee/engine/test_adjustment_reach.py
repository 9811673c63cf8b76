"""How far an adjustment reaches (R36, R27, issue 29): the ground a ruling's re-judge may
stop on.

An adjustment after round k moves stones and nothing else; the plays after it are the
record's. Each later round is judged from the standing before it (R27: table, stones,
CAMAT, next leader), so once a round j >= k ends with the standing it had without the
adjustment (an election resetting every stone, R24–R25, is the usual way back), every
round after j is judged exactly as before. A refusal (a later lead by a seat that is no
longer the leader, R6) can only come while the standings still differ.
"""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.engine.simulation import random_record

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def adjusted(draw) -> tuple[dict, dict, int]:
    """A record of random legal play, its replay, and the round k (1-based) after which
    one adjustment (R36) that its giver can pay was added to the record."""
    record = random_record(
        random.Random(draw(st.integers(0, 2**32 - 1))),
        rounds=draw(st.integers(2, 60)),
        declare_probability=draw(st.sampled_from([0.0, 0.2])),
        pips_probability=draw(st.sampled_from([0.0, 0.3, 1.0])),
    )
    result = replay_record(record)
    closed = [
        index
        for index, entry in enumerate(result["rounds"][:-1])
        if entry["ending"] is not None and entry["after"]["next_leader"] is not None
    ]
    index = draw(st.sampled_from(closed or [0]))
    after = result["rounds"][index]["after"]
    holders = (["table"] if after["table"] else []) + [
        seat for seat in range(5) if after["stones"][seat]
    ]
    if not holders or not closed:
        return record, result, 0
    giver = draw(st.sampled_from(holders))
    held = after["table"] if giver == "table" else after["stones"][giver]
    receiver = draw(st.sampled_from([x for x in ("table", 0, 1, 2, 3, 4) if x != giver]))
    stones = draw(st.integers(1, held))
    changed = copy.deepcopy(record)
    changed["rounds"][index].setdefault("adjustments", []).append(
        {"from": giver, "to": receiver, "stones": stones, "reason": "a ruling"}
    )
    return changed, result, index + 1


def _first_same(rounds: list[dict], before: list[dict], k: int) -> int | None:
    """The first round j >= k (1-based) that ends with the standing it had before."""
    return next(
        (j for j in range(k, len(rounds) + 1) if rounds[j - 1]["after"] == before[j - 1]["after"]),
        None,
    )


@SETTINGS
@given(adjusted())
def test_the_rounds_after_the_standing_comes_back_are_judged_as_before_R36_R27(case):
    record, before, k = case
    if k == 0:
        event("no round to adjust")
        return
    try:
        after = replay_record(record)["rounds"]
    except RefereeError as error:
        # Refused by a later round: every round from k to the one before it still ends
        # with another standing than it had (R6: the leader moved with the stones).
        refused = error.to_dict()["round"]
        assert refused > k
        cut = {**record, "rounds": record["rounds"][: refused - 1]}
        rounds = replay_record(cut)["rounds"]
        assert _first_same(rounds, before["rounds"], k) is None
        event("refused by a later round")
        return
    old = before["rounds"]
    assert after[: k - 1] == old[: k - 1]
    same = _first_same(after, old, k)
    if same is not None:
        assert after[same:] == old[same:]
    event("the standing came back" if same is not None else "a standing of its own to the end")
