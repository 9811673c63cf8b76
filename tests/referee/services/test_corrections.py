"""Corrections through the services: rounds keep the time they were settled at the table
(issue 13 item 5), whichever correction touches them, and the league follows (R37)."""

from __future__ import annotations

import pytest

from referee import corrections, services
from referee.models import Event
from scoring.models import SeatRound
from tests.factories import GameFactory, UserFactory
from tests.referee.services.test_game_services import play_record_through_services, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return services.Actor(user=UserFactory())


@pytest.fixture
def blocked(organiser, load_scenario):
    """Scenario 05 (a blocked round settled by seat 4's pip sum, R18) and round 2's lead."""
    game = GameFactory()
    play_record_through_services(
        game, load_scenario("05_blocked_no_mattikkeng")["record"], organiser
    )
    submit(game, "move", {"seat": 1, "tile": "3-3"}, organiser)
    return game


def _times(game) -> dict[int, object]:
    return dict(SeatRound.objects.filter(game=game).values_list("round_number", "played_at"))


def _settling_reveal(game) -> Event:
    return Event.objects.get(game=game, kind="reveal", payload__seat=4, revoked_by__isnull=True)


def test_amending_the_reveal_that_settled_a_round_keeps_its_time_R18_R37(blocked, organiser):
    before = _times(blocked)
    reveal = _settling_reveal(blocked)

    services.event_amend(
        game_id=blocked.pk,
        position=reveal.position,
        payload={"seat": 4, "pips": 31},
        actor=organiser,
    )

    assert SeatRound.objects.filter(game=blocked).count() == 5
    assert _times(blocked) == before
    assert _settling_reveal(blocked).created_at == reveal.created_at


@pytest.mark.parametrize("how", ["undo and re-enter", "remove and insert", "void and unvoid"])
def test_no_correction_re_dates_a_round_that_stays_settled_R35_R37(blocked, organiser, how):
    before = _times(blocked)
    reveal = _settling_reveal(blocked)
    if how == "undo and re-enter":
        services.event_undo(game_id=blocked.pk, actor=organiser)  # round 2's lead
        submit(blocked, "move", {"seat": 1, "tile": "3-3"}, organiser)
    elif how == "remove and insert":
        lead = Event.objects.get(game=blocked, round_number=2)
        corrections.events_correct(
            game_id=blocked.pk,
            actor=organiser,
            changes=[
                corrections.Change("remove", reveal.position),
                corrections.Change("insert", lead.position, "reveal", {"seat": 4, "pips": 32}, 1),
            ],
        )
    else:
        corrections.round_void(game_id=blocked.pk, round=2, reason="dealt face up", actor=organiser)
        void = Event.objects.get(game=blocked, kind="void", revoked_by__isnull=True)
        corrections.events_correct(
            game_id=blocked.pk,
            actor=organiser,
            changes=[corrections.Change("remove", void.position)],
        )

    assert _times(blocked) == before
