"""Property tests: random legal games keep every invariant of the rules.

Games are dealt and played legally by ``referee.engine.simulation`` from a
seed that Hypothesis draws, under random rule sets (R40), with declared
hands (R31), pip sums and tile reveals (R18), CAMAT elections (R24) and
games that stop mid-round.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.moves import Pass, Play
from referee.engine.records import Record, export_record, replay, replay_record
from referee.engine.rules import RuleSet
from referee.engine.simulation import random_record
from referee.engine.tiles import ALL_TILES, Tile

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

rule_sets = st.builds(
    RuleSet,
    starting_stones=st.integers(0, 40),
    pass_stones=st.integers(0, 3),
    passebunge_stones=st.integers(0, 4),
    cucuq_stones=st.integers(0, 3),
    ceki_stones=st.integers(0, 6),
    pollo_stones=st.integers(0, 8),
    manguno_stones=st.integers(0, 8),
    manguno_reduced_stones=st.integers(0, 3),
    closing_pass_counts=st.booleans(),
) | st.just(RuleSet())


@st.composite
def records(draw, *, max_rounds: int = 25) -> dict:
    seed = draw(st.integers(0, 2**32 - 1))
    return random_record(
        random.Random(seed),
        rounds=draw(st.integers(1, max_rounds)),
        rules=draw(rule_sets),
        declare_probability=draw(st.sampled_from([0.0, 0.0, 0.2, 1.0])),
        pips_probability=draw(st.sampled_from([0.0, 0.3, 1.0])),
        mixed_spellings=draw(st.booleans()),
        finish_last_round=draw(st.booleans()),
    )


def _rules(record: dict) -> RuleSet:
    return RuleSet.from_dict(record["rules"])


@SETTINGS
@given(records())
def test_stones_are_conserved_and_nobody_goes_negative_R22_R23(record):
    total = _rules(record).starting_stones
    table, stones = total, [0] * 5
    for rnd in replay_record(record)["rounds"]:
        for transfer in rnd["transfers"]:
            assert transfer["stones"] > 0
            if transfer["from"] == "table":
                table -= transfer["stones"]
            else:
                stones[transfer["from"]] -= transfer["stones"]
            stones[transfer["to"]] += transfer["stones"]
            assert table >= 0
            assert min(stones) >= 0
        if rnd["camat_elected"] is not None:  # R25: every stone back to the table
            assert table == 0
            assert stones[rnd["camat_elected"]] == 0
            table, stones = total, [0] * 5
        after = rnd["after"]
        assert (after["table"], after["stones"]) == (table, stones)
        assert after["table"] + sum(after["stones"]) == total


@SETTINGS
@given(records())
def test_every_tile_is_played_at_most_once_a_round_R1(record):
    for rnd in record["rounds"]:
        tiles = [str(Tile.parse(m["tile"])) for m in rnd["moves"] if "tile" in m]
        assert len(tiles) == len(set(tiles))
        assert len(tiles) <= 25


@SETTINGS
@given(records())
def test_every_finished_round_has_exactly_one_winner_R14_R20(record):
    result = replay_record(record)
    for rnd in result["rounds"]:
        if rnd["ending"] == "cappu":
            assert rnd["winner"] == rnd["first_cappu"]
            assert rnd["cucuq"] == (rnd["winner"] - 1) % 5
        elif rnd["ending"] == "blocked" and rnd["remaining_pips"] is not None:
            pips = rnd["remaining_pips"]
            manguno = rnd["manguno"]
            lower = [s for s in range(5) if s != manguno and pips[s] <= pips[manguno]]
            assert rnd["mattikkeng"] == lower
            if lower:
                assert rnd["winner"] in lower
                assert pips[rnd["winner"]] == min(pips[s] for s in lower)
                assert rnd["cucuq"] is None
            else:
                assert rnd["winner"] == manguno
        else:
            assert rnd["winner"] is None
    # Every round but the last is finished and settled.
    assert all(r["winner"] is not None for r in result["rounds"][:-1])


@SETTINGS
@given(records())
def test_each_round_is_led_by_the_camat_else_the_last_winner_R6_R26(record):
    rounds = replay_record(record)["rounds"]
    for previous, rnd in zip(rounds, rounds[1:], strict=False):
        expected = previous["after"]["camat"]
        if expected is None:
            expected = previous["winner"]
        assert rnd["leader"] == expected == previous["after"]["next_leader"]


@SETTINGS
@given(records())
def test_record_replay_export_replay_is_stable_R27(record):
    result = replay_record(record)
    exported = export_record(replay(Record.parse(record)), record["players"])
    assert replay_record(exported) == result
    assert export_record(replay(Record.parse(exported)), record["players"]) == exported


@settings(max_examples=25, deadline=None)
@given(records(max_rounds=4), st.data())
def test_legal_moves_contain_the_real_move_and_every_legal_move_is_accepted_R30(record, data):
    game = Game(_rules(record))
    for number, rnd in enumerate(record["rounds"], start=1):
        for seat, hand in sorted((rnd.get("hands") or {}).items()):
            game.declare(int(seat), hand)
        for move in rnd["moves"]:
            current = game.current
            if current is not None and current.round.ends is not None:
                legal = current.round.legal_moves()
                tile = Tile.parse(move["tile"]) if "tile" in move else None
                if tile is None:
                    assert Pass(move["seat"]) in legal
                else:
                    assert any(isinstance(m, Play) and m.tile == tile for m in legal)
                probe = data.draw(st.sampled_from(legal), label=f"legal move in round {number}")
                copy.deepcopy(game).push(probe)  # never raises
            game.push(move)
        for key, kind in (("reveal", "tiles"), ("pips", "pips")):
            for seat, value in sorted((rnd.get(key) or {}).items()):
                game.reveal(int(seat), **{kind: value})


def _accepts(rnd, move) -> bool:
    try:
        copy.deepcopy(rnd).push(move)
    except RefereeError:
        return False
    return True


@settings(max_examples=15, deadline=None)
@given(records(max_rounds=3), st.data())
def test_legal_moves_are_exactly_the_plays_and_passes_the_referee_accepts_R7_R9_R31_R32(
    record, data
):
    game = Game(_rules(record))
    for number, rnd in enumerate(record["rounds"], start=1):
        for seat, hand in sorted((rnd.get("hands") or {}).items()):
            game.declare(int(seat), hand)
        for index, move in enumerate(rnd["moves"]):
            current = game.current
            check = data.draw(st.booleans(), label=f"check round {number} move {index}")
            if check and current is not None and current.round.ends is not None:
                state = current.round
                seat = state.turn
                ends = sorted(set(state.ends))
                plays = [Play(seat, tile, value) for tile in ALL_TILES for value in ends]
                accepted = [m for m in [*plays, Pass(seat)] if _accepts(state, m)]
                assert state.legal_moves() == accepted  # in order: tiles 0-0 … 6-6, then PASS
                by_end = {v: [m.tile for m in accepted if m in plays and m.on == v] for v in ends}
                assert state.playable_tiles() == by_end
            game.push(move)
        for key, kind in (("reveal", "tiles"), ("pips", "pips")):
            for seat, value in sorted((rnd.get(key) or {}).items()):
                game.reveal(int(seat), **{kind: value})


MUTATIONS = ("wrong_seat", "replayed_tile", "unmatched_tile", "move_after_end", "drop_reveal")


def _mutate(record: dict, kind: str, rng: random.Random) -> tuple[dict, set[str]] | None:
    """Break a valid record in one way; return it with the codes that may be reported."""
    record = copy.deepcopy(record)
    rounds = record["rounds"]
    finished = [i for i, r in enumerate(rounds[:-1])]
    if kind == "drop_reveal":
        blocked = [i for i in finished if rounds[i].get("reveal") or rounds[i].get("pips")]
        blocked = [i for i in blocked if not rounds[i].get("hands")]
        if not blocked:
            return None
        i = rng.choice(blocked)
        rounds[i].pop("reveal", None)
        rounds[i].pop("pips", None)
        return record, {"reveal_missing"}
    if kind == "move_after_end":
        if not finished:
            return None
        i = rng.choice(finished)
        last = rounds[i]["moves"][-1]["seat"]
        rounds[i]["moves"].append({"seat": (last + 1) % 5, "pass": True})
        return record, {"round_over"}
    i = rng.randrange(len(rounds))
    moves = rounds[i]["moves"]
    plays = [j for j, m in enumerate(moves) if j > 0 and "tile" in m]
    if not plays:
        return None
    j = rng.choice(plays)
    move = moves[j]
    if kind == "wrong_seat":
        move["seat"] = (move["seat"] + rng.randrange(1, 5)) % 5
        return record, {"not_your_turn"}
    played = [Tile.parse(m["tile"]) for m in moves[:j] if "tile" in m]
    if kind == "replayed_tile":
        move["tile"] = str(rng.choice(played))
        move.pop("on", None)
        return record, {"tile_already_played"}
    # unmatched_tile: a tile never played this round that carries neither open end.
    game = replay(Record.parse({**record, "rounds": rounds[:i] + [{"moves": moves[:j]}]}))
    ends = game.rounds[-1].round.ends
    assert ends is not None
    candidates = [
        t
        for t in (Tile(a, b) for a in range(7) for b in range(a, 7))
        if t not in played and not t.carries_any(ends)
    ]
    if not candidates:
        return None
    move["tile"] = str(rng.choice(candidates))
    move.pop("on", None)
    return record, {"tile_does_not_match"}


@SETTINGS
@given(records(max_rounds=8), st.sampled_from(MUTATIONS), st.randoms(use_true_random=False))
def test_a_broken_record_is_rejected_with_the_right_code_R30_R34(record, kind, rng):
    mutated = _mutate(record, kind, rng)
    if mutated is None:
        return
    broken, codes = mutated
    with pytest.raises(RefereeError) as caught:
        replay_record(broken)
    assert caught.value.code in codes
