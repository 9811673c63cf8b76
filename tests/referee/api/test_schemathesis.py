"""The API against its own OpenAPI schema: generated requests never get a 5xx, and every
response is one the schema documents (status, content type, body).

schemathesis reads ``/api/v1/schema/`` from the WSGI app in-process and generates
requests for each operation (valid and invalid ones). Each example runs against a
fresh game (in play, between rounds, or waiting for reveals), as its organiser, so
the game endpoints are reached past authentication and their answers checked against
the documented shapes (``GameState``, ``EventResult``, ``CorrectionResult``, ``Record``,
``Result``, ``Problem``). Bounded and derandomized: the same requests every run.

The checks run are ``CHECKS``; the acceptance checks are configured already
(``ACCEPTED_STATUSES``: a valid request may meet 412 for an ``If-Match`` naming another
version, or 422 from the rules) but not yet clean. A case whose path parameters are the
invalid part keeps them (no fresh game id is put in their place).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from referee import services
from referee.models import Game

pytestmark = pytest.mark.django_db

# Games the requests run against, in turn: each example gets a fresh one (g101's opening).
SETUPS = ("in_play", "awaiting_lead", "awaiting_reveals")

# The checks that pass today. Not yet (issue 31, left open): positive_data_acceptance and
# negative_data_rejection (ST202/ST201) and unsupported_method (ST204). Fixed: the audit
# trail's pages, a club's time_zone, empty If-Match/If-None-Match/Idempotency-Key, a
# lockout's address. Left: cursors (`?cursor=0`), integral floats for integers (`1.0`),
# unknown club/season in a body (400 `does_not_exist`), state-dependent refusals as 400
# (substitutes, PUT record R38), "exactly one of name/player", invisible characters in
# names, and a schema-invalid body sent with a stale If-Match answered 412 before its
# 400 (ST201: the precondition is judged before the body).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", get_wsgi_application())
# A schema-valid request may still be refused by the game's state, which no schema can say:
# 412 for an ``If-Match`` that is not the fresh game's version, 422 for a move the rules
# refuse (R8, R11…). Every other refusal of a schema-valid request is a failure (ST202).
ACCEPTED_STATUSES = ["2xx", "3xx", "401", "403", "404", "409", "412", "422", "429"]
schema.config.checks.positive_data_acceptance.expected_statuses = ACCEPTED_STATUSES


@pytest.fixture(autouse=True)
def _keep_the_test_transaction() -> Iterator[None]:
    """Like Django's test client: a request must not close the test's connection.

    schemathesis calls the WSGI handler itself, which would fire
    ``close_old_connections`` at each request's start and end.
    """
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def organiser() -> Any:
    return get_user_model().objects.create_user("organiser", password="x")


@pytest.fixture
def organiser_headers(organiser) -> dict[str, str]:
    return {"Authorization": f"Token {Token.objects.create(user=organiser).key}"}


@pytest.fixture
def new_game(organiser, load_scenario) -> Callable[[], Game]:
    """Make the next game of ``SETUPS``, round robin, imported by the organiser.

    In play (three moves of round 1), waiting for round 2's lead, or with round 5
    blocked and waiting for reveals (R18) after four settled rounds.
    """
    record = load_scenario("g101_generated_40_rounds")["record"]
    first, fifth = record["rounds"][0], record["rounds"][4]
    rounds = {
        "in_play": [{"moves": first["moves"][:3]}],
        "awaiting_lead": [first],
        "awaiting_reveals": [*record["rounds"][:4], {"moves": fifth["moves"]}],
    }
    setups = itertools.cycle(SETUPS)

    def make() -> Game:
        game_record = {**record, "rounds": copy.deepcopy(rounds[next(setups)])}
        return services.game_import(record=game_record, created_by=organiser)

    return make


@schema.parametrize()
@settings(
    max_examples=30,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_every_operation_answers_as_its_schema_says(case, organiser_headers, new_game):
    negative_path = case.meta is not None and case.meta.is_negative_at(ParameterLocation.PATH)
    if "game_id" in (case.path_parameters or {}) and not negative_path:
        case.path_parameters["game_id"] = str(new_game().pk)

    case.call_and_validate(headers=organiser_headers, checks=CHECKS)
