"""Fixtures for the stored-game tests: organisers, phones and a game driven over HTTP."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.test import APIClient

from referee.engine.simulation import PLAYERS
from referee.models import Game
from tests.factories import UserFactory, table_key

API = "/api/v1"
PROBLEM = "application/problem+json"


def token_client(user: Any) -> APIClient:
    """A client signed in as ``user`` with a DRF token (``Authorization: Token <key>``)."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def table_client(key: str) -> APIClient:
    """A phone: ``Authorization: Table <key>``."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Table {key}")
    return client


def shows_tile(content: Any, tile: str) -> bool:
    """Whether ``content`` (a JSON body, a record, a page's text) shows ``tile`` (``a-b``) as a
    tile of its own — not as characters inside an id or a time (a UUID's ``…a0-2b…``, a
    date's ``2026-11-…``), which a plain ``in`` would find by chance."""
    text = content if isinstance(content, str) else str(content)
    return re.search(rf"(?<![\w-]){re.escape(tile)}(?![\w-])", text) is not None


def without_verification(result: dict[str, Any]) -> dict[str, Any]:
    """A stored game's result without each round's ``verification`` (present on every one)."""
    for rnd in result["rounds"]:
        status = rnd.pop("verification")["status"]
        assert status in {"unverified", "confirmed", "disputed", "resolved"}
    return result


class GameApi:
    """One stored game driven over HTTP by its organiser, a scorekeeper and five seat phones.

    ``move``/``reveal``/``declare`` post as the phone of the seat named in the
    body unless ``client`` is given; ``play_record`` enters a whole
    ``domeng-record/1`` record event by event and checks each is accepted.
    """

    def __init__(self, game: Game, organiser: APIClient) -> None:
        self.game = game
        self.id = str(game.pk)
        self.organiser = organiser
        self.scorekeeper = table_client(table_key(game=game))
        self._phones: dict[int, APIClient] = {}

    def url(self, suffix: str = "") -> str:
        return f"{API}/games/{self.id}/{suffix}"

    def phone(self, seat: int) -> APIClient:
        """The phone joined to ``seat`` (made once per seat)."""
        if seat not in self._phones:
            self._phones[seat] = table_client(table_key(game=self.game, seat=seat))
        return self._phones[seat]

    def _client_for(self, body: dict[str, Any], client: APIClient | None) -> APIClient:
        if client is not None:
            return client
        seat = body.get("seat")
        return self.phone(seat) if isinstance(seat, int) and 0 <= seat <= 4 else self.scorekeeper

    def post(
        self, suffix: str, body: Any = None, *, client: APIClient | None = None, **headers: str
    ) -> Response:
        body = {} if body is None else body
        who = self._client_for(body if isinstance(body, dict) else {}, client)
        return who.post(self.url(suffix), body, format="json", headers=headers or None)

    def move(self, body: dict[str, Any], **kwargs: Any) -> Response:
        return self.post("moves/", body, **kwargs)

    def play(self, seat: int, tile: str, on: int | None = None, **kwargs: Any) -> Response:
        body: dict[str, Any] = {"seat": seat, "tile": tile}
        if on is not None:
            body["on"] = on
        return self.move(body, **kwargs)

    def pass_(self, seat: int, **kwargs: Any) -> Response:
        return self.move({"seat": seat, "pass": True}, **kwargs)

    def reveal(
        self, seat: int, *, tiles: list[str] | None = None, pips: int | None = None, **kwargs: Any
    ) -> Response:
        body: dict[str, Any] = {"seat": seat}
        if tiles is not None:
            body["tiles"] = tiles
        if pips is not None:
            body["pips"] = pips
        return self.post("reveals/", body, **kwargs)

    def declare(self, seat: int, tiles: list[str], **kwargs: Any) -> Response:
        return self.post("hands/", {"seat": seat, "tiles": tiles}, **kwargs)

    def close(self, *, client: APIClient | None = None) -> Response:
        """The organiser closes the game on the version it reads now (``If-Match``)."""
        headers = {"If-Match": f'"{self.state()["version"]}"'}
        return self.post("close/", client=client or self.organiser, **headers)

    def undo(self, body: dict[str, Any] | None = None, **kwargs: Any) -> Response:
        kwargs.setdefault("client", self.scorekeeper)
        return self.post("undo/", body or {}, **kwargs)

    def amend(
        self,
        position: int,
        body: dict[str, Any],
        *,
        client: APIClient | None = None,
        **headers: str,
    ) -> Response:
        who = client or self.scorekeeper
        return who.put(
            self.url(f"events/{position}/"), body, format="json", headers=headers or None
        )

    def get(self, suffix: str = "", *, client: APIClient | None = None, **headers: str) -> Response:
        return (client or self.scorekeeper).get(self.url(suffix), headers=headers or None)

    def state(self, *, client: APIClient | None = None) -> dict[str, Any]:
        response = self.get(client=client)
        assert response.status_code == 200, response.content
        return response.json()

    def result(self) -> dict[str, Any]:
        """``GET …/result/`` as the rules give it: each round's ``verification`` at the table
        (issue 11), which no replay of the record knows, is checked present and left out."""
        response = self.get("result/")
        assert response.status_code == 200, response.content
        return without_verification(response.json())

    def record(self, *, client: APIClient | None = None) -> dict[str, Any]:
        response = self.get("record/", client=client)
        assert response.status_code == 200, response.content
        return response.json()

    def events(self, *, client: APIClient | None = None) -> dict[str, Any]:
        response = self.get("events/", client=client)
        assert response.status_code == 200, response.content
        return response.json()

    def accept(self, response: Response) -> dict[str, Any]:
        assert response.status_code == 201, response.content
        return response.json()

    def play_round(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """Enter one record round: declared hands, moves, then reveals seat 0 to 4 (R34)."""
        bodies = []
        for seat, tiles in sorted((data.get("hands") or {}).items()):
            bodies.append(self.accept(self.declare(int(seat), tiles)))
        for move in data["moves"]:
            bodies.append(self.accept(self.move(move)))
        for seat in range(5):
            if str(seat) in (data.get("reveal") or {}):
                bodies.append(self.accept(self.reveal(seat, tiles=data["reveal"][str(seat)])))
            elif str(seat) in (data.get("pips") or {}):
                bodies.append(self.accept(self.reveal(seat, pips=data["pips"][str(seat)])))
        return bodies

    def play_record(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        bodies = []
        for data in record["rounds"]:
            bodies.extend(self.play_round(data))
        return bodies


@pytest.fixture
def organiser(db: None) -> Any:
    return UserFactory()


@pytest.fixture
def organiser_client(organiser: Any) -> APIClient:
    return token_client(organiser)


@pytest.fixture
def new_game(organiser_client: APIClient) -> Callable[..., GameApi]:
    """Create a game over HTTP (POST /games/ by the organiser) and drive it."""

    def make(players: list[str] | None = None, rules: dict[str, Any] | None = None) -> GameApi:
        body: dict[str, Any] = {"players": players or list(PLAYERS)}
        if rules is not None:
            body["rules"] = rules
        response = organiser_client.post(f"{API}/games/", body, format="json")
        assert response.status_code == 201, response.content
        return GameApi(Game.objects.get(pk=response.json()["id"]), organiser_client)

    return make


@pytest.fixture
def table(new_game: Callable[..., GameApi]) -> GameApi:
    """A new game with default rules and the seats Andi, Besse, Cakra, Daeng, Evi."""
    return new_game()
