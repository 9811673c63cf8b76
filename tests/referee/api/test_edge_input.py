"""Issue 12, item 4: every text that crosses the edge is checked before the rules, the database
or the log see it: a 4xx with a stable code, never a 500, never an echo of megabytes.

The write operations are read from the OpenAPI schema itself, so a new one is covered
the day it is added.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.test import RequestFactory
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from referee import services
from referee.api.parsers import MAX_TEXT_LENGTH
from referee.middleware import EdgeTextMiddleware
from referee.models import RefusedEvent
from tests.factories import UserFactory
from tests.referee.conftest import API, PROBLEM, table_client, token_client
from tests.scoring.factories import OrganiserFactory, PlayerFactory, SeasonFactory

WRITE_METHODS = ("post", "put", "patch", "delete")
PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]


def _write_operations() -> list[tuple[str, str, bool]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (path, method, "requestBody" in operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in WRITE_METHODS
    ]


WRITE_OPERATIONS = _write_operations()
assert len(WRITE_OPERATIONS) >= 20, WRITE_OPERATIONS  # an empty list would test nothing

BAD_TEXTS = {
    "nul": "Andi\x00",
    "lone surrogate": "Andi\ud800",
    "control": "An\x1bdi",
    "oversized": "6" * (MAX_TEXT_LENGTH + 1),
}


@pytest.fixture
def world(db) -> dict[str, Any]:
    """A club with its organiser, a season, a player, a league game with a seat phone."""
    user = UserFactory()
    club = OrganiserFactory(user=user).club
    season = SeasonFactory(club=club)
    player = PlayerFactory(club=club, display_name="Andi")
    game = services.game_create(players=PLAYERS, created_by=user, club=club, season=season)
    key, token = services.table_join(join_code=game.join_code, seat=1)
    return {
        "organiser": token_client(user),
        "phone": table_client(key),
        "params": {
            "slug": club.slug,
            "season": season.pk,
            "id": player.pk,
            "game_id": game.pk,
            "number": 1,
            "position": 0,
            "seat": 1,
            "token_id": token.pk,
        },
    }


def url_of(path: str, params: dict[str, Any]) -> str:
    for name, value in params.items():
        path = path.replace("{" + name + "}", str(value))
    assert "{" not in path, path
    return path


def send(client: APIClient, method: str, url: str, raw: bytes) -> Any:
    return getattr(client, method)(url, data=raw, content_type="application/json")


def body_with(text: str) -> bytes:
    """A JSON body holding ``text`` as a value and as a key (``\\u`` escapes, as JSON allows)."""
    return json.dumps({"players": [text] * 5, "name": text, text: 1}).encode()


@pytest.mark.parametrize(("path", "method", "has_body"), WRITE_OPERATIONS)
@pytest.mark.parametrize("kind", list(BAD_TEXTS))
def test_bad_text_in_any_write_is_a_4xx_never_stored_nor_echoed(
    world, path, method, has_body, kind
):
    text = BAD_TEXTS[kind]
    url = url_of(path, world["params"])
    stored = RefusedEvent.objects.count()

    response = send(world["organiser"], method, url, body_with(text))

    assert response.status_code < 500, response.content[:500]
    if has_body:
        assert response.status_code == 400
        assert response["Content-Type"] == PROBLEM
        code = "text_too_long" if kind == "oversized" else "text_invalid"
        assert response.json()["code"] == code
    assert text not in response.content.decode(errors="replace")
    assert len(response.content) < 5000
    assert RefusedEvent.objects.count() == stored


# Numbers Python reads as a float too large to keep: infinity (QA, 2026-11-30: ``{"seat":
# 1e400}`` reached SQLite's refusal log as ``Infinity`` and was a 500 there).
# And integers beyond 64 bits (QA, 2026-11-30: ``"on": 100000000000000000000000`` on a lead
# was stored, and then every move of the round was a 500 encoding the game's state).
OUT_OF_RANGE = [
    b'{"seat": 1e400, "tile": "6-6"}',
    b'{"seat": 1, "pips": -1e999}',
    b'{"seat": 3, "tile": "6-6", "on": 100000000000000000000000}',
    b'{"seat": 3, "tile": "6-6", "on": 9223372036854775808}',
    b'{"seat": 3, "changes": [{"position": -9223372036854775809}]}',
    b'{"seat": 3, "tile": "6-6", "on": ' + b"9" * 4301 + b"}",  # past Python's own limit
]


@pytest.mark.parametrize(("path", "method", "has_body"), WRITE_OPERATIONS)
@pytest.mark.parametrize("raw", OUT_OF_RANGE)
@pytest.mark.parametrize("who", ["organiser", "phone"])
def test_a_number_out_of_a_floats_range_in_any_write_is_400_never_stored(
    world, path, method, has_body, raw, who
):
    url = url_of(path, world["params"])
    stored = RefusedEvent.objects.count()

    response = send(world[who], method, url, raw)

    assert response.status_code < 500, response.content[:500]
    if has_body and response.status_code not in (401, 403):
        assert response.status_code == 400
        assert response.json()["code"] == "parse_error"
    assert RefusedEvent.objects.count() == stored


@pytest.mark.parametrize(("path", "method", "has_body"), WRITE_OPERATIONS)
def test_a_body_over_the_upload_limit_is_413_on_every_write(
    world, path, method, has_body, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    url = url_of(path, world["params"])
    raw = json.dumps({"tile": "6" * 20_000}).encode()

    response = send(world["organiser"], method, url, raw)

    assert response.status_code < 500
    if has_body:
        assert response.status_code == 413
        assert response.json()["code"] == "request_too_large"
    assert len(response.content) < 5000


@pytest.mark.parametrize("query", ["?season=%00", "?page=%00", "?x=%1B", "?ordering=" + "a" * 2000])
def test_bad_text_in_a_query_is_400_not_500(world, query):
    response = world["organiser"].get(f"{API}/clubs/{world['params']['slug']}/standings/{query}")

    assert response.status_code == 400
    assert response.json()["code"] in {"text_invalid", "text_too_long"}


@pytest.mark.parametrize("key", ["k\x00", "\x01k", "k\nk", "k\x1f", "k\x7f"])
def test_nul_in_a_header_is_400_not_500(world, key):
    url = f"{API}/games/{world['params']['game_id']}/moves/"

    response = world["phone"].post(
        url, {"seat": 1, "tile": "6-6"}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )

    assert response.status_code == 400
    assert response.json()["code"] == "text_invalid"


@pytest.mark.parametrize(
    "accept", ["application/json;\tq=1", "application/json, caf\xe2\x80\xa6/x"]
)
def test_a_tab_or_latin_1_text_in_a_header_is_not_refused_as_a_control(accept):
    """Only C0 controls (but the tab) and DEL are refused in a header: a tab is allowed
    whitespace and UTF-8 arrives as Latin-1 text, C1 controls included (RFC 9110 §5.5)."""
    request = RequestFactory().get("/api/v1/", HTTP_ACCEPT=accept)

    assert EdgeTextMiddleware.fault(request) is None


@pytest.mark.parametrize("season", ["0", "²", "9" * 30, "-1"])
def test_a_season_query_that_is_no_season_is_a_4xx_not_500(world, season):
    """The hole: ``?season=0`` gave a 500."""
    response = world["organiser"].get(
        f"{API}/clubs/{world['params']['slug']}/ratings/?season={season}"
    )

    assert (response.status_code, response.json()["code"]) == (400, "invalid_query")
    assert response["Content-Type"] == PROBLEM


def test_a_megabyte_tile_is_refused_without_echo_and_the_refusal_log_stays_bounded(world):
    """The hole: a 2.5 MB tile string was echoed in the answer and stored in the refusal log."""
    url = f"{API}/games/{world['params']['game_id']}/moves/"
    tile = "6-6" + "x" * 900  # under the edge's limit: it reaches the rules core

    response = world["phone"].post(url, {"seat": 1, "tile": tile}, format="json")

    assert (response.status_code, response.json()["code"]) == (400, "tile_invalid")
    assert len(response.content) < 2000
    refused = RefusedEvent.objects.get()
    assert len(json.dumps(refused.payload)) < 200
    assert len(refused.detail) <= 500


def test_the_audit_trail_is_paginated(world, settings):
    game_id = world["params"]["game_id"]
    phone = world["phone"]
    for _ in range(7):
        phone.post(f"{API}/games/{game_id}/moves/", {"seat": 1, "tile": "1-2"}, format="json")

    first = world["organiser"].get(f"{API}/games/{game_id}/events/?page_size=3").json()
    last = world["organiser"].get(f"{API}/games/{game_id}/events/?page_size=3&page=3").json()

    assert first["counts"]["refused"] == 7
    assert len(first["refused"]) == 3
    assert first["next"].endswith("page=2&page_size=3")
    assert len(last["refused"]) == 1
    assert last["next"] is None
    bad = world["organiser"].get(f"{API}/games/{game_id}/events/?page=0")
    assert bad.status_code == 400


def test_the_audit_trail_accepts_every_page_its_schema_declares(world):
    """``page`` is declared 1..MAX_PAGE: the largest is an empty page, one more a 400."""
    from referee.api.pagination import MAX_PAGE

    game_id = world["params"]["game_id"]
    url = f"{API}/games/{game_id}/events/"
    schema = world["organiser"].get("/api/v1/schema/?format=json").json()
    declared = next(
        p["schema"]
        for p in schema["paths"]["/api/v1/games/{game_id}/events/"]["get"]["parameters"]
        if p["name"] == "page"
    )
    assert declared["maximum"] == MAX_PAGE

    for page in (MAX_PAGE - 1, MAX_PAGE):
        answer = world["organiser"].get(f"{url}?page={page}")
        assert answer.status_code == 200, answer.content
        assert answer.json()["events"] == []
    for page in (MAX_PAGE + 1, "\u0661"):  # past the bound; an Arabic-Indic digit one
        refused = world["organiser"].get(url, {"page": page})
        assert refused.status_code == 400
        assert refused.json()["code"] == "invalid_query"


# -- the public scoring endpoint -------------------------------------------------------


def test_public_scoring_refuses_a_body_over_its_cap_before_reading_it(db, settings):
    settings.SCORE_MAX_BODY_BYTES = 1000
    raw = json.dumps(
        {"format": "domeng-record/1", "players": PLAYERS, "rounds": [], "x": "y" * 999}
    )

    response = APIClient().post(f"{API}/records/score/", raw, content_type="application/json")

    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"


def test_public_scoring_refuses_a_record_of_more_rounds_than_its_cap(db, settings):
    """The hole: 4,000 rounds cost 2.4 s of CPU a request."""
    settings.SCORE_MAX_ROUNDS = 3
    record = {"format": "domeng-record/1", "players": PLAYERS, "rounds": [{"moves": []}] * 4}

    response = APIClient().post(f"{API}/records/score/", record, format="json")

    assert response.status_code == 413
    assert response.json()["code"] == "record_too_long"


def test_public_scoring_is_throttled_per_client_across_workers(db, monkeypatch):
    from referee.api.views import ScoreThrottle

    monkeypatch.setattr(ScoreThrottle, "THROTTLE_RATES", {"score": "3/min"})
    record = {"format": "domeng-record/1", "players": PLAYERS, "rounds": []}
    client = APIClient(REMOTE_ADDR="198.51.100.3")
    for _ in range(3):
        assert client.post(f"{API}/records/score/", record, format="json").status_code == 200

    throttled = client.post(f"{API}/records/score/", record, format="json")
    other = APIClient(REMOTE_ADDR="198.51.100.4").post(
        f"{API}/records/score/", record, format="json"
    )

    assert throttled.status_code == 429
    assert throttled.json()["code"] == "throttled"
    assert int(throttled["Retry-After"]) > 0
    assert other.status_code == 200
    assert isinstance(caches["default"], DatabaseCache)  # counted where every worker counts


def test_an_integer_past_pythons_digit_limit_gets_the_out_of_range_message(world):
    """QA: past 4,300 digits DRF passed on Python's English message (naming
    sys.set_int_max_str_digits); it is the same out-of-range refusal as any other."""
    url = url_of(WRITE_OPERATIONS[0][0], world["params"])
    raw = b'{"seat": 3, "tile": "6-6", "on": ' + b"9" * 4301 + b"}"
    response = send(world["organiser"], WRITE_OPERATIONS[0][1], url, raw)
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"
    assert "out of range" in response.json()["detail"]
    assert "set_int_max_str_digits" not in response.content.decode()
