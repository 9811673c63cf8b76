"""POST /api/v1/records/score/: a record in, its result (or one problem) out, nothing stored."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from referee.engine.errors import ERROR_CLASSES

PROBLEM = "application/problem+json"
MALFORMED_CODES = {cls.code for cls in ERROR_CLASSES if cls.malformed}


def test_a_finished_round_scores_200_with_its_result(api_client, score_url, load_scenario):
    scenario = load_scenario("01_plain_finish")

    response = api_client.post(score_url, scenario["record"], format="json")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == scenario["expect"]


def test_every_worked_scenario_gives_exactly_what_it_expects(
    api_client: APIClient, score_url: str, worked_scenario: dict[str, Any]
):
    expect = worked_scenario["expect"]

    response = api_client.post(score_url, worked_scenario["record"], format="json")

    if "code" in expect:
        assert response.status_code == (400 if expect["code"] in MALFORMED_CODES else 422)
        assert response["Content-Type"] == PROBLEM
        body = response.json()
        assert {key: body.get(key) for key in expect} == expect
    else:
        assert response.status_code == 200, response.content
        assert response.json() == expect


def test_an_impossible_record_is_a_422_problem_naming_code_rule_and_place(
    api_client, score_url, load_scenario
):
    record = load_scenario("30_not_your_turn")["record"]

    response = api_client.post(score_url, record, format="json")

    assert response.status_code == 422
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["status"] == 422
    assert body["code"] == "not_your_turn"
    assert body["type"].endswith("not_your_turn")
    assert (body["rule"], body["round"], body["move"]) == ("R8", 1, 1)
    assert body["title"]
    assert body["detail"]


def test_a_body_that_is_not_json_is_a_400_parse_error(api_client, score_url):
    response = api_client.post(score_url, data='{"format": ', content_type="application/json")

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "parse_error"


def test_a_record_of_an_unknown_format_is_a_400_record_invalid(
    api_client, score_url, load_scenario
):
    record = {**load_scenario("01_plain_finish")["record"], "format": "domeng-record/9"}

    response = api_client.post(score_url, record, format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert (body["code"], body["rule"], body["round"], body["move"]) == (
        "record_invalid",
        None,
        None,
        None,
    )


@pytest.mark.parametrize("body", ["[]", '"domeng"', "42", "null"])
def test_a_json_body_that_is_not_an_object_is_a_400_record_invalid(api_client, score_url, body):
    response = api_client.post(score_url, data=body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "record_invalid"


def test_a_body_sent_as_a_form_is_a_415_problem(api_client, score_url):
    response = api_client.post(
        score_url, data="format=domeng-record/1", content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 415
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "unsupported_media_type"


def test_a_get_on_the_score_endpoint_is_a_405_problem(api_client, score_url):
    response = api_client.get(score_url)

    assert response.status_code == 405
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "method_not_allowed"


def test_an_unknown_api_path_is_a_404_problem(api_client):
    response = api_client.get("/api/v1/no-such-thing/")

    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "not_found"


def test_an_unexpected_failure_is_a_500_problem_that_leaks_nothing(
    api_client, score_url, load_scenario, monkeypatch, caplog
):
    def explode(data: object) -> dict[str, Any]:
        raise RuntimeError("internal secret 0xDEADBEEF")

    monkeypatch.setattr("referee.api.views.replay_record", explode)

    response = api_client.post(score_url, load_scenario("01_plain_finish")["record"], format="json")

    assert response.status_code == 500
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "server_error"
    assert b"0xDEADBEEF" not in response.content
    assert b"Traceback" not in response.content
    assert "0xDEADBEEF" in caplog.text  # logged for the operators, not sent to the client


@pytest.mark.django_db
def test_scoring_a_record_stores_nothing_but_the_clients_throttle_count(
    api_client, score_url, load_scenario
):
    """Issue 12: the endpoint is throttled in the database cache (its count: a read and a
    write of ``domeng_cache``); nothing else is read or stored."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = api_client.post(score_url, load_scenario("02_ceki")["record"], format="json")

    assert response.status_code == 200
    sql = [q["sql"] for q in queries.captured_queries]
    assert any('"domeng_cache"' in statement for statement in sql)
    assert not [s for s in sql if any(app in s for app in ("referee_", "scoring_", "auth"))]
