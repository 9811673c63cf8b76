"""The one error envelope: every API error is an RFC 9457 problem with a stable code."""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import OperationalError
from django.http import Http404
from django.test import RequestFactory
from rest_framework import exceptions

import scoring.exceptions  # noqa: F401 - its ServiceErrors are listed too
from referee import services
from referee.api import problems
from referee.engine.errors import ContradictsPass, RecordInvalid, TileDoesNotMatch
from referee.exceptions import JoinLockedOut, ServiceError

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


# -- a busy database, a body too big or too deep, an unknown URL ---------------------------


def test_a_busy_database_is_a_503_to_retry_never_a_500():
    response = problems.exception_handler(OperationalError("database is locked"), {})

    assert response.status_code == 503
    assert response.content_type == PROBLEM
    assert response.data["code"] == "database_busy"
    assert int(response["Retry-After"]) > 0


def test_a_write_that_meets_a_locked_database_is_a_503_problem(table, monkeypatch):
    def locked(**kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "event_submit", locked)

    response = table.play(0, "6-6")

    assert response.status_code == 503
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "database_busy"
    assert int(response["Retry-After"]) > 0


@pytest.mark.parametrize(
    "body",
    ["[" * 100_000 + "]" * 100_000, '{"a":' * 3000 + "1" + "}" * 3000],
    ids=["array-100k-deep", "object-3000-deep"],
)
def test_json_nested_too_deeply_is_a_400_parse_error(api_client, score_url, body):
    response = api_client.generic("POST", score_url, body, content_type="application/json")

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "parse_error"


@pytest.mark.parametrize("depth", [400, 800, 990])
def test_an_event_field_nested_deeply_is_refused_as_a_problem(table, depth):
    body = '{"seat": ' + "[" * depth + "]" * depth + ', "tile": "6-6"}'

    response = table.scorekeeper.generic(
        "POST", table.url("moves/"), body, content_type="application/json"
    )

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] in {"parse_error", "record_invalid"}
    assert table.state()["version"] == 0


@pytest.mark.parametrize("url", ["/api/v1/records/score/", "/api/v1/games/"])
def test_a_body_over_the_upload_limit_is_a_413_problem(organiser_client, settings, url):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"format": "domeng-record/1", "players": ["x" * 2000] * 5, "rounds": []})

    response = organiser_client.generic("POST", url, body, content_type="application/json")

    assert response.status_code == 413
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "request_too_large"


def test_djangos_400_for_a_body_too_large_is_a_413_problem_under_api():
    request = RequestFactory().post("/api/v1/anything/")

    response = problems.bad_request(request, RequestDataTooBig())

    assert response.status_code == 413
    assert json.loads(response.content)["code"] == "request_too_large"


UNKNOWN_API_REQUESTS = [
    ("get", "/api/v1/nope/"),
    ("get", "/api/v1/games/not-a-uuid/"),
    ("put", f"/api/v1/games/{uuid.uuid4()}/events/-1/"),
    ("post", "/api/v1/records/score"),
    ("get", "/api/v1/records/score"),
    ("delete", "/api/v1/nope"),
    ("patch", "/api/v1"),
    ("get", "/api/v2/games/"),
    ("options", "/api/"),
]


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "production"])
@pytest.mark.parametrize(("method", "url"), UNKNOWN_API_REQUESTS)
def test_an_unknown_api_url_is_a_404_problem_for_any_method_even_under_debug(
    api_client, settings, debug, method, url
):
    settings.DEBUG = debug

    response = getattr(api_client, method)(url, {"seat": 0}, format="json")

    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "not_found"


def test_a_known_api_url_still_answers_under_debug(api_client, settings, score_url):
    settings.DEBUG = True

    response = api_client.post(score_url, {"format": "nope"}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "record_invalid"


# -- titles --------------------------------------------------------------------------------


def service_errors(cls=ServiceError):
    for sub in cls.__subclasses__():
        yield sub
        yield from service_errors(sub)


@pytest.mark.parametrize("error", list(service_errors()), ids=lambda cls: cls.code)
def test_each_service_error_has_a_title_of_its_own_not_its_statuss(error):
    response = problems.exception_handler(error(), {})

    assert response.status_code == error.status
    assert response.data["code"] == error.code
    assert "title" in vars(error) or error.__base__ is not ServiceError
    assert response.data["title"] == str(error.title)
    assert response.data["title"] != str(problems.TITLES.get(error.status, ""))


def test_a_lockout_problem_says_when_to_retry():
    response = problems.exception_handler(JoinLockedOut(retry_after=42), {})

    assert response.status_code == 429
    assert response.data["code"] == "join_locked_out"
    assert response["Retry-After"] == "42"
