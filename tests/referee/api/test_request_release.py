"""A request's objects are freed as it ends, not left to the cyclic garbage collector.

DRF's request, view and answer refer to one another, and Django's request is in cycles of
its own; whatever they reach (a move's token, game and state, the answer's data) waited
for the cyclic collector, which walked it at a cost (issue 14).
``referee.middleware.ReleaseRequestMiddleware`` cuts those references once the answer is
made. Driven through Django's WSGI handler as a server drives it: the test client keeps
each answer in cycles of its own.
"""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
from django.test.client import ClientHandler, FakePayload, RequestFactory
from rest_framework.request import Request
from rest_framework.views import APIView

from referee import services, store
from referee.models import Game, TableToken

pytestmark = pytest.mark.django_db


def serve(
    handler: ClientHandler, path: str, *, method: str = "GET", body: Any = None, auth: str = ""
) -> int:
    """One request through Django's handler as the test client's own handler runs it
    (without the client, which keeps each answer in cycles of its own); its status."""
    data = json.dumps(body).encode() if body is not None else b""
    environ = RequestFactory()._base_environ(
        REQUEST_METHOD=method,
        PATH_INFO=path,
        CONTENT_LENGTH=str(len(data)),
        CONTENT_TYPE="application/json",
        HTTP_AUTHORIZATION=auth,
        **{"wsgi.input": FakePayload(data), "wsgi.url_scheme": "https"},
    )
    response = handler(environ)  # closes the answer, as a server does
    return int(response.status_code)


def left_in_cycles(act: Any, status: int) -> list[str]:
    """The request's own objects that ``act`` (answered with ``status``) left for the
    cyclic collector."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert act() == status
        gc.collect()
        kinds = (Game, TableToken, store.GameState, Request, APIView)
        return sorted({type(o).__name__ for o in gc.garbage if isinstance(o, kinds)})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@pytest.fixture
def table() -> tuple[Game, str]:
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    key, _ = services.table_join(join_code=game.join_code)
    return game, f"Table {key}"


def test_a_moves_token_game_state_view_and_request_are_freed_as_it_ends(table):
    game, auth = table
    handler = ClientHandler(enforce_csrf_checks=False)  # its middleware built once, as a server's
    moves, state = f"/api/v1/games/{game.pk}/moves/", f"/api/v1/games/{game.pk}/"

    def move(seat: int, tile: str) -> int:
        return serve(handler, moves, method="POST", body={"seat": seat, "tile": tile}, auth=auth)

    assert move(2, "6-6") == 201  # the game's first move opens its sitting (R27)
    found = {
        "a move": left_in_cycles(lambda: move(3, "6-5"), 201),
        "the state": left_in_cycles(lambda: serve(handler, state, auth=auth), 200),
        "a refusal (R7)": left_in_cycles(lambda: move(4, "1-1"), 422),
    }

    assert found == {"a move": [], "the state": [], "a refusal (R7)": []}


def test_the_release_can_fail_without_the_middleware(table, settings):
    """The check above sees such objects when nothing cuts the cycles."""
    settings.MIDDLEWARE = [
        m for m in settings.MIDDLEWARE if m != "referee.middleware.ReleaseRequestMiddleware"
    ]
    game, auth = table
    handler = ClientHandler(enforce_csrf_checks=False)
    found = left_in_cycles(lambda: serve(handler, f"/api/v1/games/{game.pk}/", auth=auth), 200)
    assert "Request" in found
