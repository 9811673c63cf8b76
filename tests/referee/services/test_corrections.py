"""Corrections through the services: rounds keep the time they were settled at the table
(issue 13 item 5), whichever correction touches them, and the league follows (R37)."""

from __future__ import annotations

import copy

import pytest

from bench import corrections as bench_corrections
from referee import folding, services
from referee.engine.records import Record, replay_record
from referee.models import Event
from referee.services import corrections
from scoring.lines import game_lines
from scoring.models import SeatRound
from tests.factories import GameFactory, UserFactory
from tests.referee.services.test_game_services import play_record_through_services, submit

LINE_FIELDS = (
    "round_number", "seat", "won", "first_cappu", "ceki", "pollo", "manguno", "mattikkeng",
    "cucuq", "passes", "passebunge", "stones_received", "stones_given", "stones_held",
    "camat_elected", "cycle_ended",
)  # fmt: skip

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


# -- a correction writes only what it changes (issue 9: corrections made cheap) ------------


@pytest.fixture
def forty_rounds(organiser, load_scenario):
    """g101 (40 rounds) with round 1's LEMPA 0-0 (move 13) entered as a pass: a double keeps
    the open ends, so the mistaken game stays legal to its end."""
    record = load_scenario("g101_generated_40_rounds")["record"]
    mistaken = copy.deepcopy(record)
    mistaken["rounds"][0]["moves"][13] = {"seat": 0, "pass": True}
    return services.game_import(record=mistaken, created_by=organiser.user), record


def _events(game) -> dict[int, tuple[int, object]]:
    return {
        e.pk: (e.position, e.revoked_by_id) for e in Event.objects.filter(game=game).order_by("pk")
    }


def _seat_rounds(game) -> dict[int, tuple]:
    return {
        row[0]: row[1:]
        for row in SeatRound.objects.filter(game=game).values_list("pk", *LINE_FIELDS)
    }


def _replayed_lines(record) -> list[tuple]:
    parsed = Record.parse(record)
    engine, _ = folding.fold(
        parsed.rules, [(e.kind, e.payload) for e in folding.record_entries(parsed.rounds)]
    )
    return sorted(tuple(line.to_dict()[f] for f in LINE_FIELDS) for line in game_lines(engine))


def test_amending_round_1_rewrites_only_the_event_and_the_league_rows_that_change_R37(
    forty_rounds, organiser
):
    game, record = forty_rounds
    events, rows = _events(game), _seat_rounds(game)

    corrections.events_correct(
        game_id=game.pk,
        actor=organiser,
        changes=[corrections.Change("amend", 13, payload={"seat": 0, "tile": "0-0"})],
    )

    after = _events(game)
    new = sorted(set(after) - set(events))
    assert len(new) == 1
    assert after[new[0]][0] == 13
    revoked = [pk for pk, (_, by) in after.items() if by is not None]
    assert len(revoked) == 1
    assert events[revoked[0]][0] == 13
    assert {pk: after[pk] for pk in events if pk != revoked[0]} == {
        pk: v for pk, v in events.items() if pk != revoked[0]
    }  # no other event row touched
    now = _seat_rounds(game)
    kept = set(now) & set(rows)
    assert kept
    assert all(now[pk] == rows[pk] for pk in kept)
    rewritten = set(now) - set(rows)
    assert rewritten
    assert len(rewritten) == len(set(rows) - set(now))
    assert sorted(now.values()) == _replayed_lines(record)
    assert replay_record(services.game_export(game)) == replay_record(record)


def test_voiding_round_1_moves_no_later_event_and_rewrites_none_R35_R37(organiser, load_scenario):
    """A 40-round game whose round 1 may be voided with every later round legal (bench):
    the void takes the room round 2's lead left (``store.ROUND_GAP``), so no event moves."""
    seed, record = bench_corrections.game_record()
    game = services.game_import(record=record, created_by=organiser.user)
    events = _events(game)
    last_of_round_1 = max(e.position for e in Event.objects.filter(game=game, round_number=1))

    corrections.round_void(game_id=game.pk, round=1, reason="dealt face up", actor=organiser)

    after = _events(game)
    assert set(events) <= set(after)
    assert len(after) == len(events) + 1
    for pk, (position, revoked_by) in events.items():
        assert after[pk] == (position, revoked_by)
    void = Event.objects.get(game=game, kind="void")
    assert void.position == last_of_round_1 + 1
    voided = copy.deepcopy(record)
    voided["rounds"][0]["void"] = {"reason": "dealt face up"}
    assert replay_record(services.game_export(game)) == replay_record(voided)
    assert sorted(_seat_rounds(game).values()) == _replayed_lines(voided)
