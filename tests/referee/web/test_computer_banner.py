"""Every phone says what a computer seat just played, for a person to place it (R39)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from referee.web.selectors import _computer_move


def state(computer: int | None) -> dict[str, Any]:
    return {
        "seats": [{"seat": s, "computer": "strong" if s == computer else None} for s in range(5)]
    }


MOVE = {"kind": "move", "seat": 3, "tile": "4-6", "on": 4}


def test_a_computer_seats_move_is_shown_to_be_placed_R39():
    assert _computer_move(MOVE, state(3)) == {"seat": 3, "tile": "4-6", "on": 4, "pass": None}


@pytest.mark.parametrize(
    ("last", "computer"),
    [
        (MOVE, None),  # a person's seat
        (MOVE, 2),  # another seat is the computer's
        ({"kind": "hand", "seat": 3, "tiles": None}, 3),  # its hand is not a move
        (None, 3),  # nothing entered yet
    ],
)
def test_nothing_is_shown_but_a_computer_seats_move_R39(last, computer):
    assert _computer_move(last, state(computer)) is None


@pytest.mark.parametrize(
    ("language", "words"), [("fr", "posez-le"), ("pl", "połóż"), ("id", "letakkan")]
)
def test_the_place_it_line_speaks_every_language_R39(language, words):
    text = "Computer (seat %(seat)s) plays %(tile)s on the %(end)s end — place it."
    with translation.override(language):
        assert words in translation.gettext(text)
