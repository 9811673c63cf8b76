"""R34's order for a round's rulings against every other check of that round: its
substitutes (R38) first, then its void (R35), its declared hands, moves and reveals, and
its adjustments (R36) last — the same in an import and in a live correction."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from referee import services
from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.models import Event
from referee.services import corrections
from referee.services.corrections import Change
from tests.factories import GameFactory, UserFactory
from tests.referee.services.test_game_services import play_record_through_services

ROUND_2_LEAD = {"seat": 1, "tile": "3-3"}  # seat 1 leads round 2 after scenario 05


def _hand(data: dict[str, Any]) -> None:
    data["hands"] = {"0": ["0-3", "0-3", "0-4", "0-5", "6-6"]}  # not five distinct (R31)


def _move(data: dict[str, Any]) -> None:
    data["moves"][2] = {"seat": 2, "tile": "4-4"}  # matches neither end (R7)


def _reveal(data: dict[str, Any]) -> None:
    data["reveal"]["0"] = ["0-3", "0-4"]  # one tile short (R33)


def _missing_reveal(data: dict[str, Any]) -> None:
    del data["reveal"]["2"]  # round 2 follows: seat 2's reveal is missing (R18)


FAULTS = {  # a fault of round 1 and its error alone
    "hand": (_hand, ("record_invalid", "R31")),
    "move": (_move, ("tile_does_not_match", "R7")),
    "reveal": (_reveal, ("reveal_invalid", "R33")),
    "missing reveal": (_missing_reveal, ("reveal_missing", "R18")),
}

RULINGS = {  # a failing ruling of round 1, whether it comes before the fault (R34)
    "substitute": ({"substitutes": {"2": " "}}, ("record_invalid", "R38"), True),
    "void": ({"void": {"reason": " "}}, ("ruling_invalid", "R35"), True),
    "adjustment": (
        {"adjustments": [{"from": 0, "to": 0, "stones": 1, "reason": "slip"}]},
        ("ruling_invalid", "R36"),
        False,
    ),
    "valid adjustment": (
        {"adjustments": [{"from": "table", "to": 0, "stones": 1, "reason": "slip"}]},
        None,
        False,
    ),
}


def _record(load_scenario, fault: str | None = None, ruling: str | None = None) -> dict:
    record = copy.deepcopy(load_scenario("05_blocked_no_mattikkeng")["record"])
    first = record["rounds"][0]
    if fault is not None:
        FAULTS[fault][0](first)
    if ruling is not None:
        first.update(copy.deepcopy(RULINGS[ruling][0]))
    record["rounds"].append({"moves": [ROUND_2_LEAD]})
    return record


def _refusal(record: dict) -> tuple[str, str | None, int | None]:
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    return caught.value.code, caught.value.rule, caught.value.round


def _expected(fault: str, ruling: str) -> tuple[str, str | None]:
    _, ruling_error, first = RULINGS[ruling]
    if first:
        assert ruling_error is not None
        return ruling_error
    return FAULTS[fault][1]


def test_the_base_record_and_each_ruling_alone_R34(load_scenario):
    replay_record(_record(load_scenario))
    replay_record(_record(load_scenario, ruling="valid adjustment"))
    for ruling, (_, error, _) in RULINGS.items():
        if error is not None:
            assert _refusal(_record(load_scenario, ruling=ruling))[:2] == error, ruling


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_alone_R34(load_scenario, fault):
    assert _refusal(_record(load_scenario, fault))[:2] == FAULTS[fault][1]


@pytest.mark.parametrize("ruling", RULINGS)
@pytest.mark.parametrize("fault", FAULTS)
def test_an_imported_rounds_ruling_against_its_other_checks_R34(load_scenario, fault, ruling):
    """Substitutes and the void before the round's events; adjustments after its hands,
    moves and reveals — a missing reveal (R18) included, the issue's case."""
    code, rule, number = _refusal(_record(load_scenario, fault, ruling))

    assert (code, rule) == _expected(fault, ruling)
    assert number == 1


# -- live corrections: the same order -----------------------------------------------------------


@pytest.fixture
def organiser():
    return services.Actor(user=UserFactory())


@pytest.fixture
def stored(organiser, load_scenario):
    """Scenario 05 entered at the table, and round 2's lead."""
    game = GameFactory()
    record = _record(load_scenario)
    play_record_through_services(game, record, organiser)
    return game


def _live(game, kind: str, **match: Any) -> Event:
    events = Event.objects.filter(game=game, kind=kind, revoked_by__isnull=True, round_number=1)
    return next(
        e
        for e in events.order_by("position")
        if all(e.payload.get(k) == v for k, v in match.items())
    )


def _fault_changes(game, fault: str) -> list[Change]:
    if fault == "move":
        move = list(
            Event.objects.filter(
                game=game, kind="move", round_number=1, revoked_by__isnull=True
            ).order_by("position")
        )[2]
        return [Change("amend", move.position, payload={"seat": 2, "tile": "4-4"})]
    if fault == "reveal":
        event = _live(game, "reveal", seat=0)
        return [Change("amend", event.position, payload={"seat": 0, "tiles": ["0-3", "0-4"]})]
    assert fault == "missing reveal"
    return [Change("remove", _live(game, "reveal", seat=2).position)]


def _ruling_changes(ruling: str) -> list[Change]:
    data = RULINGS[ruling][0]
    if "substitutes" in data:
        return [Change("insert", None, "substitute", {"round": 1, "seat": 2, "name": " "}, 1)]
    if "void" in data:
        return [Change("insert", None, "void", {"round": 1, **data["void"]}, 1)]
    return [Change("insert", None, "adjustment", {"round": 1, **data["adjustments"][0]}, 1)]


@pytest.mark.django_db
@pytest.mark.parametrize("ruling", RULINGS)
@pytest.mark.parametrize("fault", ["move", "reveal", "missing reveal"])
def test_a_live_corrections_ruling_against_its_rounds_other_checks_R34(
    stored, organiser, fault, ruling
):
    """One correction batch brings both the ruling and the fault into round 1 (a declared
    hand is only its seat's to enter, R31): refused as the import of that record is."""
    changes = _fault_changes(stored, fault) + _ruling_changes(ruling)

    with pytest.raises(RefereeError) as caught:
        corrections.events_correct(game_id=stored.pk, changes=changes, actor=organiser)

    assert (caught.value.code, caught.value.rule) == _expected(fault, ruling)
    assert caught.value.round == 1
