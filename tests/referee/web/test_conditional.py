"""The phone form's writes read versions and conditional headers with the API's parser."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client

from referee.models import Game
from tests.referee.web.conftest import enter, live_events
from tests.referee.web.walks import BLOCKED

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def _move(game: Game) -> tuple[str, dict[str, Any]]:
    return "/table/move/", {"seat": 0, "tile": "6-6"}


def _reveal(game: Game) -> tuple[str, dict[str, Any]]:
    return "/table/reveal/", {"seat": 0, "pips": 3}


def _undo(game: Game) -> tuple[str, dict[str, Any]]:
    return "/table/undo/", {}


TAPS = {"move": _move, "reveal": _reveal, "undo": _undo}


@pytest.fixture(params=list(TAPS))
def tap(request, joined, game, scorekeeper):
    """A tap of the phone form (its game prepared so the tap is legal), as a function of
    the version field and extra headers."""
    if request.param == "undo":
        enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    if request.param == "reveal":
        enter(game, scorekeeper(game), BLOCKED)
    client: Client = joined(game)
    path, fields = TAPS[request.param](game)

    def send(version: str | None = None, **headers: str) -> Any:
        game.refresh_from_db()
        shown = str(game.version) if version is None else version
        data = {"version": shown, "key": str(uuid.uuid4()), **fields}
        return client.post(path, data, headers={**HTMX, **headers})

    return send


def _version(game: Game) -> int:
    return Game.objects.get(pk=game.pk).version


@pytest.mark.parametrize("version", ["٣", "+0", "00", "0.0", " ", "-1", "9" * 5000, "1e3"])
def test_a_version_field_that_is_not_plain_digits_is_refused_and_nothing_changes(
    tap, game, version
):
    before = (_version(game), live_events(game))

    response = tap(version)

    assert response.status_code == 400
    assert (_version(game), live_events(game)) == before


def test_the_current_version_and_a_strong_if_match_let_a_tap_through(request, tap, game):
    version = _version(game)

    response = tap(**{"If-Match": f'"{version}"'})

    assert response.status_code == (200 if request.node.callspec.params["tap"] == "undo" else 201)
    assert _version(game) == version + 1


@pytest.mark.parametrize("header", ['W/"{v}"', '"{v1}"'])
def test_a_weak_or_stale_if_match_on_a_tap_is_refused_and_nothing_changes(tap, game, header):
    version = _version(game)

    response = tap(**{"If-Match": header.format(v=version, v1=version + 1)})

    # 412 as in the API, and the page says why (not "another phone entered something").
    assert response.status_code == 412
    assert "If-Match" in response.content.decode()
    assert "Another phone" not in response.content.decode()
    assert _version(game) == version


@pytest.mark.parametrize("value", ["3", '"3', "0" * 5000])
@pytest.mark.parametrize("header", ["If-Match", "If-None-Match"])
def test_a_malformed_conditional_header_on_a_tap_is_400_and_nothing_changes(
    tap, game, header, value
):
    version = _version(game)

    response = tap(**{header: value})

    assert response.status_code == 400
    assert header in response.content.decode()
    assert _version(game) == version


def test_a_form_without_an_entity_tag_fails_a_tag_list_and_passes_star(game):
    client = Client()
    data = {"seat": ""}

    refused = client.post(f"/join/{game.join_code}/", data, headers={"If-Match": '"0"'})
    accepted = client.post(f"/join/{game.join_code}/", data, headers={"If-Match": "*"})

    assert refused.status_code == 412
    assert accepted.status_code == 302
