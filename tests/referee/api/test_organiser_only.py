"""An organiser's operation refuses a phone before it reads the body: a malformed body from
a table token is the same 403 as a valid one, so a phone holding a join code learns nothing
of what the organiser's operations take (R35–R39 are the organiser's, R39's computer seats
too)."""

from __future__ import annotations

import uuid

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from referee.api.writes import GameMixin
from tests.factories import GameFactory, table_key
from tests.referee.conftest import table_client, token_client

pytestmark = pytest.mark.django_db

BODIES = ['{"reason": ', "[1]", '{"reason": "no", "players": 7}']


def _patterns(resolver: URLResolver, prefix: str = "") -> list[tuple[str, type]]:
    found: list[tuple[str, type]] = []
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            found += _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern) and hasattr(entry.callback, "view_class"):
            found.append((prefix + str(entry.pattern), entry.callback.view_class))
    return found


ORGANISER_ONLY = sorted(
    (method, route, view)
    for route, view in _patterns(get_resolver())
    if issubclass(view, GameMixin)
    for method in view.organiser_only_methods
)


def _url(route: str, game_id: object) -> str:
    values = {"game_id": game_id, "seat": 1, "number": 1, "token_id": 1, "position": 1}
    path = route
    for name, value in values.items():
        path = path.replace(f"<uuid:{name}>", str(value)).replace(f"<int:{name}>", str(value))
    return "/" + path


def test_the_organisers_operations_are_the_ones_the_services_refuse_to_phones():
    """Every operation whose service refuses a phone outright is declared here (R35–R39)."""
    names = {f"{method} {view.__name__}" for method, _route, view in ORGANISER_ONLY}
    assert names == {
        "POST GameCloseView",
        "PUT GameRecordView",
        "POST RoundVoidView",
        "POST RoundAdjustmentView",
        "POST SeatSubstituteView",
        "PUT SeatView",
        "POST RoundResolveView",
        "GET GameTokensView",
        "POST TokenRevokeView",
        "PUT SeatComputerView",
        "POST ComputerHandView",
    }


@pytest.mark.parametrize("seat", [2, None], ids=["seat", "scorekeeper"])
@pytest.mark.parametrize(("method", "route", "view"), ORGANISER_ONLY)
def test_a_phone_gets_403_whatever_its_body_says_R39(method, route, view, seat):
    game = GameFactory()
    client = table_client(table_key(game=game, seat=seat))
    expected = "seat_not_allowed" if "computer" in route else "organiser_only"
    codes = set()
    for body in [*BODIES, "{}"] if method != "GET" else [None]:
        call = getattr(client, method.lower())
        response = call(_url(route, game.pk), body, content_type="application/json")
        assert response.status_code == 403, (body, response.content)
        codes.add(response.json()["code"])
    assert codes == {expected}


@pytest.mark.parametrize(("method", "route", "view"), ORGANISER_ONLY)
def test_an_unknown_game_is_404_before_the_phone_is_refused(method, route, view):
    client = table_client(table_key(game=GameFactory(), seat=0))
    call = getattr(client, method.lower())
    body = "{}" if method != "GET" else None
    response = call(_url(route, uuid.uuid4()), body, content_type="application/json")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("header", ['garbage"', "x" * 2000])
@pytest.mark.parametrize(("method", "route", "view"), ORGANISER_ONLY)
def test_a_malformed_if_match_comes_after_the_game_and_the_phone(method, route, view, header):
    """404 for an unknown game, then 403 for a phone, then the header's 400
    (``precondition_invalid``) for the organiser: a header says nothing of a game that is
    not the caller's (issue 31)."""
    game = GameFactory()
    phone = table_client(table_key(game=game, seat=0))
    organiser = token_client(game.created_by)
    body = "{}" if method != "GET" else None

    def send(client, game_id):
        call = getattr(client, method.lower())
        url = _url(route, game_id)
        return call(url, body, content_type="application/json", HTTP_IF_MATCH=header)

    unknown, refused, malformed = (
        send(phone, uuid.uuid4()),
        send(phone, game.pk),
        send(organiser, game.pk),
    )
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")
    assert refused.status_code == 403
    assert (malformed.status_code, malformed.json()["code"]) == (400, "precondition_invalid")


@pytest.mark.parametrize("path", ["", "moves/", "result/", "events/"])
def test_every_game_view_says_404_before_a_malformed_conditional_header(path):
    client = table_client(table_key(game=GameFactory(), seat=0))
    url = f"/api/v1/games/{uuid.uuid4()}/{path}"
    method = client.post if path == "moves/" else client.get
    response = method(
        url,
        "{}" if path == "moves/" else None,
        content_type="application/json",
        HTTP_IF_MATCH="nope",
        HTTP_IF_NONE_MATCH="nope",
    )
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
