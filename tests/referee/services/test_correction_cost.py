"""What a ruling or correction of round k costs (issue 29, R27, R36, R37): it judges the
rounds from k on, resumed at round k - 1's stored standing, so the rounds the rules core
begins and the SQL queries of a ruling on the last round do not grow with the game, and
those of a ruling on round k grow with the rounds after it only. Costs are counted
(``Game.begin_round`` calls, queries), never timed."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.long_game import rounds_begun
from referee import services, settled, store
from referee.engine.records import replay_record
from referee.engine.simulation import random_record
from referee.models import Event
from referee.services import corrections
from scoring.models import SeatRound
from tests.factories import UserFactory
from tests.referee.conftest import token_client

pytestmark = pytest.mark.django_db


def _game(rounds: int):
    record = random_record(random.Random(29), rounds=rounds)
    return services.game_import(record=record, created_by=UserFactory())


def _adjust(game, number: int, actor) -> tuple[int, int]:
    """Adjust one stone after round ``number`` (R36): (rounds begun, queries)."""
    after = settled.game_rounds(game).results[number - 1]["after"]["stones"]
    holder = next(seat for seat, stones in enumerate(after) if stones)
    with CaptureQueriesContext(connection) as queries, rounds_begun() as begun:
        corrections.round_adjust(
            game_id=game.pk,
            round=number,
            source=holder,
            to=(holder + 1) % 5,
            stones=1,
            reason="a miscount (R36)",
            actor=services.Actor(user=game.created_by),
        )
    return begun[0], len(queries)


def _check(game) -> None:
    """The stored rows say what a replay of the corrected game says: a fresh import."""
    assert settled.differences(game) == []
    exported = services.game_export(game)
    assert settled.game_rounds(game).result() == replay_record(exported)
    fresh = services.game_import(record=exported, created_by=UserFactory())
    fields = ("round_number", "seat", "stones_held", "stones_given", "stones_received", "won")
    rows = list(SeatRound.objects.filter(game=game).order_by(*fields[:2]).values_list(*fields))
    again = list(SeatRound.objects.filter(game=fresh).order_by(*fields[:2]).values_list(*fields))
    assert rows == again


def test_a_ruling_on_the_last_round_costs_the_same_at_3_and_12_rounds_R36_issue_29():
    short, long = _game(3), _game(12)

    short_cost = _adjust(short, 3, None)
    long_cost = _adjust(long, 12, None)

    assert long_cost == short_cost  # rounds begun and queries alike
    assert long_cost[0] <= 3  # the last round judged again, and the state's read
    _check(short)
    _check(long)


def _substitute(game, number: int) -> int:
    """Seat 2 sat by a guest from round ``number`` on (R38; no stone moves): rounds begun."""
    with rounds_begun() as begun:
        corrections.seat_substitute(
            game_id=game.pk,
            seat=2,
            round=number,
            name=f"Guest from round {number}",
            actor=services.Actor(user=game.created_by),
        )
    return begun[0]


def test_a_substitute_from_round_k_begins_the_rounds_from_k_on_R38_issue_29():
    game = _game(12)
    last = _substitute(game, 12)

    begun = {number: _substitute(game, number) for number in (9, 4, 1)}

    # Each judges rounds k…12 (12 - k + 1 of them) where one from the last round judges
    # one, besides the same reads after it.
    assert begun == {number: (12 - number + 1) - 1 + last for number in (9, 4, 1)}
    _check(game)


def _undo(game) -> tuple[int, int]:
    """Undo the game's last event (R37): (rounds begun, queries)."""
    with CaptureQueriesContext(connection) as queries, rounds_begun() as begun:
        services.event_undo(game_id=game.pk, actor=services.Actor(user=game.created_by))
    return begun[0], len(queries)


def test_an_undo_refolds_its_own_round_only_at_3_and_12_rounds_R37_issue_29():
    short, long = _game(3), _game(12)

    short_cost, long_cost = _undo(short), _undo(long)  # the last round's settling event
    again = _undo(long)  # an event of the round in play now

    assert long_cost == short_cost
    assert again[0] == long_cost[0]
    _check(short)
    _check(long)


def _remove_last_adjustment(game) -> tuple[int, int]:
    """Take back the game's last adjustment by a correction that removes it (R37), as the
    organiser: (rounds begun, queries)."""
    event = Event.objects.filter(game=game, kind="adjustment", revoked_by=None).latest("position")
    change = corrections.Change("remove", event.position)
    with CaptureQueriesContext(connection) as queries, rounds_begun() as begun:
        corrections.events_correct(
            game_id=game.pk, changes=[change], actor=services.Actor(user=game.created_by)
        )
    return begun[0], len(queries)


def test_a_correction_of_the_last_round_costs_the_same_at_3_and_12_rounds_R37_issue_29():
    short, long = _game(3), _game(12)
    _adjust(short, 3, None)
    _adjust(long, 12, None)

    short_cost, long_cost = _remove_last_adjustment(short), _remove_last_adjustment(long)

    assert long_cost == short_cost
    assert long_cost[0] <= 3
    _check(short)
    _check(long)


@pytest.mark.parametrize("rounds", [3, 12])
def test_an_import_begins_each_round_once_and_its_last_once_more_R27(rounds: int) -> None:
    """An import replays the record once to judge it, and folds only its last round again
    for the round cache (issue 29): ``rounds + 1`` rounds begun, where folding every
    event again began ``2 × rounds``."""
    record = random_record(random.Random(29), rounds=rounds)
    with rounds_begun() as begun:
        services.game_import(record=record, created_by=UserFactory())
    assert begun[0] == rounds + 1


def test_the_result_and_export_cost_the_same_queries_and_no_parse_as_the_game_grows_R27() -> None:
    """The result and the export of a game of 4 and of 16 rounds: the same queries, no
    round begun, one stored round's text parsed (issue 29: the others are joined)."""
    costs = []
    for rounds in (4, 16):
        game = _game(rounds)
        api = token_client(game.created_by)
        for read in ("result/", "record/"):
            with (
                CaptureQueriesContext(connection) as queries,
                rounds_begun() as begun,
                mock.patch.object(store, "settled_loads", wraps=store.settled_loads) as loads,
            ):
                assert api.get(f"/api/v1/games/{game.pk}/{read}").status_code == 200
            costs.append((read, len(queries), begun[0], loads.call_count))
    assert costs[:2] == costs[2:]
    assert all(parsed == 1 for *_, parsed in costs)
