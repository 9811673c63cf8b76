"""The one error envelope: every API error is an RFC 9457 problem with a stable code."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.test import RequestFactory
from rest_framework import exceptions

from referee.api import problems
from referee.engine.errors import ContradictsPass, RecordInvalid, TileDoesNotMatch

PROBLEM = "application/problem+json"


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (exceptions.ParseError(), 400, "parse_error"),
        (exceptions.ValidationError({"players": ["This field is required."]}), 400, "invalid"),
        (exceptions.NotAuthenticated(), 401, "not_authenticated"),
        (exceptions.AuthenticationFailed(), 401, "authentication_failed"),
        (exceptions.PermissionDenied(), 403, "permission_denied"),
        (DjangoPermissionDenied(), 403, "permission_denied"),
        (exceptions.NotFound(), 404, "not_found"),
        (Http404(), 404, "not_found"),
        (exceptions.MethodNotAllowed("PUT"), 405, "method_not_allowed"),
        (exceptions.NotAcceptable(), 406, "not_acceptable"),
        (exceptions.UnsupportedMediaType("text/plain"), 415, "unsupported_media_type"),
        (exceptions.Throttled(wait=3), 429, "throttled"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_each_framework_error_becomes_a_problem_with_a_stable_code(exc, status, code):
    response = problems.exception_handler(exc, {})

    assert response.status_code == status
    assert response.content_type == PROBLEM
    assert response.data["status"] == status
    assert response.data["code"] == code
    assert response.data["type"] == f"urn:domeng:problem:{code}"
    assert response.data["title"]
    assert response.data["detail"]


def test_a_throttled_request_is_told_when_to_retry():
    response = problems.exception_handler(exceptions.Throttled(wait=3), {})

    assert response["Retry-After"] == "3"


def test_field_errors_are_listed_with_dotted_paths_and_codes():
    exc = exceptions.ValidationError(
        {
            "players": [exceptions.ErrorDetail("Too short.", code="min_length")],
            "rounds": [{"moves": [exceptions.ErrorDetail("Bad move.", code="bad_move")]}],
            "non_field_errors": [exceptions.ErrorDetail("Inconsistent.", code="inconsistent")],
        }
    )

    errors = problems.exception_handler(exc, {}).data["errors"]

    assert [(e["field"], e["code"]) for e in errors] == [
        ("players", "min_length"),
        ("rounds.0.moves", "bad_move"),
        (None, "inconsistent"),
    ]


def test_a_rule_violation_is_a_422_carrying_the_error_object():
    err = TileDoesNotMatch(
        "%(tile)s matches neither open end (%(left)d, %(right)d)",
        round=1,
        move=5,
        tile="2-6",
        left=4,
        right=1,
    )

    response = problems.exception_handler(err, {})

    assert response.status_code == 422
    assert response.content_type == PROBLEM
    assert response.data == {
        "type": "urn:domeng:problem:tile_does_not_match",
        "title": response.data["title"],
        "status": 422,
        "detail": "2-6 matches neither open end (4, 1)",
        "code": "tile_does_not_match",
        "rule": "R7",
        "round": 1,
        "move": 5,
    }


def test_a_contradiction_names_the_earlier_event():
    err = ContradictsPass("seat passed on 4", round=2, move=7, contradicts={"round": 2, "move": 3})

    body = problems.exception_handler(err, {}).data

    assert body["code"] == "contradicts_pass"
    assert body["contradicts"] == {"round": 2, "move": 3}


def test_a_malformed_record_is_a_400_without_a_rule():
    body = problems.exception_handler(RecordInvalid("players: expected 5 names"), {}).data

    assert body["status"] == 400
    assert (body["code"], body["rule"], body["round"], body["move"]) == (
        "record_invalid",
        None,
        None,
        None,
    )


def test_an_unexpected_exception_is_a_500_that_says_nothing_of_it(caplog):
    response = problems.exception_handler(KeyError("internal secret"), {})

    assert response.status_code == 500
    assert response.data["code"] == "server_error"
    assert "internal secret" not in json.dumps(response.data)
    assert "internal secret" in caplog.text


@pytest.mark.parametrize(
    ("handler", "args", "status"),
    [
        (problems.bad_request, (Exception(),), 400),
        (problems.permission_denied, (DjangoPermissionDenied(),), 403),
        (problems.page_not_found, (Http404(),), 404),
        (problems.server_error, (), 500),
    ],
    ids=["400", "403", "404", "500"],
)
def test_djangos_error_pages_are_problems_under_api_and_html_elsewhere(handler, args, status):
    factory = RequestFactory()

    api = handler(factory.get("/api/v1/anything/"), *args)
    site = handler(factory.get("/elsewhere/"), *args)

    assert api.status_code == status
    assert api["Content-Type"] == PROBLEM
    assert json.loads(api.content)["status"] == status
    assert site.status_code == status
    assert site["Content-Type"].startswith("text/html")
