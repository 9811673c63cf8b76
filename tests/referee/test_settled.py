"""The settled rounds stored with the event that settled them (issue 29, R27): written in
the same transaction, deleted from the round a correction changes, written again, and
always equal to the replay of the live events."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.long_game import rounds_begun
from referee import services, settled
from referee.engine.records import replay_record
from referee.engine.simulation import random_record
from referee.models import Event, SettledRound
from referee.services import corrections
from tests.factories import GameFactory, UserFactory
from tests.referee.services.test_game_services import play_record_through_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return services.Actor(user=UserFactory())


def _numbers(game) -> list[int]:
    return list(SettledRound.objects.filter(game=game).values_list("number", flat=True))


def test_a_round_settled_at_the_table_is_stored_in_its_transaction_R18_R27(organiser):
    game = GameFactory()
    record = random_record(random.Random(3), rounds=3)

    play_record_through_services(game, record, organiser)

    assert _numbers(game) == [1, 2, 3]
    assert settled.differences(game) == []
    assert settled.game_rounds(game).result() == replay_record(record)
    assert services.game_export(game)["rounds"] == replay_record_rounds(record)


def replay_record_rounds(record):
    """The record's rounds as an export writes them back (its own replay's export)."""
    user = UserFactory()
    return services.game_export(services.game_import(record=record, created_by=user))["rounds"]


def test_an_import_stores_every_settled_round_and_a_read_then_folds_nothing_R27():
    user = UserFactory()
    record = random_record(random.Random(5), rounds=6)
    game = services.game_import(record=record, created_by=user)
    assert _numbers(game) == [1, 2, 3, 4, 5, 6]

    with CaptureQueriesContext(connection) as queries, rounds_begun() as begun:
        rounds = settled.game_rounds(game)

    assert rounds.stored == 6
    assert begun[0] == 0  # no round replayed
    assert len(queries) == 2  # the stored rounds, the events after them
    assert rounds.result() == replay_record(record)


def test_a_game_stored_without_its_rows_gets_them_at_its_first_read_R27():
    user = UserFactory()
    record = random_record(random.Random(7), rounds=4)
    game = services.game_import(record=record, created_by=user)
    SettledRound.objects.filter(game=game, number__gte=2).delete()  # as before issue 29

    assert settled.game_rounds(game).result() == replay_record(record)
    assert _numbers(game) == [1, 2, 3, 4]
    assert settled.differences(game) == []


def test_an_adjustment_of_round_one_rewrites_the_rows_from_round_one_R36(organiser):
    user = organiser.user
    record = random_record(random.Random(11), rounds=4)
    game = services.game_import(record=record, created_by=user)
    before = dict(SettledRound.objects.filter(game=game).values_list("number", "result"))
    result = replay_record(record)
    holder = next(seat for seat, n in enumerate(result["rounds"][0]["after"]["stones"]) if n)
    receiver = (holder + 1) % 5

    corrections.round_adjust(
        game_id=game.pk,
        round=1,
        source=holder,
        to=receiver,
        stones=1,
        reason="a miscount (R36)",
        actor=organiser,
    )

    after = dict(SettledRound.objects.filter(game=game).values_list("number", "result"))
    assert settled.differences(game) == []
    assert after[1]["after"] != before[1]["after"]  # round 1's row says the adjustment
    assert settled.game_rounds(game).result() == replay_record(services.game_export(game))


def test_an_undo_of_a_settling_reveal_deletes_its_row_and_the_fold_reopens_it_R18_R37(
    organiser, load_scenario
):
    game = GameFactory()
    play_record_through_services(
        game, load_scenario("05_blocked_no_mattikkeng")["record"], organiser
    )
    assert _numbers(game) == [1]

    services.event_undo(game_id=game.pk, actor=organiser)

    assert _numbers(game) == []
    assert Event.objects.filter(game=game, revoked_by__isnull=False).count() == 1
    rounds = settled.game_rounds(game)
    assert rounds.stored == 0
    assert not rounds.engine.rounds[0].is_closed()  # waiting for seat 4's reveal again (R18)
    assert settled.differences(game) == []


def test_differences_names_a_row_that_no_longer_says_what_the_replay_says_R27():
    user = UserFactory()
    game = services.game_import(record=random_record(random.Random(13), rounds=3), created_by=user)
    row = SettledRound.objects.get(game=game, number=2)
    row.result = {**row.result, "winner": None if row.result["winner"] is not None else 0}
    row.save()

    assert settled.differences(game) == [2]


def test_the_live_events_a_correction_reads_are_the_orm_s_rows_issue_29(organiser):
    from referee import store

    game = services.game_import(
        record=random_record(random.Random(17), rounds=2), created_by=organiser.user
    )
    Event.objects.filter(game=game, position=0).update(revoked_by=None)
    ours = store.live_events(game)
    orms = list(game.events.filter(revoked_by__isnull=True).order_by("position"))

    assert [e.pk for e in ours] == [e.pk for e in orms]
    assert len(ours) > 10
    for mine, theirs in zip(ours, orms, strict=True):
        assert {f.attname: getattr(mine, f.attname) for f in Event._meta.concrete_fields} == {
            f.attname: getattr(theirs, f.attname) for f in Event._meta.concrete_fields
        }
        assert mine._state.adding is False
        assert mine._state.db == "default"
