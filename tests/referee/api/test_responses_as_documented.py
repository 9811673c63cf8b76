"""The check of every API response against the OpenAPI schema (tests/openapi_responses.py,
issue 31) refuses what the schema does not say: it is not a check that passes anything."""

from __future__ import annotations

from typing import Any

import pytest

from referee.api import problems, views
from referee.engine.records import replay_record
from tests import openapi_responses
from tests.openapi_responses import ResponseNotAsDocumented


def _scoring(monkeypatch: pytest.MonkeyPatch, change: Any) -> None:
    """The score operation answers its real result, changed by ``change``."""

    def replay(record: dict[str, Any]) -> dict[str, Any]:
        result = replay_record(record)
        change(result)
        return result

    monkeypatch.setattr(views, "replay_record", replay)


def test_a_result_as_documented_is_checked_and_passes(api_client, score_url, load_scenario):
    before = openapi_responses.COUNTS["checked"]

    response = api_client.post(score_url, load_scenario("01_plain_finish")["record"], format="json")

    assert response.status_code == 200
    assert openapi_responses.COUNTS["checked"] == before + 1


def test_a_field_the_schema_does_not_name_fails_the_test(
    api_client, score_url, load_scenario, monkeypatch
):
    _scoring(monkeypatch, lambda result: result["rounds"][0].update(undeclared=1))

    with pytest.raises(ResponseNotAsDocumented, match="'undeclared' was unexpected"):
        api_client.post(score_url, load_scenario("01_plain_finish")["record"], format="json")


def test_a_null_where_the_schema_has_none_fails_the_test_R23(
    api_client, score_url, load_scenario, monkeypatch
):
    """``stones`` of a transfer (R23) is never ``null``: the server sending one is refused."""
    _scoring(monkeypatch, lambda result: result["rounds"][0]["transfers"][0].update(stones=None))

    with pytest.raises(ResponseNotAsDocumented, match="None is not of type 'integer'"):
        api_client.post(score_url, load_scenario("01_plain_finish")["record"], format="json")


def test_a_null_the_schema_allows_passes_R14():
    """``finish`` is ``null`` for a blocked round: OpenAPI 3.1's ``null`` type says so, where
    3.0's ``nullable`` beside ``allOf`` was refused by strict validators."""
    finish = openapi_responses.document()["components"]["schemas"]["ResultRound"]["properties"][
        "finish"
    ]

    assert {"type": "null"} in finish["oneOf"]


def test_a_problem_not_as_documented_fails_the_test(api_client, score_url, monkeypatch):
    """A problem (RFC 9457, ``application/problem+json``) is checked like a success: one
    without its required ``code`` is refused."""
    original = problems.referee_problem

    def without_code(error: Any) -> dict[str, Any]:
        body = original(error)
        del body["code"]
        return body

    monkeypatch.setattr(problems, "referee_problem", without_code)

    with pytest.raises(ResponseNotAsDocumented, match="'code' is a required property"):
        api_client.post(score_url, {"format": "nope"}, format="json")
