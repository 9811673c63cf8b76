"""Property (issue 11): any sequence of confirmations, disputes, resolutions and changes by
the table follows the verification rules, and every reader sees the stored verification.

A reference model says what each step must do; after every step the row, the state's
cache (what ``GET …/`` shows without a query) and the result agree with it, the version
moves on exactly when the verification changed, and the seat that entered the round's
last move never appears as its verifier.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import selectors, services
from referee.exceptions import ServiceError
from referee.models import Game, RoundVerification, TableToken
from referee.services import verification
from tests.factories import UserFactory
from tests.referee.web.conftest import PLAYERS
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = pytest.mark.django_db

LAST = record_move(*CEKI_WITH_A_PASS[-1])  # seat 0's 2-3 on the 2 end: CEKI
REASONS = ("wrong tile", "wrong end", "")

steps = st.lists(
    st.one_of(
        st.tuples(st.just("confirm"), st.integers(0, 4), st.just("")),
        st.tuples(st.just("dispute"), st.integers(0, 4), st.sampled_from(REASONS)),
        st.tuples(st.just("resolve"), st.none(), st.just("")),
        st.tuples(st.just("redo"), st.none(), st.just("")),
    ),
    min_size=1,
    max_size=8,
)


def _settled_game() -> tuple[Game, dict[int, services.Actor], services.Actor]:
    organiser = UserFactory()
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    phones = {
        seat: services.Actor(token=services.table_join(join_code=game.join_code, seat=seat)[1])
        for seat in range(5)
    }
    for step in CEKI_WITH_A_PASS:
        move = record_move(*step)
        services.event_submit(game_id=game.pk, kind="move", payload=move, actor=phones[step[0]])
    return game, phones, services.Actor(user=organiser)


def _expect(model: dict[str, Any], what: str, seat: int | None, reason: str) -> str | None:
    """Apply one step to the reference model; return the refusal's code, if any."""
    status = model["status"]
    if what == "dispute" and not reason:
        return "verification_reason_invalid"  # the request itself first (400)
    if what in {"confirm", "dispute"} and seat == 0:
        return "verification_own_entry"  # seat 0's phone entered the round's last move
    if what == "confirm":
        if status == "disputed":
            return "round_disputed"
        if status == "unverified":
            model.update(status="confirmed", seat=seat, reason=None, resolution=None)
    elif what == "dispute":
        if status == "disputed" and model["seat"] != seat:
            return "round_disputed"  # another seat's dispute stands until resolved (QA)
        if not (status == "disputed" and model["seat"] == seat and model["reason"] == reason):
            model.update(status="disputed", seat=seat, reason=reason, resolution=None)
    elif what == "resolve":
        if status in {"unverified", "disputed"}:
            model.update(status="resolved", resolution="confirmed")
    else:  # the table undoes the round's last move and enters it again: verify anew
        model.update(status="unverified", seat=None, reason=None, resolution=None)
    return None


def _do(
    game: Game,
    phones: dict[int, services.Actor],
    organiser: services.Actor,
    what: str,
    seat: int | None,
    reason: str,
) -> None:
    if what == "confirm":
        assert seat is not None
        verification.round_confirm(game_id=game.pk, round=1, actor=phones[seat])
    elif what == "dispute":
        assert seat is not None
        verification.round_dispute(game_id=game.pk, round=1, actor=phones[seat], reason=reason)
    elif what == "resolve":
        verification.round_resolve(game_id=game.pk, round=1, actor=organiser)
    else:
        services.event_undo(game_id=game.pk, actor=phones[0])
        services.event_submit(game_id=game.pk, kind="move", payload=LAST, actor=phones[0])


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=steps)
def test_verification_follows_its_rules_and_every_reader_agrees(db, steps) -> None:
    game, phones, organiser = _settled_game()
    model: dict[str, Any] = {"status": "unverified", "seat": None, "reason": None}
    model["resolution"] = None
    for what, seat, reason in steps:
        game.refresh_from_db()
        version = game.version
        before = dict(model)
        expected = _expect(model, what, seat, reason)
        refused: str | None = None
        try:
            _do(game, phones, organiser, what, seat, reason)
        except ServiceError as error:
            refused = error.code
        assert refused == expected, (what, seat, reason)
        game.refresh_from_db()
        row = RoundVerification.objects.filter(game=game, round_number=1).first()
        shown = verification.verification_dict(row)
        assert {k: shown[k] for k in model} == model
        assert selectors.cached_verification(game, 1) == shown  # the state reads this
        state = selectors.game_state_for(game)
        assert state["round"]["previous"]["verification"] == shown
        assert verification.round_verifications(game).get(1, shown) == shown
        if what != "redo":
            assert (game.version > version) == (model != before)
        assert shown["seat"] != 0
    assert TableToken.objects.filter(game=game, revoked_at__isnull=True).count() == 5
