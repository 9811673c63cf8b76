"""Issue 32: a verification vouches for a round's play and its outcome, so a change before
it that alters what the round gave (an adjustment after an earlier round, R36) stands as a
change of the round: a confirmation is reset, an organiser's change resolves a dispute."""

from __future__ import annotations

from typing import Any

import pytest

from referee import selectors, services
from referee.models import Event, Game, RoundVerification
from referee.services import corrections, verification
from referee.services.games import full_fold
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _outcomes(game: Game) -> dict[int, Any]:
    engine, _ = full_fold(game)
    return {r.round.number: ([t.to_dict() for t in r.transfers], r.after) for r in engine.rounds}


def _events(game: Game, number: int) -> list[Any]:
    return list(
        Event.objects.filter(game=game, round_number=number, revoked_by__isnull=True)
        .order_by("position")
        .values_list("kind", "payload")
    )


@pytest.fixture
def three_rounds(load_scenario) -> tuple[Game, services.Actor, services.Actor]:
    organiser = UserFactory()
    record = load_scenario("14_camat_election_reset_25")["record"]
    game = services.game_import(record=record, created_by=organiser)
    phone = services.Actor(token=services.table_join(join_code=game.join_code, seat=1)[1])
    return game, phone, services.Actor(user=organiser)


def _adjust_after_round_1(game: Game, organiser: services.Actor) -> None:
    stones = _outcomes(game)[1][1].stones
    giver = max(range(5), key=lambda seat: stones[seat])
    corrections.round_adjust(
        game_id=game.pk,
        round=1,
        source=giver,
        to="table",
        stones=stones[giver],
        reason="a count corrected",
        actor=organiser,
    )


def _status(game: Game, number: int) -> str:
    return RoundVerification.objects.get(game=game, round_number=number).status


def test_an_adjustment_after_round_1_that_changes_round_3s_outcome_resets_its_confirmation(
    three_rounds,
) -> None:
    game, phone, organiser = three_rounds
    verification.round_confirm(game_id=game.pk, round=3, actor=phone)
    events_before, outcome_before = _events(game, 3), _outcomes(game)[3]

    _adjust_after_round_1(game, organiser)

    assert _events(game, 3) == events_before  # round 3's play is as it was …
    assert _outcomes(game)[3] != outcome_before  # … what it gave is not
    assert _status(game, 3) == RoundVerification.Status.UNVERIFIED
    game.refresh_from_db()
    shown = selectors.game_state_for(game, viewer=None)["round"]["previous"]
    assert (shown["number"], shown["verification"]["status"]) == (3, "unverified")
    again = verification.round_confirm(game_id=game.pk, round=3, actor=phone)
    assert again.verification is not None
    assert again.verification.status == RoundVerification.Status.CONFIRMED


def test_the_organisers_adjustment_resolves_a_dispute_of_a_later_round_it_changes(
    three_rounds,
) -> None:
    game, phone, organiser = three_rounds
    verification.round_dispute(game_id=game.pk, round=3, actor=phone, reason="stones?")

    _adjust_after_round_1(game, organiser)

    row = RoundVerification.objects.get(game=game, round_number=3)
    assert (row.status, row.resolution) == ("resolved", "corrected")


def test_a_confirmation_stands_when_nothing_of_its_round_changed(three_rounds) -> None:
    game, phone, organiser = three_rounds
    verification.round_confirm(game_id=game.pk, round=1, actor=phone)
    verification.round_confirm(game_id=game.pk, round=3, actor=phone)

    corrections.seat_substitute(
        game_id=game.pk, seat=2, round=3, name="Guest", actor=organiser, reason="left"
    )

    assert _status(game, 1) == _status(game, 3) == RoundVerification.Status.CONFIRMED


def test_a_confirmation_written_before_outcomes_were_digested_still_stands(three_rounds) -> None:
    game, phone, organiser = three_rounds
    verification.round_confirm(game_id=game.pk, round=2, actor=phone)
    legacy = verification._events_digest(_events(game, 2))
    RoundVerification.objects.filter(game=game, round_number=2).update(digest=legacy)

    verification.round_confirm(game_id=game.pk, round=2, actor=phone)

    row = RoundVerification.objects.get(game=game, round_number=2)
    assert row.status == RoundVerification.Status.CONFIRMED
    assert row.digest != legacy  # it vouches for the outcome from now on
