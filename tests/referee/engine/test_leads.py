"""Who leads a round and with what: the first lead (R5, R40) and later leads (R6, R26)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from tests.referee.engine.walks import BLOCKED_REVEAL, BLOCKED_WALK, CEKI_WALK, PLAYERS
from tests.referee.engine.walks import moves as _moves
from tests.referee.engine.walks import passes as _passes


def _blocked_round(leader: int = 0) -> dict:
    """MANGUNO = leader + 1, who wins without MATTIKKENG."""
    shift = {str((int(s) + leader) % 5): tiles for s, tiles in BLOCKED_REVEAL.items()}
    return {
        "moves": _moves(BLOCKED_WALK, leader) + _passes(leader + 2),
        "reveal": shift,
        "pips": {str((4 + leader) % 5): 29},
    }


def _record(*rounds: dict, rules: dict | None = None) -> dict:
    return {
        "format": "domeng-record/1",
        "players": PLAYERS,
        "rules": rules,
        "rounds": list(rounds),
    }


def _error_of(record: dict) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    return caught.value


# -- the first lead of a game (R5) --


@pytest.mark.parametrize("seat", [0, 1, 2, 3, 4])
def test_the_first_round_may_be_led_with_six_six_by_whichever_seat_holds_it_R5(seat):
    result = replay_record(_record({"moves": [{"seat": seat, "tile": "6-6"}]}))

    assert result["rounds"][0]["leader"] == seat
    assert result["rounds"][0]["after"]["next_leader"] == (seat + 1) % 5


def test_before_the_first_lead_nobody_is_expected_to_lead_R5():
    result = replay_record(_record({"moves": []}))

    assert result["rounds"][0]["leader"] is None
    assert result["rounds"][0]["after"]["next_leader"] is None


@pytest.mark.parametrize("tile", ["5-5", "4-4", "3-3"])
def test_a_lower_first_lead_double_may_lead_when_the_higher_ones_sleep_R5(tile):
    result = replay_record(_record({"moves": [{"seat": 2, "tile": tile}]}))

    assert result["rounds"][0]["leader"] == 2


def test_leading_five_five_then_playing_six_six_is_sleeping_tile_played_R5_R32():
    moves = [
        {"seat": 0, "tile": "5-5"},
        {"seat": 1, "tile": "5-6"},
        {"seat": 2, "tile": "6-6"},
    ]

    error = _error_of(_record({"moves": moves}))

    assert error.to_dict()["code"] == "sleeping_tile_played"
    assert (error.rule, error.round, error.move) == ("R32", 1, 2)
    assert error.contradicts == {"round": 1, "move": 0}


def test_leading_four_four_asserts_that_five_five_sleeps_too_R5_R32():
    moves = [
        {"seat": 0, "tile": "4-4"},
        {"seat": 1, "tile": "4-5"},
        {"seat": 2, "tile": "5-5"},
    ]

    error = _error_of(_record({"moves": moves}))

    assert error.code == "sleeping_tile_played"
    assert error.to_dict()["contradicts"] == {"round": 1, "move": 0}


@pytest.mark.parametrize("tile", ["2-2", "1-1", "0-0"])
def test_a_double_below_three_three_cannot_lead_the_game_R5(tile):
    error = _error_of(_record({"moves": [{"seat": 0, "tile": tile}]}))

    assert (error.code, error.rule) == ("opening_tile_invalid", "R5")
    assert (error.round, error.move) == (1, 0)


@pytest.mark.parametrize("tile", ["5-6", "0-1", "3-4"])
def test_a_non_double_cannot_lead_the_game_R5(tile):
    error = _error_of(_record({"moves": [{"seat": 0, "tile": tile}]}))

    assert (error.code, error.rule) == ("opening_tile_invalid", "R5")


def test_on_given_with_a_lead_is_ignored_R30():
    result = replay_record(_record({"moves": [{"seat": 0, "tile": "6-6", "on": 3}]}))

    assert result["rounds"][0]["leader"] == 0


# -- custom first-lead doubles (R40) --


def test_a_custom_list_makes_its_own_doubles_the_first_leads_R40():
    rules = {"first_lead_doubles": ["2-2", "1-1"]}

    led = replay_record(_record({"moves": [{"seat": 0, "tile": "1-1"}]}, rules=rules))
    refused = _error_of(_record({"moves": [{"seat": 0, "tile": "6-6"}]}, rules=rules))

    assert led["rounds"][0]["leader"] == 0
    assert refused.code == "opening_tile_invalid"


def test_leading_the_second_custom_double_asserts_the_first_sleeps_R40_R32():
    moves = [
        {"seat": 0, "tile": "1-1"},
        {"seat": 1, "tile": "1-2"},
        {"seat": 2, "tile": "2-2"},
    ]

    error = _error_of(_record({"moves": moves}, rules={"first_lead_doubles": ["2-2", "1-1"]}))

    assert error.code == "sleeping_tile_played"
    assert error.contradicts == {"round": 1, "move": 0}


def test_the_fourth_of_a_longer_list_may_lead_as_three_tiles_may_sleep_R40():
    rules = {"first_lead_doubles": ["6-6", "5-5", "4-4", "3-3", "2-2"]}

    result = replay_record(_record({"moves": [{"seat": 0, "tile": "3-3"}]}, rules=rules))

    assert result["rounds"][0]["leader"] == 0


def test_leading_the_fifth_listed_double_would_make_four_sleep_R40():
    rules = {"first_lead_doubles": ["6-6", "5-5", "4-4", "3-3", "2-2"]}

    error = _error_of(_record({"moves": [{"seat": 0, "tile": "2-2"}]}, rules=rules))

    assert (error.code, error.rule) == ("opening_tile_invalid", "R40")
    assert (error.round, error.move) == (1, 0)


# -- later leads (R6, R26) --


def test_a_later_round_is_led_by_the_previous_winner_with_any_tile_R6():
    record = _record(
        {"moves": _moves(CEKI_WALK)},
        {"moves": [{"seat": 0, "tile": "0-1"}]},
    )

    result = replay_record(record)

    assert result["rounds"][1]["leader"] == 0


def test_an_unbegun_later_round_names_the_expected_leader_R6():
    result = replay_record(_record(_blocked_round(0), {"moves": []}))

    assert result["rounds"][1]["leader"] == 1
    assert result["rounds"][1]["after"]["next_leader"] == 1


def test_a_later_round_led_by_another_seat_is_wrong_leader_R6():
    record = _record(
        {"moves": _moves(CEKI_WALK)},
        {"moves": [{"seat": 1, "tile": "6-6"}]},
    )

    error = _error_of(record)

    assert (error.code, error.rule, error.round, error.move) == ("wrong_leader", "R6", 2, 0)


def test_after_a_blocked_round_the_manguno_who_won_leads_R6_R20():
    ok = replay_record(_record(_blocked_round(0), {"moves": [{"seat": 1, "tile": "2-5"}]}))
    error = _error_of(_record(_blocked_round(0), {"moves": [{"seat": 0, "tile": "2-5"}]}))

    assert ok["rounds"][1]["leader"] == 1
    assert error.code == "wrong_leader"


def test_a_later_lead_asserts_nothing_sleeps_R6():
    record = _record(
        {"moves": _moves(CEKI_WALK)},
        {
            "moves": [
                {"seat": 0, "tile": "5-5"},
                {"seat": 1, "tile": "5-6"},
                {"seat": 2, "tile": "6-6"},
            ]
        },
    )

    result = replay_record(record)

    assert result["rounds"][1]["ending"] is None


def test_a_later_round_is_not_limited_to_first_lead_doubles_R6():
    record = _record({"moves": _moves(CEKI_WALK)}, {"moves": [{"seat": 0, "tile": "0-0"}]})

    assert replay_record(record)["rounds"][1]["leader"] == 0


def test_the_camat_leads_every_round_even_when_another_seat_won_the_last_R26():
    # Three stones: the CEKI empties the table and seat 0 (holding none) becomes CAMAT.
    # Round 2 is won by seat 1 (MANGUNO, no MATTIKKENG), yet seat 0 leads round 3.
    rules = {"starting_stones": 3}
    elected = replay_record(_record({"moves": _moves(CEKI_WALK)}, _blocked_round(0), rules=rules))
    assert elected["rounds"][0]["camat_elected"] == 0
    assert elected["rounds"][1]["winner"] == 1
    assert elected["rounds"][1]["after"]["next_leader"] == 0

    error = _error_of(
        _record(
            {"moves": _moves(CEKI_WALK)},
            _blocked_round(0),
            {"moves": [{"seat": 1, "tile": "1-1"}]},
            rules=rules,
        )
    )

    assert (error.code, error.rule, error.round, error.move) == ("wrong_leader", "R6", 3, 0)


def test_the_camat_leading_a_later_round_is_accepted_R26():
    record = _record(
        {"moves": _moves(CEKI_WALK)},
        _blocked_round(0),
        {"moves": [{"seat": 0, "tile": "1-1"}]},
        rules={"starting_stones": 3},
    )

    result = replay_record(record)

    assert result["rounds"][2]["leader"] == 0
    assert result["rounds"][2]["after"]["camat"] == 0
