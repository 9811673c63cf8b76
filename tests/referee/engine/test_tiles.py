"""Tiles and seats: the double-six set, its spellings and the clockwise order (R1–R3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.engine.tiles import (
    ALL_TILES,
    SEATS,
    Tile,
    mask_of,
    next_seat,
    seat_before,
    tiles_in,
)

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]


def _record(moves: list[dict]) -> dict:
    return {"format": "domeng-record/1", "players": PLAYERS, "rounds": [{"moves": moves}]}


@pytest.mark.parametrize("text", ["4-6", "6-4", "4|6", "6|4", "[4|6]", "[6|4]"])
def test_a_tile_parses_in_all_three_spellings_with_halves_in_either_order_R1(text):
    tile = Tile.parse(text)

    assert tile == Tile(4, 6)
    assert (tile.low, tile.high) == (4, 6)


@pytest.mark.parametrize("text", ["6-4", "6|4", "[6|4]", "4-6"])
def test_a_tile_is_always_written_smaller_half_first_R1(text):
    assert str(Tile.parse(text)) == "4-6"


@pytest.mark.parametrize(
    "text",
    [
        "7-1",
        "1-7",
        "6 - 4",
        " 6-4",
        "6-4 ",
        "66",
        "[6-6]",
        "6|6]",
        "[6|6",
        "-1-2",
        "6-",
        "a-b",
        "",
        "6-4-2",
        "６-４",
        66,
        6,
        None,
        6.4,
        ["6", "4"],
        (6, 4),
    ],
)
def test_anything_but_the_three_spellings_is_tile_invalid_R1(text):
    with pytest.raises(RefereeError) as caught:
        Tile.parse(text)

    assert caught.value.code == "tile_invalid"
    assert caught.value.rule == "R1"


def test_a_tile_with_its_halves_out_of_order_or_range_cannot_be_built_R1():
    for low, high in [(4, 3), (0, 7), (-1, 2)]:
        with pytest.raises(RefereeError) as caught:
            Tile(low, high)
        assert caught.value.code == "tile_invalid"


def test_the_set_holds_28_distinct_tiles_each_once_R1():
    assert len(ALL_TILES) == 28
    assert len(set(ALL_TILES)) == 28
    assert all(0 <= t.low <= t.high <= 6 for t in ALL_TILES)
    assert [str(t) for t in ALL_TILES[:3]] == ["0-0", "0-1", "0-2"]
    assert str(ALL_TILES[-1]) == "6-6"


def test_a_tiles_pips_are_the_sum_of_its_halves_R1():
    assert Tile.parse("4-6").pips == 10
    assert Tile.parse("0-0").pips == 0
    assert Tile.parse("6-6").pips == 12
    assert sum(t.pips for t in ALL_TILES) == 168


def test_a_lempa_is_a_double_and_nothing_else_is_R2():
    doubles = [t for t in ALL_TILES if t.is_double()]

    assert [str(t) for t in doubles] == ["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"]
    assert not Tile.parse("5-6").is_double()


def test_a_tile_carries_its_halves_and_leaves_the_other_half_open_R7():
    tile = Tile.parse("2-5")

    assert tile.carries(2)
    assert tile.carries(5)
    assert not tile.carries(3)
    assert tile.other(2) == 5
    assert tile.other(5) == 2
    assert Tile.parse("3-3").other(3) == 3


def test_seats_go_clockwise_zero_to_four_and_wrap_R3():
    assert SEATS == 5
    assert [next_seat(s) for s in range(5)] == [1, 2, 3, 4, 0]


def test_the_player_before_a_seat_is_the_one_whose_turn_comes_just_before_R3():
    assert [seat_before(s) for s in range(5)] == [4, 0, 1, 2, 3]


def test_a_record_accepts_every_spelling_and_reports_nothing_wrong_R1():
    moves = [
        {"seat": 0, "tile": "[6|6]"},
        {"seat": 1, "tile": "6|5"},
        {"seat": 2, "tile": "5-5"},
        {"seat": 3, "tile": "5|4"},
    ]

    result = replay_record(_record(moves))

    assert result["rounds"][0]["after"]["next_leader"] == 4


@pytest.mark.parametrize("bad", ["7-1", "6 - 4", "66", "[6-6]", 66, None])
def test_a_malformed_tile_in_a_record_is_tile_invalid_at_its_move_R1(bad):
    moves = [{"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": bad}]

    with pytest.raises(RefereeError) as caught:
        replay_record(_record(moves))

    assert caught.value.to_dict()["code"] == "tile_invalid"
    assert (caught.value.round, caught.value.move, caught.value.rule) == (1, 1, "R1")


def test_a_malformed_tile_as_the_first_lead_is_tile_invalid_R1():
    with pytest.raises(RefereeError) as caught:
        replay_record(_record([{"seat": 0, "tile": "66"}]))

    assert (caught.value.code, caught.value.round, caught.value.move) == ("tile_invalid", 1, 0)


@given(st.integers(0, (1 << 28) - 1))
def test_a_masks_tiles_are_those_whose_bit_it_holds_in_set_order_R1(mask):
    assert tiles_in(mask) == [t for t in ALL_TILES if t.bit & mask]
    assert mask_of(tiles_in(mask)) == mask


def test_every_tile_has_its_own_bit_below_2_to_the_28_R1():
    bits = [t.bit for t in ALL_TILES]

    assert len(set(bits)) == 28
    assert bits == sorted(bits)  # masks list tiles 0-0, 0-1, … 6-6
    assert mask_of(ALL_TILES) == (1 << 28) - 1
