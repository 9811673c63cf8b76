"""Declared hands: what the referee also checks for a seat that declared its tiles (R31)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.records import replay_record
from tests.referee.engine.walks import BLOCKED_REVEAL, BLOCKED_WALK, PLAYERS
from tests.referee.engine.walks import moves as _moves
from tests.referee.engine.walks import passes as _passes

SEAT_4_HAND = ["4-6", "3-3", "3-4", "3-5", "4-4"]  # 29 pips left after 4-6


BLOCKED_MOVES = _moves(BLOCKED_WALK) + _passes(2)


def _record(*rounds: dict) -> dict:
    return {"format": "domeng-record/1", "players": PLAYERS, "rounds": list(rounds)}


def _error_of(*rounds: dict) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        replay_record(_record(*rounds))
    return caught.value


# -- plays and passes of a declared seat --


def test_a_declared_seat_playing_a_tile_outside_its_hand_is_tile_not_in_hand_R31():
    error = _error_of(
        {
            "hands": {"1": ["4-6", "0-1", "0-2", "0-3", "0-4"]},
            "moves": _moves(["6-6", "5-6"]),
        }
    )

    assert (error.code, error.rule, error.round, error.move) == ("tile_not_in_hand", "R31", 1, 1)


def test_any_seat_playing_a_tile_another_seat_declared_is_tile_not_in_hand_R31():
    error = _error_of(
        {
            "hands": {"3": ["5-6", "0-1", "0-2", "0-3", "0-4"]},
            "moves": _moves(["6-6", "5-6"]),
        }
    )

    assert (error.code, error.rule, error.move) == ("tile_not_in_hand", "R31", 1)


def test_a_declared_seat_playing_from_its_hand_is_accepted_R31():
    result = replay_record(
        _record(
            {
                "hands": {"1": ["5-6", "0-1", "0-2", "0-3", "0-4"]},
                "moves": _moves(["6-6", "5-6"]),
            }
        )
    )

    assert result["rounds"][0]["after"]["next_leader"] == 2


def test_a_declared_seat_passing_while_it_holds_a_playable_tile_is_rejected_R31():
    error = _error_of(
        {
            "hands": {"1": ["1-6", "0-1", "0-2", "0-3", "0-4"]},
            "moves": [{"seat": 0, "tile": "6-6"}, {"seat": 1, "pass": True}],
        }
    )

    assert (error.code, error.rule) == ("pass_with_playable_tile", "R31")
    assert (error.round, error.move) == (1, 1)


def test_a_declared_seat_passing_with_nothing_playable_is_accepted_R31():
    result = replay_record(
        _record(
            {
                "hands": {"1": ["1-1", "0-1", "0-2", "0-3", "0-4"]},
                "moves": [{"seat": 0, "tile": "6-6"}, {"seat": 1, "pass": True}],
            }
        )
    )

    assert result["rounds"][0]["transfers"][0]["reason"] == "passebunge"


def test_a_hand_whose_playable_tile_was_already_played_may_pass_R31():
    # Seat 1 declared 5-6 and played it; on (6, 3) it holds no 3 or 6 any more.
    hands = {"1": ["5-6", "0-1", "0-2", "0-4", "1-1"]}
    moves = _moves(["6-6", "5-6", "4-5", ("3-4", 4), "3-3"])
    moves += [{"seat": 0, "pass": True}, {"seat": 1, "pass": True}]

    result = replay_record(_record({"hands": hands, "moves": moves}))

    assert result["rounds"][0]["after"]["next_leader"] == 2


# -- declared hands and the first lead --


def test_leading_five_five_while_a_declared_hand_holds_six_six_is_opening_tile_invalid_R31():
    error = _error_of(
        {
            "hands": {"3": ["6-6", "0-1", "0-2", "0-3", "0-4"]},
            "moves": [{"seat": 0, "tile": "5-5"}],
        }
    )

    assert (error.code, error.round, error.move) == ("opening_tile_invalid", 1, 0)


def test_the_leader_cannot_lead_five_five_while_its_own_hand_holds_six_six_R31():
    error = _error_of(
        {
            "hands": {"0": ["6-6", "5-5", "0-2", "0-3", "0-4"]},
            "moves": [{"seat": 0, "tile": "5-5"}],
        }
    )

    assert error.code == "opening_tile_invalid"


def test_a_declared_hand_holding_only_lower_doubles_does_not_stop_the_lead_R31():
    result = replay_record(
        _record(
            {
                "hands": {"3": ["4-4", "3-3", "0-2", "0-3", "0-4"]},
                "moves": [{"seat": 0, "tile": "5-5"}],
            }
        )
    )

    assert result["rounds"][0]["leader"] == 0


def test_a_declared_first_lead_tile_of_another_seat_cannot_be_led_R31():
    error = _error_of(
        {
            "hands": {"2": ["6-6", "0-1", "0-2", "0-3", "0-4"]},
            "moves": [{"seat": 0, "tile": "6-6"}],
        }
    )

    assert (error.code, error.rule) == ("tile_not_in_hand", "R31")


# -- a declared seat at a block --


def test_a_declared_seats_remaining_pips_are_known_without_a_reveal_R31_R18():
    result = replay_record(
        _record({"hands": {"4": SEAT_4_HAND}, "moves": BLOCKED_MOVES, "reveal": BLOCKED_REVEAL})
    )

    assert result["rounds"][0]["remaining_pips"] == [12, 3, 14, 23, 29]
    assert result["rounds"][0]["winner"] == 1


def test_a_declared_seat_may_reveal_its_remainder_when_it_agrees_R31():
    reveal = dict(BLOCKED_REVEAL, **{"4": ["3-3", "3-4", "4-4", "3-5"]})

    result = replay_record(
        _record({"hands": {"4": SEAT_4_HAND}, "moves": BLOCKED_MOVES, "reveal": reveal})
    )

    assert result["rounds"][0]["remaining_pips"][4] == 29


def test_a_declared_seats_reveal_that_disagrees_with_its_hand_is_rejected_R31_R33():
    reveal = dict(BLOCKED_REVEAL, **{"4": ["3-3", "3-4", "4-4", "5-5"]})

    error = _error_of({"hands": {"4": SEAT_4_HAND}, "moves": BLOCKED_MOVES, "reveal": reveal})

    assert (error.code, error.round, error.move) == ("reveal_invalid", 1, None)


def test_a_declared_seats_pip_sum_that_agrees_with_its_hand_is_accepted_R31_R18():
    result = replay_record(
        _record(
            {
                "hands": {"4": SEAT_4_HAND},
                "moves": BLOCKED_MOVES,
                "reveal": BLOCKED_REVEAL,
                "pips": {"4": 29},
            }
        )
    )

    assert result["rounds"][0]["remaining_pips"] == [12, 3, 14, 23, 29]


def test_a_declared_seats_pip_sum_that_disagrees_with_its_hand_is_rejected_R31_R33():
    error = _error_of(
        {
            "hands": {"4": SEAT_4_HAND},
            "moves": BLOCKED_MOVES,
            "reveal": BLOCKED_REVEAL,
            "pips": {"4": 31},
        }
    )

    assert error.code == "reveal_invalid"


# -- declared hands are checked first, and must be five distinct free tiles --


def test_declared_hands_are_applied_before_the_rounds_moves_R31_R34():
    error = _error_of({"hands": {"2": ["0-0", "0-1", "0-2", "0-3", "0-4"]}, "moves": BLOCKED_MOVES})

    assert (error.code, error.move) == ("tile_not_in_hand", 2)


def test_an_invalid_hand_is_reported_before_an_invalid_first_move_R34():
    error = _error_of(
        {"hands": {"0": ["6-6", "0-1", "0-2", "0-3"]}, "moves": [{"seat": 0, "pass": True}]}
    )

    assert (error.code, error.move) == ("record_invalid", None)


def test_declared_hands_are_checked_seat_0_to_4_R34():
    hands = {
        "3": ["7-7", "1-1", "1-2", "1-3", "1-4"],
        "1": ["0-0", "0-1", "0-2", "0-3"],
    }

    error = _error_of({"hands": hands, "moves": []})

    assert error.code == "record_invalid"


@pytest.mark.parametrize(
    "hands",
    [
        pytest.param({"1": ["0-0", "0-1", "0-2", "0-3"]}, id="four tiles"),
        pytest.param({"1": ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5"]}, id="six tiles"),
        pytest.param({"1": ["0-0", "0-1", "0-2", "0-3", "1|0"]}, id="a tile twice"),
        pytest.param(
            {"1": ["0-0", "0-1", "0-2", "0-3", "0-4"], "2": ["0-4", "1-1", "1-2", "1-3", "1-4"]},
            id="declared by two seats",
        ),
        pytest.param({"1": "0-0 0-1 0-2 0-3 0-4"}, id="not a list"),
        pytest.param({"5": ["0-0", "0-1", "0-2", "0-3", "0-4"]}, id="seat 5"),
        pytest.param({1: ["0-0", "0-1", "0-2", "0-3", "0-4"]}, id="seat not a string"),
        pytest.param(["0-0", "0-1", "0-2", "0-3", "0-4"], id="hands not a map"),
    ],
)
def test_a_hand_that_is_not_five_distinct_undeclared_tiles_is_record_invalid_R31(hands):
    error = _error_of({"hands": hands, "moves": []})

    assert (error.code, error.move) == ("record_invalid", None)


def test_a_fault_in_a_declared_hand_names_its_round_and_no_move_R31():
    # RECORD.md: round is null only for a fault in the header; move is null for a hand.
    error = _error_of({"hands": {"1": ["0-0", "0-1", "0-2", "0-3"]}, "moves": []})

    assert error.to_dict()["code"] == "record_invalid"
    assert (error.round, error.move) == (1, None)


def test_a_hand_with_a_malformed_tile_is_tile_invalid_R31_R1():
    error = _error_of({"hands": {"1": ["0-0", "0-1", "0-2", "0-3", "0-7"]}, "moves": []})

    assert error.code == "tile_invalid"


def test_a_hand_declared_once_the_round_began_must_agree_with_its_moves_R31():
    game = Game()
    game.push({"seat": 0, "tile": "6-6"})
    game.push({"seat": 1, "pass": True})

    with pytest.raises(RefereeError) as caught:
        game.declare(1, ["5-6", "0-1", "0-2", "0-3", "0-4"])

    assert caught.value.code == "pass_with_playable_tile"
    assert (caught.value.round, caught.value.move) == (1, 1)
    game.declare(1, ["0-0", "0-1", "0-2", "0-3", "0-4"])
    assert set(map(str, game.rounds[0].round.hands[1])) == {"0-0", "0-1", "0-2", "0-3", "0-4"}


@pytest.mark.parametrize("seat", [[4], {"seat": 4}, "4", None, 4.0, True, 5])
def test_a_reveal_after_a_settled_block_checks_its_seat_first_R34_R3(seat):
    """QA: a seat that is a list or an object, sent as a declared seat's confirmation
    after a blocked round settled, was looked up as a dict key: a TypeError (500)."""
    game = Game()
    game.declare(4, SEAT_4_HAND)
    for move in BLOCKED_MOVES:
        game.push(move)
    for number, tiles in BLOCKED_REVEAL.items():
        game.reveal(int(number), tiles=tiles)
    assert game.current is None  # settled, seat 4's remainder known from its hand (R31)

    with pytest.raises(RefereeError) as caught:
        game.reveal(seat, pips=29)  # type: ignore[arg-type]

    assert (caught.value.code, caught.value.rule, caught.value.round) == ("record_invalid", "R3", 1)
    game.reveal(4, pips=29)  # the declared seat itself may still confirm (R31)


# -- hands that share a tile, as a table may declare them (issue 27) --

SHARING_1 = ["5-6", "0-0", "0-1", "0-2", "0-3"]
SHARING_2 = ["5-6", "1-1", "1-2", "1-3", "1-4"]


def test_a_record_never_gives_one_tile_to_two_seats_but_a_table_may_declare_it_R31():
    strict = Game()
    strict.declare(1, SHARING_1)
    with pytest.raises(RefereeError) as caught:
        strict.declare(2, SHARING_2)
    assert caught.value.code == "record_invalid"

    shared = Game()
    shared.declare(1, SHARING_1)
    shared.declare(2, SHARING_2, shared=True)
    assert set(shared.rounds[0].round.hands) == {1, 2}


def test_each_of_two_seats_sharing_a_tile_is_judged_by_its_own_hand_R31():
    game = Game()
    game.declare(2, SHARING_2)
    game.declare(1, SHARING_1, shared=True)
    game.push({"seat": 0, "tile": "6-6"})
    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 1, "pass": True})  # 5-6 is in its own hand
    assert caught.value.code == "pass_with_playable_tile"

    game.push({"seat": 1, "tile": "5-6"})  # seat 2's hand holds it too: no matter

    assert "5-6" not in {str(t) for t in game.rounds[0].round.declared_by_others(1)}
    assert "1-1" in {str(t) for t in game.rounds[0].round.declared_by_others(1)}


def test_any_other_seat_is_refused_a_tile_two_hands_share_R31():
    game = Game()
    game.declare(2, SHARING_2)
    game.declare(3, ["5-6", "2-2", "2-3", "2-4", "2-5"], shared=True)
    game.push({"seat": 0, "tile": "6-6"})

    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 1, "tile": "5-6"})

    assert caught.value.code == "tile_not_in_hand"
