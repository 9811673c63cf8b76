"""Errors that must not tell one phone another seat's declared tiles (R31), limits of
rule sets (R40), tile spellings with trailing characters (R1) and reveals that change
nothing when refused (R33)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.records import replay_record
from referee.engine.rules import MAX_STONES, RuleSet
from referee.engine.tiles import Tile

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]
BLOCKED = [
    {"seat": 0, "tile": "6-6"},
    {"seat": 1, "tile": "3-6"},
    {"seat": 2, "tile": "2-3"},
    {"seat": 3, "tile": "2-6", "on": 2},
    {"seat": 4, "tile": "4-6"},
    {"seat": 0, "tile": "4-5"},
    {"seat": 1, "tile": "5-6", "on": 5},
    *({"seat": s, "pass": True} for s in (2, 3, 4, 0, 1)),
]
SEAT_0_HAND = ["6-6", "4-5", "0-3", "0-4", "0-5"]


def _blocked_game() -> Game:
    game = Game()
    for move in BLOCKED:
        game.push(move)
    return game


def _words(error: RefereeError) -> str:
    return error.message + " " + " ".join(str(v) for v in error.params.values())


def test_declaring_a_tile_another_seat_declared_names_neither_the_tile_nor_the_seat_R31():
    game = Game()
    game.declare(0, SEAT_0_HAND)

    with pytest.raises(RefereeError) as caught:
        game.declare(1, ["0-3", "1-1", "1-2", "1-3", "1-4"])

    assert caught.value.code == "record_invalid"
    assert caught.value.rule == "R31"
    assert "0-3" not in _words(caught.value)
    assert "0" not in caught.value.params.values()


def test_playing_another_seats_declared_tile_does_not_name_that_seat_R31():
    game = Game()
    game.declare(0, SEAT_0_HAND)
    game.push({"seat": 0, "tile": "6-6"})

    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 1, "tile": "4-5"})  # not a match either way: 4-5 is checked later
    assert caught.value.code == "tile_does_not_match"

    game.push({"seat": 1, "tile": "3-6"})
    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 2, "tile": "0-3"})
    assert caught.value.code == "tile_not_in_hand"
    assert "seat 0" not in _words(caught.value)


def test_a_refused_pass_of_a_declared_seat_does_not_name_its_tile_R31():
    game = Game()
    game.declare(1, ["3-6", "1-1", "1-2", "1-3", "1-4"])
    game.push({"seat": 0, "tile": "6-6"})

    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 1, "pass": True})

    assert caught.value.code == "pass_with_playable_tile"
    assert "3-6" not in _words(caught.value)


def test_a_lead_below_a_declared_higher_double_does_not_name_its_holder_R31_R5():
    game = Game()
    game.declare(3, ["6-6", "1-1", "1-2", "1-3", "1-4"])

    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 0, "tile": "5-5"})

    assert caught.value.code == "opening_tile_invalid"
    assert "6-6" not in _words(caught.value)


@pytest.mark.parametrize("key", ["starting_stones", "pass_stones", "pollo_stones"])
def test_a_rule_number_above_the_limit_is_record_invalid_R40(key):
    with pytest.raises(RefereeError) as caught:
        RuleSet.from_dict({key: MAX_STONES + 1})

    assert caught.value.code == "record_invalid"
    assert caught.value.rule == "R40"
    assert RuleSet.from_dict({key: MAX_STONES}) is not None


@pytest.mark.parametrize("text", ["6-6\n", "6-6 ", " 6-6", "[6|6]\n", "6|6\r\n"])
def test_a_tile_with_anything_around_it_is_tile_invalid_R1(text):
    with pytest.raises(RefereeError) as caught:
        Tile.parse(text)

    assert caught.value.code == "tile_invalid"


def test_a_reveal_with_both_tiles_and_pips_is_reveal_invalid_as_in_a_record_R33():
    game = _blocked_game()

    with pytest.raises(RefereeError) as caught:
        game.reveal(0, tiles=["0-3", "0-4", "0-5"], pips=12)

    assert (caught.value.code, caught.value.rule) == ("reveal_invalid", "R33")
    record = {
        "format": "domeng-record/1",
        "players": PLAYERS,
        "rounds": [{"moves": BLOCKED, "reveal": {"0": ["0-3", "0-4", "0-5"]}, "pips": {"0": 12}}],
    }
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    assert (caught.value.code, caught.value.rule) == ("reveal_invalid", "R33")


def test_a_pip_sum_that_later_reveals_contradict_is_named_and_nothing_changes_R33():
    game = _blocked_game()
    game.reveal(2, pips=14)  # seat 2 could hold 1-1, 1-2, 1-3, 1-4 (14 pips) …
    game.reveal(3, tiles=["1-1", "1-2", "1-3", "1-4"])  # … until seat 3 shows those
    game.reveal(0, tiles=["0-3", "0-4", "0-5"])
    game.reveal(1, tiles=["0-0", "0-1", "0-2"])

    with pytest.raises(RefereeError) as caught:
        game.reveal(4, pips=29)

    assert (caught.value.code, caught.value.rule) == ("reveal_invalid", "R33")
    assert caught.value.params["seat"] == 2
    rnd = game.rounds[-1].round
    assert rnd.is_waiting_for_reveals()
    assert 4 not in rnd.pip_sums
    assert rnd.seats_awaiting_reveal() == [4]


def test_a_partial_reveal_before_another_round_is_reveal_missing_R18():
    record = {
        "format": "domeng-record/1",
        "players": PLAYERS,
        "rounds": [
            {"moves": BLOCKED, "reveal": {"0": ["0-3", "0-4", "0-5"]}},
            {"moves": [{"seat": 1, "tile": "1-1"}]},
        ],
    }
    with pytest.raises(RefereeError) as caught:
        replay_record(record)

    assert (caught.value.code, caught.value.round, caught.value.move) == ("reveal_missing", 1, None)
