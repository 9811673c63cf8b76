"""Every path of the schema: an unknown resource is 404 before any precondition, and a
method the path does not have is 405 with ``Allow`` (issue 31).

The operations are read from the generated OpenAPI schema, so a new path is covered
without a list to keep in step.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.referee.conftest import PROBLEM

pytestmark = pytest.mark.django_db

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
METHODS = ("get", "put", "post", "patch", "delete")
WRITES = [
    (method.upper(), path)
    for path, item in SCHEMA["paths"].items()
    if "{" in path
    for method in METHODS
    if method in item and method != "get"
]
PATHS = sorted(SCHEMA["paths"])


def _unknown(path: str) -> str:
    """The path with each parameter naming nothing that exists."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "game_id":
            return str(uuid.uuid4())
        if name == "slug":
            return "no-such-club"
        return "999999"

    return re.sub(r"\{(\w+)\}", value, path)


@pytest.fixture
def organiser() -> APIClient:
    user = get_user_model().objects.create_user("organiser", password="x", is_staff=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def test_the_schema_has_writes_to_resources():
    assert len(WRITES) > 20
    assert ("POST", "/api/v1/games/{game_id}/moves/") in WRITES


@pytest.mark.parametrize(("method", "path"), WRITES, ids=[f"{m} {p}" for m, p in WRITES])
@pytest.mark.parametrize("header", ["HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH"])
def test_an_unknown_resource_is_404_before_its_precondition(organiser, method, path, header):
    value = '"7"' if header == "HTTP_IF_MATCH" else "*"
    response = organiser.generic(
        method, _unknown(path), b"{}", content_type="application/json", **{header: value}
    )
    assert response.status_code == 404, response.content
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "not_found"


def test_an_unknown_url_with_if_match_is_404_not_412(organiser):
    response = organiser.post(
        f"/api/v1/games/{uuid.uuid4()}/seats/null,null/computer/hand/",
        {},
        format="json",
        HTTP_IF_MATCH='"7"',
    )
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("if_match", [None, "0"])
@pytest.mark.parametrize("path", PATHS)
def test_a_method_the_path_does_not_have_is_405_with_allow(organiser, path, if_match):
    """Before anything else: even a malformed ``If-Match`` is not judged (400) first."""
    declared = {m.upper() for m in SCHEMA["paths"][path] if m in METHODS}
    headers = {} if if_match is None else {"HTTP_IF_MATCH": if_match}
    response: Any = organiser.generic("TRACE", _unknown(path), **headers)
    assert response.status_code == 405, response.content
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "method_not_allowed"
    allowed = {m.strip() for m in response["Allow"].split(",")}
    assert declared <= allowed
    assert "TRACE" not in allowed
