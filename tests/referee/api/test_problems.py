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
from django.utils import translation
from rest_framework import exceptions
from rest_framework.test import APIClient

import scoring.exceptions  # noqa: F401 - its ServiceErrors are listed too
from referee import services
from referee.api import problems
from referee.engine.errors import ContradictsPass, RecordInvalid, TileDoesNotMatch
from referee.exceptions import JoinLockedOut, ServiceError
from referee.models import Game

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


# -- DRF's own messages in the client's language (QA) -------------------------------------

LANGUAGES = ("fr", "id", "pl")
DRF_ERRORS = {
    "throttled": lambda: exceptions.Throttled(),
    "throttled-1s": lambda: exceptions.Throttled(wait=1),
    "throttled-3s": lambda: exceptions.Throttled(wait=3),
    "throttled-25s": lambda: exceptions.Throttled(wait=25),
    "not_authenticated": exceptions.NotAuthenticated,
    "authentication_failed": exceptions.AuthenticationFailed,
    "permission_denied": exceptions.PermissionDenied,
    "method_not_allowed": lambda: exceptions.MethodNotAllowed("PUT"),
    "not_acceptable": exceptions.NotAcceptable,
    "unsupported_media_type": lambda: exceptions.UnsupportedMediaType("text/plain"),
    "parse_error": exceptions.ParseError,
    "not_found": exceptions.NotFound,
    "invalid": lambda: exceptions.ValidationError({"seat": ["x"]}),
    "invalid_token": lambda: exceptions.AuthenticationFailed(_drf_("Invalid token.")),
}


def _drf_(text):
    from django.utils.translation import gettext

    return gettext(text)


def _problem_in(language, make):
    # DRF renders an exception's detail when it is raised: raise it in the request's language.
    with translation.override(language):
        return problems.exception_handler(make(), {}).data


@pytest.mark.parametrize("name", DRF_ERRORS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_framework_error_speaks_the_clients_language_with_its_english_code(language, name):
    english = _problem_in("en", DRF_ERRORS[name])
    body = _problem_in(language, DRF_ERRORS[name])

    assert body["code"] == english["code"]
    assert body["title"] != english["title"]
    assert body["detail"] != english["detail"]
    for sentence in english["detail"].split(". "):  # no English sentence left in it
        assert sentence.rstrip(".") not in body["detail"], (language, body["detail"])


def test_the_seconds_to_wait_take_each_polish_plural_form():
    with translation.override("pl"):
        details = [problems.throttled_detail(n) for n in (1, 3, 5, 22)]

    assert [d.rsplit(" ", 1)[1] for d in details] == ["sekundę.", "sekundy.", "sekund.", "sekundy."]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_throttled_scoring_is_a_429_wholly_in_the_clients_language(db, monkeypatch, language):
    from referee.api.views import ScoreThrottle

    monkeypatch.setattr(ScoreThrottle, "THROTTLE_RATES", {"score": "1/min"})
    client = APIClient(REMOTE_ADDR="198.51.100.7", HTTP_ACCEPT_LANGUAGE=language)
    record = {"format": "domeng-record/1", "players": list("ABCDE"), "rounds": []}
    client.post("/api/v1/records/score/", record, format="json")

    response = client.post("/api/v1/records/score/", record, format="json")

    assert response.status_code == 429
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == "throttled"
    assert "throttled" not in body["detail"]
    assert "Expected available" not in body["detail"]
    assert response["Retry-After"] in body["detail"]


REFUSED_REQUESTS = {
    "not-json": ("POST", "/api/v1/join/", {}, "{nope", "parse_error"),
    "not-utf8": ("POST", "/api/v1/join/", {}, b"\xff\xfe", "parse_error"),
    "table-header": (
        "GET",
        "/api/v1/games/",
        {"HTTP_AUTHORIZATION": "Table"},
        "",
        "authentication_failed",
    ),
    "table-token": (
        "GET",
        "/api/v1/games/",
        {"HTTP_AUTHORIZATION": "Table x"},
        "",
        "authentication_failed",
    ),
    "drf-token": (
        "GET",
        "/api/v1/games/",
        {"HTTP_AUTHORIZATION": "Token x"},
        "",
        "authentication_failed",
    ),
}


@pytest.mark.parametrize("name", REFUSED_REQUESTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refused_body_or_credential_is_explained_in_the_clients_language(db, language, name):
    method, url, headers, body, code = REFUSED_REQUESTS[name]

    def send(lang):
        client = APIClient(HTTP_ACCEPT_LANGUAGE=lang, **headers)
        return client.generic(method, url, body, content_type="application/json").json()

    answer, english = send(language), send("en")

    assert answer["code"] == english["code"] == code
    assert answer["detail"] != english["detail"]
    assert "Expecting" not in answer["detail"]  # not the json module's English


def test_a_parse_error_says_where_the_body_breaks(db):
    response = APIClient().generic(
        "POST", "/api/v1/records/score/", '{"a": 1,\n  nope}', content_type="application/json"
    )

    assert response.json()["detail"] == (
        "JSON parse error - the body is not valid JSON (line 2, column 3)."
    )


# -- the schema's and the docs' errors are problems too (QA) -----------------------------

SCHEMA_URLS = ["/api/v1/schema/", "/api/v1/schema/?format=json", "/api/v1/schema/?format=yaml"]


@pytest.mark.parametrize("url", [*SCHEMA_URLS, "/api/v1/docs/"])
@pytest.mark.parametrize(
    ("method", "accept", "suffix", "code"),
    [
        ("get", "text/csv", "", "not_acceptable"),
        ("get", "application/problem+json", "", "not_acceptable"),
        ("get", "*/*", "format=nope", "not_found"),
        ("post", "*/*", "", "method_not_allowed"),
        ("post", "text/csv", "", "not_acceptable"),
    ],
    ids=["406-csv", "406-problem", "404-format", "405", "406-post"],
)
def test_an_error_of_the_schema_or_docs_is_a_json_problem_as_labelled(
    db, url, method, accept, suffix, code
):
    if suffix:
        url += ("&" if "?" in url else "?") + suffix

    response = getattr(APIClient(), method)(url, HTTP_ACCEPT=accept)

    assert response.status_code >= 400
    assert response["Content-Type"] == PROBLEM
    body = json.loads(response.content)  # JSON, not the view's YAML, HTML or text
    assert (body["status"], body["code"]) == (response.status_code, code)
    assert response.content == problems.render_problem(body)


@pytest.mark.parametrize("url", SCHEMA_URLS)
def test_the_schema_itself_is_still_served(db, url):
    response = APIClient().get(url)

    assert response.status_code == 200
    assert "openapi" in response.content.decode()


# -- one spelling of a problem, whichever path emits it (QA) -----------------------------

PROBLEM_KEYS = ["type", "title", "status", "detail", "code"]


def _emitted_problems(organiser_client, table):
    """A problem from every path that can emit one, in French (non-ASCII texts)."""
    factory = RequestFactory()
    api = factory.get("/api/v1/anything/")
    yield "drf-view-404", organiser_client.get(f"/api/v1/games/{uuid.uuid4()}/")
    table.play(1, "6-6")
    yield "drf-view-422", table.play(1, "5-5")
    yield (
        "drf-parser-400",
        organiser_client.generic("POST", "/api/v1/games/", "{", content_type="application/json"),
    )
    yield "drf-validation-400", organiser_client.post("/api/v1/games/", {}, format="json")
    yield "drf-405", organiser_client.delete("/api/v1/records/score/")
    yield "schema-406", organiser_client.get("/api/v1/schema/", HTTP_ACCEPT="text/csv")
    yield "catch-all-404", organiser_client.get("/api/v1/nope/")
    yield "outside-v1-404", organiser_client.post("/api/v2/")
    yield "query-400", organiser_client.get("/api/v1/games/?bogus=1")
    yield "edge-text-400", organiser_client.get("/api/v1/games/?a=%01")
    yield "conditional-400", organiser_client.get("/api/v1/games/", HTTP_IF_NONE_MATCH="nope")
    yield "handler-400", problems.bad_request(api, Exception())
    yield "handler-413", problems.bad_request(api, RequestDataTooBig())
    yield "handler-403", problems.permission_denied(api, DjangoPermissionDenied())
    yield "handler-404", problems.page_not_found(api, Http404())
    yield "handler-500", problems.server_error(api)


def test_every_path_spells_a_problem_the_same_way(organiser_client, table):
    """QA: DRF's views wrote compact UTF-8 JSON, Django-level paths (catch-all 404,
    middleware, query check, error handlers) ``JsonResponse``'s spaced, ASCII-escaped JSON;
    the schema view YAML. One spelling: ``render_problem``'s, members in RECORD.md's order."""
    with translation.override("fr"):
        emitted = list(_emitted_problems(organiser_client, table))

    for name, response in emitted:
        assert response["Content-Type"] == PROBLEM, name
        body = json.loads(response.content)
        assert list(body)[:5] == PROBLEM_KEYS, name
        assert body["type"] == f"urn:domeng:problem:{body['code']}", name
        assert body["status"] == response.status_code, name
        assert response.content == problems.render_problem(body), name
    assert "\\u00" not in b"".join(r.content for _, r in emitted).decode()


# -- a browser's session without its CSRF token (QA: DRF's "CSRF Failed: …" was English) --


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_a_session_write_without_its_csrf_token_is_refused_in_the_clients_language(
    organiser, language
):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(organiser)

    response = browser.post(
        "/api/v1/games/",
        {"players": ["A", "B", "C", "D", "E"]},
        format="json",
        headers={"Accept-Language": language},
    )

    assert response.status_code == 403
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == "permission_denied"
    assert "X-CSRFToken" in body["detail"]
    assert body["detail"].startswith("CSRF check failed") == (language == "en")
    assert not body["detail"].startswith("CSRF Failed")
    assert not Game.objects.exists()  # nothing was created
