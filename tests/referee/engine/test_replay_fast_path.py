"""The replay's fast path (``Round.run`` via ``Game.replay_moves``) is exact.

``Round.run`` applies a record's ordinary legal moves without building a
``MoveReport``; anything else goes through ``Round.push``, which checks
everything in R34's order. The oracle here is the replay with the fast path
switched off: every record — legal, with declared hands (R31), pip sums and
reveals (R18), or broken in form or by the rules — must give the same result,
the same export and the same legal moves, or the same error object.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.records import Record, export_record, replay, result_of
from referee.engine.round import Round, _reachable
from referee.engine.simulation import random_record
from referee.engine.tiles import ALL_TILES

TILES = [str(t) for t in ALL_TILES]
ODD_SEATS: list[Any] = [0, 1, 2, 3, 4, 5, -1, True, "1", None, 1.0]
ODD_TILES: list[Any] = [*TILES, "7-7", "x", 5, None, "6|6", "[1|2]", "2-1", True]
ODD_ONS: list[Any] = [0, 1, 2, 3, 4, 5, 6, 7, -1, True, False, "3", None, [1], 10**9]


@contextmanager
def push_only() -> Iterator[None]:
    """Every move through ``Round.push``: the fully checked path, the oracle."""
    with mock.patch.object(Round, "run", lambda self, moves, start=0: start):
        yield


def everything_of(data: dict[str, Any]) -> str:
    """The result, export and the legal moves of the round in play, or the error."""
    try:
        game = replay(Record.parse(data))
    except RefereeError as error:
        return json.dumps({"error": type(error).__name__, **error.to_dict()}, sort_keys=True)
    current = game.current
    legal = None
    if current is not None and not current.voided:
        rnd = current.round
        legal = {
            "moves": [m.to_dict() for m in rnd.legal_moves()],
            "hidden": [m.to_dict() for m in rnd.legal_moves(hidden=True)],
            "playable": {v: [str(t) for t in ts] for v, ts in rnd.playable_tiles().items()},
            "chain": rnd.chain(),
            "could_hold": [[str(t) for t in rnd.could_hold(s)] for s in range(5)],
        }
    return json.dumps(
        {
            "result": result_of(game),
            "export": export_record(game, data["players"]),
            "legal": legal,
            "standing": game.standing().to_dict(),
        },
        sort_keys=True,
    )


def broken(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``record`` with one move or one round changed in form or against the rules."""
    data = copy.deepcopy(record)
    game_round = rng.choice(data["rounds"])
    moves = game_round["moves"]
    if not moves:
        moves.append({"seat": rng.randrange(5), "tile": rng.choice(TILES)})
        return data
    i = rng.randrange(len(moves))
    move = moves[i]
    if not isinstance(move, dict):  # broken once already into no move at all ([], "x")
        moves[i] = move = {"seat": rng.randrange(5), "tile": rng.choice(TILES)}
    kind = rng.randrange(14)
    if kind == 0:
        move["seat"] = rng.choice(ODD_SEATS)
    elif kind == 1:
        move.pop("pass", None)
        move["tile"] = rng.choice(ODD_TILES)
    elif kind == 2:
        move["on"] = rng.choice(ODD_ONS)
    elif kind == 3:
        moves[i] = {"seat": move.get("seat"), "pass": True}
    elif kind == 4:
        del moves[i]
    elif kind == 5:
        moves.insert(i, copy.deepcopy(move))
    elif kind == 6:
        move["extra"] = 1
    elif kind == 7:
        move["pass"] = rng.choice([True, False, 1])
    elif kind == 8:
        moves[i], moves[-1] = moves[-1], moves[i]
    elif kind == 9:
        moves.append({"seat": rng.randrange(5), "tile": rng.choice(TILES)})
    elif kind == 10:
        game_round["hands"] = {str(rng.randrange(5)): rng.sample(TILES, 5)}
    elif kind == 11:
        game_round["pips"] = {str(rng.randrange(5)): rng.choice([0, 3, 10, 25, 61, 10**9, -1])}
    elif kind == 12:
        game_round["reveal"] = {str(rng.randrange(5)): rng.sample(TILES, rng.randrange(1, 5))}
    else:
        moves[i] = rng.choice([[], "x", {"seat": 0}, {}, {"seat": 0, "tile": "1-1", "on": None}])
    return data


def cut(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``record`` stopped part-way through its last round (a round in play)."""
    data = copy.deepcopy(record)
    last = data["rounds"][-1]
    last["moves"] = last["moves"][: rng.randrange(len(last["moves"]) + 1)]
    last.pop("reveal", None)
    last.pop("pips", None)
    return data


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    return random_record(
        random.Random(draw(st.integers(0, 2**32 - 1))),
        rounds=draw(st.integers(1, 12)),
        declare_probability=draw(st.sampled_from([0.0, 0.0, 0.2, 1.0])),
        pips_probability=draw(st.sampled_from([0.0, 0.3, 1.0])),
        mixed_spellings=draw(st.booleans()),
        finish_last_round=draw(st.booleans()),
    )


FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(records(), st.randoms(use_true_random=False))
def test_the_fast_path_gives_what_push_gives_on_legal_cut_and_broken_records_R34(
    record: dict[str, Any], rng: random.Random
) -> None:
    for data in (record, cut(record, rng), broken(record, rng), broken(broken(record, rng), rng)):
        fast = everything_of(data)
        with push_only():
            checked = everything_of(data)
        assert fast == checked


def test_ordinary_moves_skip_push_and_faults_still_reach_it_R34() -> None:
    record = random_record(random.Random(7), rounds=6)
    moves = sum(len(r["moves"]) for r in record["rounds"])
    with mock.patch.object(Round, "push", autospec=True, side_effect=Round.push) as push:
        replay(Record.parse(record))
    # Only the game's first lead (R5, R40) goes through push; every other move is run.
    assert push.call_count == 1 < moves
    bad = copy.deepcopy(record)
    bad["rounds"][2]["moves"][3]["seat"] = True  # not a seat (R3): run must not take it
    with (
        mock.patch.object(Round, "push", autospec=True, side_effect=Round.push) as push,
        pytest.raises(RefereeError) as refused,
    ):
        replay(Record.parse(bad))
    assert (refused.value.code, refused.value.round, refused.value.move) == ("record_invalid", 3, 3)
    assert push.call_count == 2


def test_every_tile_in_place_of_every_move_gives_what_push_gives_R5_R7_R11_R32_R40() -> None:
    """Exhaustive: each move of a few records replaced by a play of each tile (with and
    without ``on``) or a pass, the record cut after it — every check of a play is met."""
    compared = refused = 0
    for seed in (3, 11):
        record = random_record(random.Random(seed), rounds=2)
        for number, game_round in enumerate(record["rounds"]):
            for index, move in enumerate(game_round["moves"]):
                for tile in [*TILES, None]:
                    for on in (None, 4):
                        if tile is None and on is not None:
                            continue
                        data = copy.deepcopy(record)
                        data["rounds"] = data["rounds"][: number + 1]
                        moves = data["rounds"][number]["moves"]
                        del moves[index + 1 :]
                        data["rounds"][number].pop("reveal", None)
                        data["rounds"][number].pop("pips", None)
                        new: dict[str, Any] = {"seat": move["seat"]}
                        if tile is None:
                            new["pass"] = True
                        else:
                            new["tile"] = tile
                            if on is not None:
                                new["on"] = on
                        moves[index] = new
                        fast = everything_of(data)
                        with push_only():
                            assert fast == everything_of(data), data
                        compared += 1
                        refused += '"error"' in fast
    assert compared > refused > compared // 2  # most substitutes are refused, some are not


@given(
    st.lists(st.sampled_from(ALL_TILES), max_size=14, unique=True),
    st.integers(0, 5),
    st.integers(0, 62),
)
def test_a_pip_sum_is_reachable_exactly_when_some_tiles_add_up_to_it_R18_R33(
    candidates: list[Any], count: int, pips: int
) -> None:
    some = any(
        sum(t.low + t.high for t in chosen) == pips
        for chosen in itertools.combinations(candidates, count)
    )

    assert _reachable(candidates, count, pips) is some


def _check_legal_moves(rnd: Round) -> None:
    seat = rnd.turn
    assert seat is not None
    assert rnd.ends is not None
    for hidden in (False, True):
        could_hold = rnd.could_hold(seat, hidden=hidden)
        values = sorted(set(rnd.ends))
        plays = [(str(t), v) for t in could_hold for v in values if t.carries(v)]
        moves = rnd.legal_moves(hidden=hidden)
        assert [(str(m.tile), m.on) for m in moves if not m.is_pass] == plays
        passes = hidden or seat not in rnd.hands or not plays
        assert [m.to_dict() for m in moves if m.is_pass] == (
            [{"seat": seat, "pass": True}] if passes else []
        )
        assert rnd.playable_tiles(hidden=hidden) == {
            v: [t for t in could_hold if t.carries(v)] for v in values
        }


@FAST
@given(records())
def test_legal_moves_are_every_tile_the_seat_could_hold_on_every_end_it_matches_R7_R11_R32(
    record: dict[str, Any],
) -> None:
    """At every state of play of a legal game (declared hands included, R31)."""
    game = Game()
    checked = 0
    for data in record["rounds"]:
        for seat, hand in sorted(data.get("hands", {}).items()):
            game.declare(int(seat), hand)
        for move in data["moves"]:
            current = game.current
            if current is not None and current.round.ends is not None:
                _check_legal_moves(current.round)
                checked += 1
            game.push(move)
        for seat in range(5):
            tiles, pips = data.get("reveal", {}).get(str(seat)), data.get("pips", {}).get(str(seat))
            if tiles is not None or pips is not None:
                game.reveal(seat, tiles=tiles, pips=pips)
    # At least one state after its lead in every round that has a move after the lead.
    assert checked >= sum(1 for data in record["rounds"] if len(data["moves"]) >= 2)
