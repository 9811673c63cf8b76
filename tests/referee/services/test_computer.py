"""A computer seat's turn (R39) entered once however many requests look at the table at once.

Real threads, each on its own PostgreSQL connection, released together by a
barrier: every one of them sees the computer to move and enters its move; the
game row's lock, the version precondition and the idempotency key let exactly
one of those moves through.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from referee import services
from referee.models import Event, Game, RefusedEvent
from referee.services import computer
from tests.threads import run_together

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = 4
COMPUTER = 3
HAND = ["6-6", "0-1", "2-6", "0-3", "5-6"]  # it holds 6-6: it leads the game (R5)


@pytest.fixture
def game_awaiting_the_computer() -> Game:
    """Seat 3 is the computer's, its hand entered, its lead undone: it is to move."""
    organiser = get_user_model().objects.create_user("director")
    game = services.game_create(players=["A", "B", "C", "Computer", "E"], created_by=organiser)
    computer.computer_seats_setup(game=game, strategies={COMPUTER: "strong"})
    actor = services.Actor(user=organiser)
    computer.computer_hand_declare(game_id=game.pk, seat=COMPUTER, tiles=HAND, actor=actor)
    assert Event.objects.filter(game=game, kind="move").count() == 1  # it led at once
    services.event_undo(game_id=game.pk, actor=actor)
    return game


def test_racing_requests_enter_the_computers_move_exactly_once_r39(game_awaiting_the_computer):
    game = game_awaiting_the_computer

    results = run_together(RACERS, lambda _: computer.computer_turns_play(game_id=game.pk))

    assert not [r for r in results if isinstance(r, BaseException)]
    live = Event.objects.filter(game=game, kind="move", revoked_by__isnull=True)
    assert [(e.payload, e.entered_by) for e in live] == [
        ({"seat": COMPUTER, "tile": "6-6"}, "computer (strong) at seat 3")
    ]
    assert not RefusedEvent.objects.filter(game=game).exists()
    assert sum(results) >= 1
