"""The league listens to the referee (issue 14): the referee announces inside its transaction,
the league's receivers write there too, and a league error refuses the referee's write."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from referee import league as referee_league
from referee import services, signals
from referee.engine import RefereeError
from referee.models import Event, Game
from referee.selectors import game_state_for
from scoring import receivers
from scoring.exceptions import PlayerTwice
from scoring.league import ClubLeague
from scoring.models import SeatRound

pytestmark = pytest.mark.django_db

API = "/api/v1"


def _round_one(load_scenario: Any) -> list[tuple[str, dict[str, Any]]]:
    """Round 1 of scenario 01 (a plain FIRST CAPPU, R14) as move events."""
    return [
        ("move", move) for move in load_scenario("01_plain_finish")["record"]["rounds"][0]["moves"]
    ]


def _play(game: Game, events: list[tuple[str, dict[str, Any]]], actor: services.Actor) -> None:
    for kind, payload in events:
        services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=actor)


@pytest.fixture
def heard() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """What the referee announced: (signal, its keyword arguments), in order."""
    got: list[tuple[str, dict[str, Any]]] = []

    def settled(sender: Any, **kwargs: Any) -> None:
        got.append(("round_settled", kwargs))

    def changed(sender: Any, **kwargs: Any) -> None:
        got.append(("rounds_changed", kwargs))

    signals.round_settled.connect(settled, dispatch_uid="test.settled")
    signals.rounds_changed.connect(changed, dispatch_uid="test.changed")
    yield got
    signals.round_settled.disconnect(dispatch_uid="test.settled")
    signals.rounds_changed.disconnect(dispatch_uid="test.changed")


@pytest.fixture
def league_refuses() -> Iterator[None]:
    """A league receiver that refuses every settled round with a league error."""

    def refuse(sender: Any, **kwargs: Any) -> None:
        raise PlayerTwice()

    signals.round_settled.connect(refuse, dispatch_uid="test.refuse")
    yield
    signals.round_settled.disconnect(dispatch_uid="test.refuse")


def test_settling_a_round_announces_it_once_with_the_fold_and_the_events_time_R14(
    organiser, load_scenario, heard
):
    game = services.game_create(players=["A", "B", "C", "D", "E"], created_by=organiser)
    events = _round_one(load_scenario)
    actor = services.Actor(user=organiser)

    _play(game, events[:-1], actor)
    assert heard == []
    _play(game, events[-1:], actor)

    assert [name for name, _ in heard] == ["round_settled"]
    sent = heard[0][1]
    settling = Event.objects.filter(game=game).order_by("-position").first()
    assert sent["game"].pk == game.pk
    assert sent["game"].version == len(events)  # sent after the referee's own write
    assert sent["engine"].rounds[-1].round.number == 1
    assert sent["engine"].rounds[-1].round.outcome.first_cappu == 0  # the engine's ruling
    assert sent["played_at"] == settling.created_at
    assert SeatRound.objects.filter(game=game).count() == 5  # the league listened too


def test_an_import_announces_its_rounds_changed_with_its_date(organiser, load_scenario, heard):
    record = load_scenario("01_plain_finish")["record"]
    played_at = "2026-11-20T19:30:00Z"

    game = services.game_import(record=record, created_by=organiser, played_at=played_at)

    assert [name for name, _ in heard] == ["rounds_changed"]
    sent = heard[0][1]
    assert sent["game"].pk == game.pk
    assert "played_at" not in sent  # each round is dated by the event that settled it
    assert len(sent["engine"].rounds) == len(record["rounds"])
    dates = sorted(game.events.values_list("created_at", flat=True))
    assert dates[0] == dt.datetime(2026, 11, 20, 19, 30, tzinfo=dt.UTC)  # the import's date
    assert len(set(dates)) == len(dates)  # one after another, in the record's order


def test_a_league_error_in_a_receiver_refuses_the_referees_whole_write(
    organiser, load_scenario, league_refuses
):
    game = services.game_create(players=["A", "B", "C", "D", "E"], created_by=organiser)
    events = _round_one(load_scenario)
    actor = services.Actor(user=organiser)
    _play(game, events[:-1], actor)
    version = Game.objects.get(pk=game.pk).version

    with pytest.raises(PlayerTwice):
        _play(game, events[-1:], actor)

    game.refresh_from_db()
    assert game.version == version
    assert game.events.count() == len(events) - 1  # the settling move was not stored
    assert not SeatRound.objects.filter(game=game).exists()


def test_the_api_renders_a_receivers_league_error_with_its_code(
    organiser_client, load_scenario, league_refuses
):
    created = organiser_client.post(
        f"{API}/games/", {"players": ["A", "B", "C", "D", "E"]}, format="json"
    )
    assert created.status_code == 201
    game_id = created.json()["id"]
    events = _round_one(load_scenario)
    for _, move in events[:-1]:
        assert (
            organiser_client.post(f"{API}/games/{game_id}/moves/", move, format="json").status_code
            == 201
        )

    refused = organiser_client.post(f"{API}/games/{game_id}/moves/", events[-1][1], format="json")

    assert refused.status_code == 400
    assert refused.json()["code"] == "player_twice"
    assert Event.objects.filter(game_id=game_id).count() == len(events) - 1


@pytest.fixture
def no_league() -> Iterator[None]:
    """The referee alone: the base ``League`` asked, nobody listening."""
    signals.round_settled.disconnect(receivers.round_settled, dispatch_uid="scoring.settled")
    signals.rounds_changed.disconnect(receivers.rounds_changed, dispatch_uid="scoring.changed")
    referee_league.register(referee_league.League())
    yield
    referee_league.register(ClubLeague())
    signals.round_settled.connect(receivers.round_settled, dispatch_uid="scoring.settled")
    signals.rounds_changed.connect(receivers.rounds_changed, dispatch_uid="scoring.changed")


def test_the_referee_plays_a_game_without_any_league_R3_R14(organiser, load_scenario, no_league):
    game = services.game_create(players=["A", "B", "C", "D", "E"], created_by=organiser)
    _play(game, _round_one(load_scenario), services.Actor(user=organiser))

    game.refresh_from_db()
    assert game.players == ["A", "B", "C", "D", "E"]
    assert game_state_for(game)["round"]["number"] == 2  # round 1 settled by the referee alone
    assert not SeatRound.objects.exists()
    with pytest.raises(RefereeError) as refused:  # a player id means nothing without a league
        services.game_create(players=[17, "B", "C", "D", "E"], created_by=organiser)
    assert (refused.value.code, refused.value.rule) == ("record_invalid", "R3")
