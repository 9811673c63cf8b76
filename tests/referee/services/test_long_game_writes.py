"""A long game's writes (issue 29, R27, R37): what a correction and an import write costs
what changed, and is what the ORM would have written."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from referee import folding, services, store
from referee.engine import RefereeError
from referee.engine.records import replay_record
from referee.engine.simulation import random_record
from referee.models import Event, Game
from referee.services import corrections
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@given(
    st.lists(st.integers(-2, 2), max_size=30),
)
def test_shift_runs_cover_exactly_the_events_that_move_R37(shifts):
    """Each run is consecutive live events moved by one shift; together the runs hold
    every event that moves and none that stays."""
    moves = [(position * 2, position * 2 + shift) for position, shift in enumerate(shifts)]
    runs = store.shift_runs(moves)
    covered = {}
    for run in runs:
        inside = [(old, new) for old, new in moves if run.first <= old <= run.last]
        assert len(inside) == run.count
        assert all(new - old == run.shift for old, new in inside)
        covered.update(dict(inside))
    assert covered == {old: new for old, new in moves if old != new}
    # Runs are as long as they can be: two neighbours never share a shift.
    for before, after in zip(runs, runs[1:], strict=False):
        between = [old for old, _ in moves if before.last < old < after.first]
        assert between or before.shift != after.shift


def _live(game: Game) -> list[tuple[int, str, int, dict]]:
    return list(
        Event.objects.filter(game=game, revoked_by=None)
        .order_by("position")
        .values_list("position", "kind", "round_number", "payload")
    )


def _adjust_round_1(game: Game, user) -> list[str]:
    """Adjust after round 1 (R36); the ``UPDATE`` statements of events it ran."""
    result = replay_record(services.game_export(Game.objects.get(pk=game.pk)))
    stones = result["rounds"][0]["after"]["stones"]
    giver = max(range(5), key=lambda seat: stones[seat])
    with CaptureQueriesContext(connection) as captured:
        corrections.round_adjust(
            game_id=game.pk,
            round=1,
            source=giver,
            to=(giver + 1) % 5,
            stones=1,
            reason="R36",
            actor=services.Actor(user=user),
        )
    return [q["sql"] for q in captured if q["sql"].startswith('UPDATE "referee_event"')]


def test_an_imported_games_rounds_leave_room_for_a_ruling_that_moves_nothing_R27_R36():
    """An import places each round's events ``ROUND_GAP`` positions after the round before,
    as a table's entries are placed: an adjustment after round 1 takes a free position and
    writes no other event."""
    user = UserFactory()
    game = services.game_import(record=random_record(random.Random(7), rounds=12), created_by=user)
    before = _live(game)
    for (p, _, r, _), (q, _, s, _) in zip(before, before[1:], strict=False):
        assert q == p + 1 + (store.ROUND_GAP if s != r else 0)
    assert _adjust_round_1(game, user) == []  # nothing moved, nothing revoked
    after = _live(game)
    inserted = [row for row in after if row[1] == "adjustment"]
    assert len(inserted) == 1
    assert inserted[0][2] == 1  # after round 1
    assert [row for row in after if row[1] != "adjustment"] == before


def test_a_table_leaves_room_before_each_new_rounds_first_event_R27():
    """Live entries place a round's first event
    ``ROUND_GAP`` after the last event stored; the round's others follow one by one."""
    user = UserFactory()
    record = random_record(random.Random(11), rounds=3)
    game = services.game_create(
        players=record["players"], rules=record.get("rules") or {}, created_by=user
    )
    for round_number, data in enumerate(record["rounds"], start=1):
        for entry in folding.record_entries([data]):
            services.event_submit(
                game_id=game.pk,
                kind=entry.kind,
                payload=entry.payload,
                actor=services.Actor(user=user),
            )
        rounds = [r for _, _, r, _ in _live(game)]
        assert rounds[-1] == round_number
    rows = _live(game)
    for (p, _, r, _), (q, _, s, _) in zip(rows, rows[1:], strict=False):
        assert q == p + 1 + (store.ROUND_GAP if s != r else 0)


def test_a_game_stored_without_room_moves_its_later_events_in_one_range_R36_R37():
    """A game whose positions follow one another (stored before rounds left room, or whose
    room a round's rulings used up) moves every event after the insertion in one range,
    parked and unparked: two statements, no list of ids, whatever the game's length."""
    user = UserFactory()
    game = services.game_import(record=random_record(random.Random(7), rounds=12), created_by=user)
    rows = list(Event.objects.filter(game=game).order_by("position"))
    for index, event in enumerate(rows):  # as a game stored before gaps
        Event.objects.filter(pk=event.pk).update(position=index)
    before = _live(game)
    updates = _adjust_round_1(game, user)
    assert len(updates) == 2  # park the run, then unpark it
    assert all(" IN (" not in sql for sql in updates)
    after = _live(game)
    assert [p for p, *_ in after] == list(range(len(before) + 1))
    assert [row[1:] for row in after if row[1] != "adjustment"] == [row[1:] for row in before]


def test_rows_written_by_copy_are_the_rows_the_orm_writes_R27():
    """``insert_rows`` (a ``COPY`` on PostgreSQL) stores every field as ``bulk_create``
    does: JSON with integer keys, text, dates to the microsecond, relations."""
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    when = timezone.now() - timedelta(days=3, microseconds=17)
    payloads = [
        {"seat": 1, "tile": "3-5", "on": 5},
        {"seat": 2, "tiles": ["0-0"], "note": "Daeng’s «tile» \\u0000 as text", 3: [1.5]},
    ]

    def rows(offset: int) -> list[Event]:
        return [
            Event(
                game=game,
                position=offset + index,
                kind="move",
                payload=payload,
                round_number=1,
                entered_by="import by ß",
                created_at=when,
            )
            for index, payload in enumerate(payloads)
        ]

    assert store.insert_rows(Event, rows(0)) == 2
    Event.objects.bulk_create(rows(10))
    fields = [f.attname for f in Event._meta.concrete_fields if f.attname != "id"]
    ours = list(Event.objects.filter(position__lt=10).order_by("position").values(*fields))
    orm = list(Event.objects.filter(position__gte=10).order_by("position").values(*fields))
    for row in orm:
        row["position"] -= 10
    assert ours == orm
    assert ours[0]["created_at"] == when


def test_rows_written_from_values_are_the_rows_of_their_instances_R27():
    """``insert_values`` (an import's events, issue 29) stores what ``insert_rows`` of the
    same ``Event(**values)`` stores, every field not given at its default."""
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    when = timezone.now() - timedelta(days=1, microseconds=3)
    values = [
        {
            "game_id": game.pk,
            "position": index,
            "kind": kind,
            "payload": payload,
            "round_number": index + 1,
            "entered_by": "import by ß",
            "created_at": when + timedelta(microseconds=index),
        }
        for index, (kind, payload) in enumerate(
            [("move", {"seat": 1, "tile": "3-5", "on": 5}), ("hand", {"seat": 2, 3: ["0-0"]})]
        )
    ]
    assert store.insert_values(Event, values) == 2
    offset = [{**row, "position": row["position"] + 10} for row in values]
    assert store.insert_rows(Event, [Event(**row) for row in offset]) == 2
    fields = [f.attname for f in Event._meta.concrete_fields if f.attname != "id"]
    ours = list(Event.objects.filter(position__lt=10).order_by("position").values(*fields))
    theirs = list(Event.objects.filter(position__gte=10).order_by("position").values(*fields))
    for row in theirs:
        row["position"] -= 10
    assert ours == theirs
    assert ours[1]["payload"] == {"seat": 2, "3": ["0-0"]}
    assert ours[0]["session_id"] is None
    assert ours[0]["revoked_by_id"] is None


def test_the_events_read_for_a_correction_are_the_orms_in_every_field():
    record = random_record(random.Random(3), rounds=3)
    game = services.game_import(record=record, created_by=UserFactory())
    ours = store.live_events(game)
    orm = list(Event.objects.filter(game=game, revoked_by=None).order_by("position"))
    fields = [f.attname for f in Event._meta.concrete_fields]
    assert [[getattr(e, f) for f in fields] for e in ours] == [
        [getattr(e, f) for f in fields] for e in orm
    ]
    assert all(e.created_at.utcoffset() == timedelta(0) for e in ours)


@pytest.mark.parametrize(
    ("value", "refused"),
    [
        ({"name": "Evi\x00"}, True),
        ({"na\x00me": "Evi"}, True),  # a key too
        ([[{"a": ["b", "\x00"]}]], True),
        ({"name": "Evi \\u0000 spelled out"}, False),  # six characters, no NUL
        ({"name": "Evi", "n": 2**70}, False),  # beyond 64 bits: walked, not refused
        ({"name": "Evi\x00", "n": 2**70}, True),
    ],
)
def test_text_with_a_nul_is_refused_wherever_it_is_R3(value, refused):
    if refused:
        with pytest.raises(RefereeError) as caught:
            folding.check_storable(value)
        assert caught.value.code == "record_invalid"
    else:
        folding.check_storable(value)
