"""One round: the chain, turns, passes and how a round ends (R4, R7–R17, R21)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.moves import Pass, Play
from referee.engine.outcome import Ending, Finish
from referee.engine.round import Round
from referee.engine.rules import DEFAULT_RULES
from referee.engine.tiles import Tile
from tests.referee.engine.walks import BLOCKED_WALK, CEKI_WALK
from tests.referee.engine.walks import moves as _moves
from tests.referee.engine.walks import passes as _passes

PLAIN_WALK = CEKI_WALK[:-1] + ["1-4"]
POLLO_WALK = [
    "6-6", "5-6", "5-5", "4-5", "4-4", "3-4", "3-3", "1-3", "1-1", "0-1", "0-0",
    "0-2", ("0-6", 6), "0-3", "3-5", "1-5", "1-4", "0-4", "0-5", ("2-5", 5), "2-2",
]  # fmt: skip


def _first_round() -> Round:
    return Round(number=1, rules=DEFAULT_RULES, expected_leader=None)


def _played(moves: list[dict], rnd: Round | None = None) -> Round:
    rnd = rnd or _first_round()
    for move in moves:
        rnd.push(move)
    return rnd


def _error(rnd: Round, move) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        rnd.push(move)
    return caught.value


# -- the chain (R7) --


def test_the_lead_tiles_two_halves_are_the_two_open_ends_R7():
    rnd = _played([{"seat": 2, "tile": "3-3"}])

    assert rnd.ends == (3, 3)
    assert rnd.leader == 2
    assert rnd.turn == 3


def test_a_play_leaves_the_tiles_other_half_open_on_that_end_R7():
    rnd = _played(_moves(["6-6", "5-6", "4-5"]))

    assert sorted(rnd.ends) == [4, 6]


def test_doubles_go_in_line_and_the_chain_lists_tiles_as_laid_R7():
    rnd = _played(_moves(["6-6", "5-6", "5-5", ("4-6", 6)]))

    assert rnd.chain() == [(4, 6), (6, 6), (6, 5), (5, 5)]
    assert sorted(rnd.ends) == [4, 5]


def test_a_tile_carrying_neither_open_end_is_tile_does_not_match_R7():
    rnd = _played(_moves(["6-6", "5-6"]))

    error = _error(rnd, {"seat": 2, "tile": "3-4"})

    assert (error.code, error.rule, error.round, error.move) == ("tile_does_not_match", "R7", 1, 2)


def test_a_rejected_move_leaves_the_round_as_it_was_R7():
    rnd = _played(_moves(["6-6", "5-6"]))

    _error(rnd, {"seat": 2, "tile": "3-4"})

    assert len(rnd.moves) == 2
    assert rnd.turn == 2
    assert sorted(rnd.ends) == [5, 6]


# -- turns (R8, R9, R10) --


def test_seats_take_turns_clockwise_after_the_lead_R8():
    rnd = _played(_moves(["6-6", "5-6"], leader=3))

    assert rnd.turn == 0


def test_a_seat_moving_out_of_turn_is_not_your_turn_R8():
    rnd = _played(_moves(["6-6"]))

    error = _error(rnd, {"seat": 2, "tile": "5-6"})

    assert (error.code, error.rule, error.move) == ("not_your_turn", "R8", 1)


def test_after_a_pass_the_next_seat_continues_R9():
    rnd = _played(_moves(["6-6", "5-6"]) + [{"seat": 2, "pass": True}])

    assert rnd.turn == 3
    assert not rnd.is_over()


def test_a_pass_by_a_seat_that_has_not_played_is_passebunge_R10():
    rnd = _played(_moves(["6-6"]))

    report = rnd.push({"seat": 1, "pass": True})

    assert report.passebunge is True


def test_a_seat_can_pass_as_passebunge_more_than_once_R10():
    rnd = _played(
        _moves(["6-6"])
        + _passes(1, 1)
        + [{"seat": 2, "tile": "5-6"}, {"seat": 3, "tile": "4-5", "on": 5}]
        + _passes(4, 2)
    )

    report = rnd.push({"seat": 1, "pass": True})

    assert report.passebunge is True


def test_a_pass_by_a_seat_that_has_played_is_a_plain_pass_R10():
    rnd = _played(_moves(["6-6", "5-6", "5-5", "4-5", "4-4"]))

    report = rnd.push({"seat": 0, "pass": True})

    assert report.passebunge is False


# -- which end (R11) --


def test_on_is_inferred_when_the_tile_matches_one_end_only_R11():
    rnd = _played(_moves(["6-6", "5-6", "4-5"]))

    assert sorted(rnd.ends) == [4, 6]


def test_a_tile_fitting_two_different_ends_without_on_is_end_required_R11():
    rnd = _played(_moves(["6-6", "5-6", "4-5"]))

    error = _error(rnd, {"seat": 3, "tile": "4-6"})

    assert (error.code, error.rule, error.move) == ("end_required", "R11", 3)


def test_on_naming_an_end_the_tile_does_not_carry_is_end_mismatch_R11():
    rnd = _played(_moves(["6-6", "5-6"]))

    error = _error(rnd, {"seat": 2, "tile": "2-5", "on": 6})

    assert (error.code, error.rule, error.move) == ("end_mismatch", "R11", 2)


def test_on_naming_a_value_that_is_no_open_end_is_end_mismatch_R11():
    rnd = _played(_moves(["6-6", "5-6"]))

    error = _error(rnd, {"seat": 2, "tile": "2-5", "on": 2})

    assert error.code == "end_mismatch"


def test_with_equal_ends_the_tile_goes_on_either_end_without_on_R11():
    inferred = _played(_moves(["6-6", "4-6"]))
    named = _played(_moves(["6-6"]) + [{"seat": 1, "tile": "4-6", "on": 6}])

    assert sorted(inferred.ends) == sorted(named.ends) == [4, 6]
    assert inferred.moves[1].on is None


def test_with_equal_ends_on_naming_the_other_half_is_end_mismatch_R11():
    rnd = _played(_moves(["6-6"]))

    error = _error(rnd, {"seat": 1, "tile": "4-6", "on": 4})

    assert error.code == "end_mismatch"


def test_on_must_be_a_whole_number_R11():
    rnd = _played(_moves(["6-6"]))

    error = _error(rnd, {"seat": 1, "tile": "4-6", "on": "6"})

    assert error.code == "record_invalid"


def test_a_play_names_the_end_by_its_value_on_either_side_R11():
    rnd = _played(_moves(["6-6", "5-6", ("4-6", 6)]))
    rnd.push({"seat": 3, "tile": "3-5", "on": 5})

    assert sorted(rnd.ends) == [3, 4]


# -- LAST MAPPANO and MAPPAKULING (R12, R13) --


def test_the_last_mappano_is_the_seat_that_played_the_latest_tile_R12():
    rnd = _played(_moves(["6-6", "5-6"]))

    first = rnd.push({"seat": 2, "pass": True})
    second = rnd.push({"seat": 3, "pass": True})

    assert first.last_mappano == second.last_mappano == 1
    assert rnd.last_mappano == 1


def test_a_play_that_leaves_both_ends_equal_is_mappakuling_R13():
    rnd = _played(_moves(CEKI_WALK[:13]))

    report = rnd.push({"seat": 3, "tile": "0-6", "on": 0})

    assert report.mappakuling is True
    assert report.ends == (6, 6)


def test_a_play_that_leaves_the_ends_different_is_not_mappakuling_R13():
    rnd = _played(_moves(["6-6"]))

    report = rnd.push({"seat": 1, "tile": "5-6"})

    assert report.mappakuling is False


def test_the_lead_is_never_mappakuling_even_a_double_R13():
    report = _first_round().push({"seat": 0, "tile": "6-6"})

    assert report.is_lead is True
    assert report.mappakuling is False


def test_a_double_is_mappakuling_only_when_both_ends_already_showed_it_R13():
    rnd = _played(_moves(["6-6", "5-6"]))

    on_unequal_ends = rnd.push({"seat": 2, "tile": "5-5"})

    assert on_unequal_ends.mappakuling is False

    pollo = _played(_moves(POLLO_WALK[:20]))
    assert pollo.ends == (2, 2)
    on_equal_ends = pollo.push({"seat": 0, "tile": "2-2"})
    assert on_equal_ends.mappakuling is True


# -- how a round ends (R14–R17, R21) --


def test_the_first_seat_to_play_its_fifth_tile_is_first_cappu_and_wins_R14():
    rnd = _played(_moves(PLAIN_WALK[:20]))

    report = rnd.push({"seat": 0, "tile": "1-4", "on": 1})

    assert report.outcome is not None
    assert report.outcome.ending is Ending.CAPPU
    assert report.outcome.finish is Finish.PLAIN
    assert report.outcome.first_cappu == report.outcome.winner == 0
    assert rnd.is_over()
    assert rnd.is_settled()
    assert rnd.turn is None


def test_a_seat_holds_five_tiles_and_the_round_ends_with_its_fifth_R4_R14():
    rnd = _played(_moves(CEKI_WALK[:20]))

    assert [rnd.tiles_left(s) for s in range(5)] == [1, 1, 1, 1, 1]
    assert not rnd.is_over()


def test_a_fifth_tile_that_is_mappakuling_with_a_non_double_is_ceki_R15():
    rnd = _played(_moves(CEKI_WALK))

    assert rnd.outcome.finish is Finish.CEKI
    assert rnd.outcome.named == ("FIRST CAPPU", "CEKI", "CUCUQ")


def test_a_fifth_tile_that_is_mappakuling_with_a_lempa_is_pollo_R16():
    rnd = _played(_moves(POLLO_WALK))

    assert rnd.outcome.finish is Finish.POLLO
    assert rnd.outcome.first_cappu == 0
    assert rnd.outcome.named == ("FIRST CAPPU", "POLLO", "CUCUQ")


def test_a_mappakuling_that_is_not_a_fifth_tile_ends_nothing_R15():
    rnd = _played(_moves(CEKI_WALK[:14]))

    assert rnd.ends == (6, 6)
    assert not rnd.is_over()


def test_the_cucuq_is_the_player_before_the_first_cappu_R21():
    wrapped = _played(_moves(CEKI_WALK))
    shifted = Round(number=2, rules=DEFAULT_RULES, expected_leader=2)
    _played(_moves(CEKI_WALK, leader=2), shifted)

    assert (wrapped.outcome.first_cappu, wrapped.outcome.cucuq) == (0, 4)
    assert (shifted.outcome.first_cappu, shifted.outcome.cucuq) == (2, 1)


def test_five_passes_in_a_row_block_the_round_and_the_last_passer_is_manguno_R17():
    rnd = _played(_moves(BLOCKED_WALK) + _passes(2, 4))

    assert not rnd.is_over()
    report = rnd.push({"seat": 1, "pass": True})

    assert report.closing is True
    assert report.outcome.ending is Ending.BLOCKED
    assert report.outcome.manguno == 1
    assert rnd.is_over()
    assert not rnd.is_settled()
    assert rnd.is_waiting_for_reveals()
    assert rnd.seats_awaiting_reveal() == [0, 1, 2, 3, 4]


def test_four_passes_and_a_play_by_the_last_mappano_keep_the_round_going_R17():
    rnd = _played(_moves(["6-6", "5-6"]) + _passes(2, 4) + [{"seat": 1, "tile": "4-5", "on": 5}])
    report = rnd.push({"seat": 2, "pass": True})

    assert report.closing is False
    assert not rnd.is_over()


def test_a_lead_followed_by_four_passes_and_the_leaders_pass_is_blocked_R17():
    rnd = _played([{"seat": 0, "tile": "5-5"}] + _passes(1, 5))

    assert rnd.outcome.ending is Ending.BLOCKED
    assert rnd.outcome.manguno == 0


def test_no_move_can_follow_the_end_of_a_round_R30():
    rnd = _played(_moves(CEKI_WALK))

    error = _error(rnd, {"seat": 1, "tile": "0-3"})

    assert (error.code, error.rule, error.move) == ("round_over", "R30", 21)


# -- what can be played (R30–R32) --


def test_before_the_first_lead_nobody_has_a_turn_and_any_seat_may_lead_a_first_lead_double_R5():
    rnd = _first_round()

    assert rnd.legal_moves() == []
    assert rnd.playable_tiles() == {}
    assert rnd.legal_moves_for(3) == [Play(3, Tile.parse(t)) for t in ["3-3", "4-4", "5-5", "6-6"]]


def test_legal_moves_after_the_lead_are_every_unplayed_matching_tile_and_a_pass_R8_R9():
    rnd = _played(_moves(["6-6"]))

    moves = rnd.legal_moves()

    tiles = sorted(str(m.tile) for m in moves if isinstance(m, Play))
    assert tiles == ["0-6", "1-6", "2-6", "3-6", "4-6", "5-6"]
    assert all(m.on == 6 and m.seat == 1 for m in moves if isinstance(m, Play))
    assert Pass(1) in moves


def test_legal_moves_offer_a_tile_on_each_end_it_matches_R11():
    rnd = _played(_moves(["6-6", "5-6", "4-5"]))  # ends 6 and 4, seat 3 to play

    moves = [m for m in rnd.legal_moves() if isinstance(m, Play)]

    assert Play(3, Tile.parse("5-6"), 6) not in moves  # already played
    assert {m.on for m in moves if str(m.tile) == "4-6"} == {4, 6}
    assert {m.on for m in moves if str(m.tile) == "2-4"} == {4}
    assert {m.on for m in moves if str(m.tile) == "1-6"} == {6}
    for move in moves:  # every offered move is accepted
        fresh = _played(_moves(["6-6", "5-6", "4-5"]))
        fresh.push(move)


def test_legal_moves_leave_out_tiles_the_first_lead_asserted_sleeping_R5_R32():
    rnd = _played([{"seat": 0, "tile": "5-5"}])

    tiles = sorted(str(m.tile) for m in rnd.legal_moves() if isinstance(m, Play))

    assert tiles == ["0-5", "1-5", "2-5", "3-5", "4-5", "5-6"]


def test_playable_tiles_exclude_played_tiles_and_values_the_seat_passed_on_R32():
    # Seat 2 passes on (6, 5); when its turn comes again it may hold no 5 or 6.
    rnd = _played(
        _moves(["6-6", "5-6"])
        + [{"seat": 2, "pass": True}]
        + [{"seat": 3, "tile": "4-5", "on": 5}, {"seat": 4, "tile": "3-4"}]
        + [{"seat": 0, "tile": "2-6"}, {"seat": 1, "tile": "2-3", "on": 3}]
    )
    assert rnd.turn == 2
    assert sorted(rnd.ends) == [2, 2]

    playable = rnd.playable_tiles()

    assert list(playable) == [2]
    assert sorted(str(t) for t in playable[2]) == ["0-2", "1-2", "2-2", "2-4"]


def test_playable_tiles_have_one_key_per_distinct_open_end_R11():
    rnd = _played(_moves(["6-6", "5-6"]))

    playable = rnd.playable_tiles()

    assert sorted(playable) == [5, 6]
    assert Tile.parse("5-6") not in playable[5] + playable[6]
    assert Tile.parse("6-6") not in playable[6]
    assert Tile.parse("2-5") in playable[5]
    assert Tile.parse("2-6") in playable[6]


def test_nothing_is_playable_once_the_round_is_over_R14():
    rnd = _played(_moves(CEKI_WALK))

    assert rnd.legal_moves() == []
    assert rnd.playable_tiles() == {}


def test_legal_moves_respect_a_declared_hand_and_forbid_its_pass_while_it_can_play_R31():
    rnd = _first_round()
    rnd.declare(1, ["5-6", "0-1", "0-2", "0-3", "0-4"])
    rnd.push({"seat": 0, "tile": "6-6"})

    moves = rnd.legal_moves()

    assert moves == [Play(1, Tile.parse("5-6"), 6)]


def test_legal_moves_allow_a_declared_hand_to_pass_when_it_cannot_play_R31():
    rnd = _first_round()
    rnd.declare(1, ["0-0", "0-1", "0-2", "0-3", "0-4"])
    rnd.push({"seat": 0, "tile": "6-6"})

    assert rnd.legal_moves() == [Pass(1)]


def test_legal_moves_of_other_seats_leave_out_a_declared_hands_tiles_R31():
    rnd = _first_round()
    rnd.declare(3, ["5-6", "4-6", "0-2", "0-3", "0-4"])
    rnd.push({"seat": 0, "tile": "6-6"})

    tiles = sorted(str(m.tile) for m in rnd.legal_moves() if isinstance(m, Play))

    assert tiles == ["0-6", "1-6", "2-6", "3-6"]


def test_each_pass_says_whether_it_was_a_passebunge_R10():
    rnd = Round(number=2, rules=DEFAULT_RULES, expected_leader=0)
    for move in [
        {"seat": 0, "tile": "1-2"},
        {"seat": 1, "pass": True},  # seat 1 has played nothing yet: PASSEBUNGE
        {"seat": 2, "tile": "2-3", "on": 2},
        {"seat": 3, "pass": True},
        {"seat": 4, "pass": True},
        {"seat": 0, "tile": "3-4", "on": 3},
        {"seat": 1, "pass": True},  # still nothing played: PASSEBUNGE again
        {"seat": 2, "pass": True},  # seat 2 played 2-3: a plain PASS
    ]:
        rnd.push(move)

    assert [(p.seat, p.passebunge) for p in rnd.passes] == [
        (1, True),
        (3, True),
        (4, True),
        (1, True),
        (2, False),
    ]
