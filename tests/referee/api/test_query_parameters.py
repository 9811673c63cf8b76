"""Every operation of the API takes only the query parameters its schema documents, with
the values their schemas allow: anything else is a 400 ``invalid_query`` naming the
parameter, before the view runs (QA: ``?season=0`` and ``?status=bogus`` were ignored)."""

from __future__ import annotations

import functools
import re
import uuid
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from referee.api import query
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
# Under /api/ and not operations of the API: the schema itself, its UI, the catch-all 404.
NOT_OPERATIONS = {"schema", "docs", "not-found"}


def _schema() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


@functools.cache
def schema() -> dict[str, Any]:
    return _schema()


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in schema()["paths"].items()
        for method, operation in item.items()
    ]


def _url(path: str) -> str:
    """A URL of the schema path: a game id, a club slug, ones for the numbers. The refusal
    comes before the view, so none of them needs to exist."""
    return re.sub(
        r"\{(\w+)\}",
        lambda m: str(uuid.uuid4()) if m[1] == "game_id" else "makassar" if m[1] == "slug" else "1",
        path,
    )


def _api_patterns(resolver: URLResolver | None = None, prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            found += _api_patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern) and (prefix + str(entry.pattern)).startswith("api/"):
            found.append((entry.name, entry.callback))
    return found


def _invalid(schema: dict[str, Any]) -> str:
    """A value the parameter's schema does not allow."""
    if schema.get("type") == "integer":
        return str(schema["maximum"] + 1) if "maximum" in schema else "x"
    if schema.get("type") == "boolean":
        return "maybe"
    if "enum" in schema:
        return "bogus"
    if schema.get("format") == "date":
        return "2026-13-01"
    return "!!"


def _parameters() -> list[tuple[str, str, str, str]]:
    return [
        (method, path, parameter["name"], _invalid(parameter.get("schema") or {}))
        for method, path, operation in _operations()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "query"
    ]


@pytest.fixture
def client() -> APIClient:
    api = APIClient()
    api.force_authenticate(UserFactory(is_staff=True))
    return api


def test_every_api_route_and_method_is_an_operation_the_check_knows():
    known = query.operations()
    routes = [(name, callback) for name, callback in _api_patterns() if name not in NOT_OPERATIONS]
    assert routes
    for name, callback in routes:
        view = callback.cls
        allowed = [
            m.upper()
            for m in view.http_method_names
            if hasattr(view, m) and m not in {"head", "options"}
        ]
        assert allowed, name
        for method in allowed:
            assert (callback, method) in known, f"{name} {method} is not in the schema"


@pytest.mark.parametrize(("method", "path"), [(m, p) for m, p, _ in _operations()])
def test_an_unknown_query_parameter_is_refused_naming_it(client, method, path):
    response = client.generic(method, _url(path) + "?bogus=1")

    assert response.status_code == 400, (method, path, response.content)
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert (body["code"], body["parameter"]) == ("invalid_query", "bogus")
    assert body["errors"][0]["field"] == "bogus"
    assert "bogus" in body["detail"]


@pytest.mark.parametrize(("method", "path", "name", "value"), _parameters())
def test_an_invalid_value_of_a_known_parameter_is_refused_naming_it(
    client, method, path, name, value
):
    response = client.generic(method, f"{_url(path)}?{name}={value}")
    twice = client.generic(method, f"{_url(path)}?{name}={value}&{name}={value}")
    empty = client.generic(method, f"{_url(path)}?{name}=")

    for answer in (response, twice, empty):
        assert answer.status_code == 400, (method, path, name, answer.content)
        assert (answer.json()["code"], answer.json()["parameter"]) == ("invalid_query", name)


@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        ("/api/v1/clubs/makassar/standings/?season=0", "season"),  # QA: was ignored
        ("/api/v1/games/?status=bogus", "status"),  # QA: was ignored
        ("/api/v1/clubs/makassar/standings/?ordering=bogus", "ordering"),  # DRF dropped it
        ("/api/v1/clubs/makassar/standings/?ordering=-rounds_won,nope", "ordering"),
        ("/api/v1/clubs/makassar/standings/?format=xml", "format"),
        ("/api/v1/clubs/makassar/games/?season=1&season=2", "season"),
        ("/api/v1/clubs/makassar/players/?include_merged=yes", "include_merged"),
        ("/api/v1/games/?format=json", "format"),  # only the standings take a format
    ],
)
def test_what_qa_found_is_refused(client, url, parameter):
    response = client.get(url)

    assert response.status_code == 400
    assert (response.json()["code"], response.json()["parameter"]) == ("invalid_query", parameter)


def test_documented_values_still_pass(client):
    from tests.scoring.factories import ClubFactory

    ClubFactory(slug="makassar")

    listed = client.get("/api/v1/games/?page_size=10")
    ordered = client.get("/api/v1/clubs/makassar/standings/?ordering=-rounds_won,display_name")
    merged = client.get("/api/v1/clubs/makassar/players/?include_merged=true")
    dated = client.get("/api/v1/clubs/makassar/standings/?played_after=2026-11-01")

    assert [r.status_code for r in (listed, ordered, merged, dated)] == [200, 200, 200, 200]


def test_the_schema_documents_invalid_query_on_every_operation():
    for method, path, operation in _operations():
        assert "400" in operation["responses"], (method, path)
    assert "parameter" in schema()["components"]["schemas"]["Problem"]["properties"]
    assert "invalid_query" in schema()["info"]["description"]


@pytest.mark.parametrize(
    ("language", "start"),
    [
        ("fr", "status n'est pas un paramètre de requête"),
        ("id", "status bukan parameter kueri"),
        ("pl", "status nie jest parametrem zapytania"),
        ("en", "status is not a query parameter"),
    ],
)
def test_the_refusal_speaks_the_requests_language(client, language, start):
    response = client.get("/api/v1/games/?status=open", HTTP_ACCEPT_LANGUAGE=language)

    assert response.json()["detail"].startswith(start)
    assert "cursor, page_size" in response.json()["detail"]
