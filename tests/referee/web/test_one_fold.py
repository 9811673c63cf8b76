"""A tap from the phone form folds the game once (issue 14): the page is drawn from the
service's result, never from a second read and fold of the game (no browser)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client

from referee import folding
from referee.models import Event, Game
from tests.referee.web.conftest import enter, live_events
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


@pytest.fixture
def folds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each call of ``referee.folding.fold`` from now on, as the number of events folded."""
    calls: list[int] = []
    fold = folding.fold

    def counted(rules: Any, events: Any, *args: Any, **kwargs: Any) -> Any:
        events = list(events)
        calls.append(len(events))
        return fold(rules, events, *args, **kwargs)

    monkeypatch.setattr(folding, "fold", counted)
    return calls


def tap(client: Client, game: Game, path: str, **fields: Any) -> Any:
    game.refresh_from_db()
    data = {"version": game.version, "key": str(uuid.uuid4()), **fields}
    return client.post(path, data, headers=HTMX)


def test_a_move_tapped_on_the_phone_folds_the_game_once(game, joined, scorekeeper, folds):
    enter(game, scorekeeper(game), [record_move(*m) for m in CEKI_WITH_A_PASS[:4]])
    client = joined(game)
    game.refresh_from_db()
    folds.clear()

    response = tap(client, game, "/table/move/", **record_move(*CEKI_WITH_A_PASS[4]))

    assert response.status_code == 201
    assert live_events(game) == 5
    assert folds == [4]  # the round so far, folded once by event_submit; the page reuses it
    assert "Entered:" in response.content.decode()


def test_a_hand_declared_on_the_phone_folds_the_game_once_R31(game, joined, folds):
    besse = joined(game, seat=1)
    folds.clear()

    response = tap(besse, game, "/table/hand/", tiles=["1-6", "2-6", "5-5", "3-4", "0-0"])

    assert response.status_code == 201
    assert Event.objects.filter(game=game, kind=Event.Kind.HAND).count() == 1
    assert folds == [0]


def test_a_retried_tap_is_not_entered_again_and_the_page_reads_the_game_as_it_is(
    game, joined, scorekeeper, folds
):
    enter(game, scorekeeper(game), [record_move(*CEKI_WITH_A_PASS[0])])
    client = joined(game)
    game.refresh_from_db()
    data = {"version": game.version, "key": str(uuid.uuid4()), **record_move(*CEKI_WITH_A_PASS[1])}
    assert client.post("/table/move/", data, headers=HTMX).status_code == 201
    folds.clear()

    again = client.post("/table/move/", data, headers=HTMX)

    assert again.status_code == 201
    assert "That tap had already been counted: it counts once." in again.content.decode()
    assert live_events(game) == 2
    assert folds == [2]  # nothing written: the page folds the game as it is now
