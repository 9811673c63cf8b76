"""The game row lock, tested in pairs: each race goes wrong without the lock and right with it.

Like pretix's paired tests: the same race is run twice, once as the services
are and once with ``referee.services.guard.lock`` replaced by a plain read (no
``SELECT … FOR UPDATE``). In both runs the fold sleeps a little after reading
the events, so that every racer has read the game before any of them writes;
without the lock they then all decide on the same stale state. Real threads,
each on its own PostgreSQL connection, released together by a barrier.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError

from referee import folding, services
from referee.engine import RefereeError
from referee.engine.records import replay_record
from referee.exceptions import ServiceError
from referee.models import Event, Game, RoundVerification
from referee.services import computer, corrections, verification
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move
from tests.threads import run_together

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = 4
FOLD_PAUSE = 0.25  # seconds: far longer than it takes every racer to read the game
PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]
# The first moves of g101's first round: lead, then seats 3, 4 and 0 in turn.
LEAD = {"seat": 2, "tile": "6-6"}
OPENING = [LEAD, {"seat": 3, "tile": "5-6", "on": 6}, {"seat": 4, "tile": "2-5", "on": 5}]
NEXT_MOVE = {"seat": 0, "tile": "1-2"}


_pause = threading.local()


@pytest.fixture(autouse=True)
def slow_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Widen the window between reading a game and writing to it: each fold then pauses.

    ``FOLD_PAUSE`` seconds, or what the thread set with ``folds_pausing``.
    """
    fold = folding.fold

    def fold_then_pause(*args: Any, **kwargs: Any) -> Any:
        result = fold(*args, **kwargs)
        time.sleep(getattr(_pause, "seconds", FOLD_PAUSE))
        return result

    monkeypatch.setattr(folding, "fold", fold_then_pause)


def folds_pausing(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()`` with this thread's folds pausing ``seconds``."""
    _pause.seconds = seconds
    return call()


@pytest.fixture
def without_the_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """``guard.lock`` as it would be without ``select_for_update()``: a plain read.

    Every service locks through ``guard.lock`` (events, undos, corrections, rulings,
    verification, computer seats, tables), so this one replacement unlocks them all."""
    monkeypatch.setattr(
        services.guard, "lock", lambda game_id, actor=None: Game.objects.get(pk=game_id)
    )


@pytest.fixture
def organiser() -> services.Actor:
    user = get_user_model().objects.create_user("organiser", password="x")
    return services.Actor(user=user)


@pytest.fixture
def game(organiser: services.Actor) -> Game:
    return services.game_create(players=PLAYERS, created_by=organiser.user)


def submit(game: Game, actor: services.Actor, payload: dict[str, Any]) -> Any:
    """Enter a move; what it stored (``Submitted``), or the rules' or the database's refusal."""
    try:
        return services.event_submit(game_id=game.pk, kind="move", payload=payload, actor=actor)
    except (RefereeError, IntegrityError) as exc:
        return exc


def undo(game: Game, actor: services.Actor) -> Any:
    try:
        return services.event_undo(game_id=game.pk, actor=actor)
    except (RefereeError, IntegrityError) as exc:
        return exc


def kinds(results: list[Any]) -> list[str]:
    return sorted(type(r).__name__ for r in results)


def live_positions(game: Game) -> list[int]:
    return list(
        Event.objects.filter(game=game, revoked_by__isnull=True).values_list("position", flat=True)
    )


# -- the same move, entered by several phones at once ----------------------------------


def race_the_lead(game: Game, actor: services.Actor) -> list[Any]:
    return run_together(RACERS, lambda _: submit(game, actor, LEAD))


def test_without_the_lock_racing_phones_all_get_the_same_move_past_the_rules(
    game, organiser, without_the_lock
):
    results = race_the_lead(game, organiser)

    # The racers folded the same empty round and found the lead legal; only the unique
    # (game, position) constraint stopped the others, with a server error instead of a
    # refusal. (Observed: every one of the RACERS - 1 others, every run.)
    assert sum(isinstance(r, services.Submitted) for r in results) == 1, kinds(results)
    assert any(isinstance(r, IntegrityError) for r in results), kinds(results)
    assert live_positions(game) == [0]


def test_with_the_lock_racing_phones_get_the_same_move_accepted_once_and_refused_after(
    game, organiser
):
    results = race_the_lead(game, organiser)

    assert kinds(results) == ["NotYourTurn"] * (RACERS - 1) + ["Submitted"]
    assert live_positions(game) == [0]
    game.refresh_from_db()
    assert game.version == 1


# -- an undo racing the next move ------------------------------------------------------


def race_undo_and_next_move(game: Game, actor: services.Actor) -> list[Any]:
    """Seat 4 undoes its move while seat 0 enters the move that follows it.

    The undo folds twice, quickly; the move folds once, slowly: without the lock
    the move reads the game before the undo commits and writes after it.
    """
    for move in OPENING:
        services.event_submit(game_id=game.pk, kind="move", payload=move, actor=actor)
    return run_together(
        2,
        lambda i: (
            folds_pausing(0.1, lambda: undo(game, actor))
            if i == 0
            else folds_pausing(0.5, lambda: submit(game, actor, NEXT_MOVE))
        ),
    )


def test_without_the_lock_an_undo_racing_the_next_move_leaves_an_illegal_log(
    game, organiser, without_the_lock
):
    results = race_undo_and_next_move(game, organiser)

    # Both were applied to the same stale game: seat 0's move now follows seat 3's,
    # and one of the two version bumps was lost.
    assert kinds(results) == ["Submitted", "Undone"]
    assert live_positions(game) == [0, 1, 3]
    game.refresh_from_db()
    assert game.version == len(OPENING) + 1
    with pytest.raises(RefereeError) as refused:
        services.game_export(game)
    assert refused.value.code == "not_your_turn"


def test_with_the_lock_an_undo_racing_the_next_move_leaves_a_legal_log(game, organiser):
    results = race_undo_and_next_move(game, organiser)

    applied = sum(isinstance(r, (services.Submitted, services.Undone)) for r in results)
    # Undo first: the move is refused (seat 4 must play again). Move first: the undo revokes it.
    assert kinds(results) in (["NotYourTurn", "Undone"], ["Submitted", "Undone"])
    game.refresh_from_db()
    assert game.version == len(OPENING) + applied
    positions = live_positions(game)
    assert positions == list(range(len(positions)))
    record = services.game_export(game)
    replay_record(record)  # a legal game
    assert [m["seat"] for m in record["rounds"][0]["moves"]] == [2, 3, 4][: len(positions)]


# -- an organiser's correction racing the next move (R37) --------------------------------


def race_correction_and_next_move(game: Game, actor: services.Actor) -> list[Any]:
    """The organiser removes seat 4's move (a correction, R37) while seat 0 enters the
    move that follows it; the move folds slowly, so without the lock it writes on the
    game it read before the correction."""
    for move in OPENING:
        services.event_submit(game_id=game.pk, kind="move", payload=move, actor=actor)
    third = Event.objects.get(game=game, position=2)

    def correct() -> Any:
        try:
            return corrections.events_correct(
                game_id=game.pk,
                changes=[corrections.Change("remove", third.position)],
                actor=actor,
                reason="seat 4 had not played",
            )
        except (RefereeError, IntegrityError) as exc:
            return exc

    return run_together(
        2,
        lambda i: (
            folds_pausing(0.05, correct)
            if i == 0
            else folds_pausing(0.5, lambda: submit(game, actor, NEXT_MOVE))
        ),
    )


def test_without_the_lock_a_correction_racing_the_next_move_leaves_an_illegal_log_R37(
    game, organiser, without_the_lock
):
    results = race_correction_and_next_move(game, organiser)

    # Both applied to what they read: seat 0's move now follows seat 3's.
    assert kinds(results) == ["Corrected", "Submitted"]
    assert live_positions(game) == [0, 1, 3]
    with pytest.raises(RefereeError) as refused:
        services.game_export(game)
    assert refused.value.code == "not_your_turn"


def test_with_the_lock_a_correction_racing_the_next_move_leaves_a_legal_log_R37(game, organiser):
    results = race_correction_and_next_move(game, organiser)

    # Correction first: the move is refused (seat 4 plays again). Move first: removing
    # seat 4's move would leave seat 0's out of turn, so the correction is refused (R37).
    assert kinds(results) in (["Corrected", "NotYourTurn"], ["NotYourTurn", "Submitted"])
    record = services.game_export(game)
    replay_record(record)  # a legal game
    game.refresh_from_db()
    applied = sum(not isinstance(r, BaseException) for r in results)
    assert game.version == len(OPENING) + applied


# -- two seats verifying one round at once ---------------------------------------------


@pytest.fixture
def settled_round() -> tuple[Game, dict[int, services.Actor]]:
    """Round 1 settled by seat 0's CEKI, a phone joined to every seat."""
    user = get_user_model().objects.create_user("verifier-organiser")
    game = services.game_create(players=PLAYERS, created_by=user)
    phones = {
        seat: services.Actor(token=services.table_join(join_code=game.join_code, seat=seat)[1])
        for seat in range(5)
    }
    for step in CEKI_WITH_A_PASS:
        services.event_submit(
            game_id=game.pk, kind="move", payload=record_move(*step), actor=phones[step[0]]
        )
    return game, phones


def race_confirm_and_dispute(game: Game, phones: dict[int, services.Actor]) -> list[Any]:
    """Seat 1 confirms round 1 while seat 3 disputes it."""

    def confirm() -> Any:
        try:
            return verification.round_confirm(game_id=game.pk, round=1, actor=phones[1])
        except (ServiceError, IntegrityError) as exc:
            return exc

    def dispute() -> Any:
        try:
            return verification.round_dispute(
                game_id=game.pk, round=1, actor=phones[3], reason="wrong end"
            )
        except (ServiceError, IntegrityError) as exc:
            return exc

    return run_together(2, lambda i: confirm() if i == 0 else dispute())


def test_without_the_lock_a_confirmation_and_a_dispute_of_one_round_collide(
    settled_round, without_the_lock
):
    game, phones = settled_round
    version = Game.objects.get(pk=game.pk).version

    results = race_confirm_and_dispute(game, phones)

    # Both read the round unverified: both write a first row for it, and the database's
    # unique (game, round) turns one of them into a server error.
    assert any(isinstance(r, IntegrityError) for r in results), kinds(results)
    assert Game.objects.get(pk=game.pk).version == version + 1


def test_with_the_lock_a_dispute_stands_whichever_of_the_two_seats_came_first(settled_round):
    game, phones = settled_round
    version = Game.objects.get(pk=game.pk).version

    results = race_confirm_and_dispute(game, phones)

    # Confirm first: the dispute follows it. Dispute first: the confirmation is refused.
    assert kinds(results) in (["Verified", "Verified"], ["RoundDisputed", "Verified"])
    row = RoundVerification.objects.get(game=game, round_number=1)
    assert (row.status, row.seat, row.reason) == ("disputed", 3, "wrong end")
    written = sum(isinstance(r, verification.Verified) for r in results)
    assert Game.objects.get(pk=game.pk).version == version + written


# -- a computer seat's move asked for twice at once (R39) ---------------------------------


@pytest.fixture
def computer_to_move(organiser: services.Actor) -> Game:
    """Seat 3 is the computer's, its hand entered, its lead undone: it is to move."""
    game = services.game_create(players=["A", "B", "C", "Computer", "E"])
    computer.computer_seats_setup(game=game, strategies={3: "greedy"})
    hand = ["6-6", "0-1", "2-6", "0-3", "5-6"]
    computer.computer_hand_declare(game_id=game.pk, seat=3, tiles=hand, actor=organiser)
    services.event_undo(game_id=game.pk, actor=organiser)
    return game


def race_the_computer(game: Game) -> list[Any]:
    def play() -> Any:
        try:
            return computer.computer_turns_play(game_id=game.pk)
        except (RefereeError, ServiceError, IntegrityError) as exc:
            return exc

    return run_together(2, lambda _: play())


def test_without_the_lock_the_computers_move_asked_twice_meets_a_server_error_R39(
    computer_to_move, without_the_lock
):
    results = race_the_computer(computer_to_move)

    # Both chose the lead at the same version and found no answer under its key: the
    # second insert breaks a unique constraint (a 500 at the table).
    assert any(isinstance(r, IntegrityError) for r in results), results
    live = Event.objects.filter(game=computer_to_move, kind="move", revoked_by__isnull=True)
    assert live.count() == 1


def test_with_the_lock_the_computers_move_asked_twice_is_entered_once_R39(computer_to_move):
    results = race_the_computer(computer_to_move)

    assert not [r for r in results if isinstance(r, BaseException)], results
    live = Event.objects.filter(game=computer_to_move, kind="move", revoked_by__isnull=True)
    assert [e.payload for e in live] == [{"seat": 3, "tile": "6-6"}]
