"""The API against its own OpenAPI schema: generated requests never get a 5xx, and every
response is one the schema documents (status, content type, body).

schemathesis reads ``/api/v1/schema/`` from the WSGI app in-process and generates
requests for each operation (valid and invalid ones). Each example runs against a
fresh game (in play, between rounds, or waiting for reveals), as its organiser, so
the game endpoints are reached past authentication and their answers checked against
the documented shapes (``GameState``, ``EventResult``, ``CorrectionResult``, ``Record``,
``Result``, ``Problem``). Then the stateful phase: sequences of calls that follow the
schema's links (a new game → every operation on it) and schemathesis' inferred ones, with
the same checks and the stateful ones. Bounded and derandomized: the same requests every
run.

The checks run are ``CHECKS`` on every operation, and ``ACCEPTANCE_CHECKS`` on every
operation but those ``PENDING`` lists for that check: a schema-valid request is accepted
(``ACCEPTED_STATUSES``: it may meet 412 for an ``If-Match`` naming another version, or 422
from the rules), a schema-invalid one refused, and a method the path does not have (TRACE
included) is 405 with ``Allow``. A case whose path parameters are the invalid part keeps
them (no fresh game id is put in their place).
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
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize
from requests.structures import CaseInsensitiveDict
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.stateful.state_machine import StepInput, StepOutput
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ensure_resource_availability,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
    use_after_free,
)

from referee import services
from referee.models import Game

pytestmark = pytest.mark.django_db

# Games the requests run against, in turn: each example gets a fresh one (g101's opening).
SETUPS = ("in_play", "awaiting_lead", "awaiting_reveals")

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# A write's stale precondition outranks the rules' refusals (422) and only a malformed 400
# outranks it (R31: no stale request is judged against hidden hands uncounted). R34 judges
# a move's seat and turn, a reveal's round (blocked or not) and an adjustment's round
# before the fields' shapes, so a schema-invalid event at a stale version can be its 412
# (or 409 for `expected_version`). Such an answer passes only if the same request without
# its preconditions is refused as negative_data_rejection requires: a precondition never
# hides an accepted invalid body.
PRECONDITION_HEADERS = frozenset({"if-match", "if-none-match", "idempotency-key"})
STALE = frozenset({"version_mismatch", "precondition_failed"})


def negative_data_rejection_past_preconditions(ctx: Any, response: Any, case: Any) -> Any:
    """``negative_data_rejection``, judging a stale version's 412/409 to a schema-invalid
    request by the answer the same request gets without ``If-Match``, ``If-None-Match``,
    ``expected_version`` and ``Idempotency-Key``."""
    meta = case.meta
    if (
        response.status_code not in (409, 412)
        or meta is None
        or not meta.generation.mode.is_negative
        or meta.is_negative_at(ParameterLocation.HEADER)
        or _problem_code(response) not in STALE
    ):
        return negative_data_rejection(ctx, response, case)
    headers = CaseInsensitiveDict(
        {k: v for k, v in case.headers.items() if k.lower() not in PRECONDITION_HEADERS}
    )
    bare = case.derive(headers=headers, keep_auth=True)
    if isinstance(bare.body, dict):
        bare.body.pop("expected_version", None)
    again = bare.call(headers={"Authorization": response.request.headers["Authorization"]})
    return negative_data_rejection(ctx, again, case)


def _problem_code(response: Any) -> Any:
    try:
        return response.json().get("code")
    except (ValueError, AttributeError):
        return None


ACCEPTANCE_CHECKS = [
    positive_data_acceptance,
    negative_data_rejection_past_preconditions,
    unsupported_method,
]
# Operations a check does not pass on yet (issue 31, left open). Fixed: a malformed event
# body with a stale If-Match or expected_version is its 400, not 412/409; a move is oneOf a
# play and a pass. Left, for positive_data_acceptance (ST202: a schema-valid body refused
# 400): integral floats (`"seat": 3.0`, `"expected_version": 1.0`) are integers to JSON
# Schema but refused on purpose (R3, the core; test_games_versions); an unknown club or
# season in a body (400 `does_not_exist`); a blank name or one with invisible characters
# (`text_invalid`/`name_invalid`, no pattern in the schema); state-dependent refusals
# answered 400 (PUT record keeps the players, R38; substitutes; a round not begun for an
# adjustment, R36; an amendment's fields of another kind than the event); `?cursor=0`.
PENDING: dict[Any, frozenset[str]] = {
    positive_data_acceptance: frozenset(
        {
            "GET /api/v1/games/",
            "POST /api/v1/clubs/",
            "POST /api/v1/games/",
            "POST /api/v1/games/import/",
            "POST /api/v1/games/{game_id}/close/",
            "POST /api/v1/games/{game_id}/computer/move/",
            "POST /api/v1/games/{game_id}/corrections/",
            "POST /api/v1/games/{game_id}/hands/",
            "POST /api/v1/games/{game_id}/moves/",
            "POST /api/v1/games/{game_id}/reveals/",
            "POST /api/v1/games/{game_id}/rounds/{number}/adjustments/",
            "POST /api/v1/games/{game_id}/rounds/{number}/dispute/",
            "POST /api/v1/games/{game_id}/rounds/{number}/void/",
            "POST /api/v1/games/{game_id}/seats/{seat}/computer/hand/",
            "POST /api/v1/games/{game_id}/seats/{seat}/substitutes/",
            "POST /api/v1/games/{game_id}/sessions/",
            "POST /api/v1/games/{game_id}/sessions/end/",
            "POST /api/v1/games/{game_id}/undo/",
            "POST /api/v1/join/",
            "PUT /api/v1/games/{game_id}/events/{position}/",
            "PUT /api/v1/games/{game_id}/record/",
            "PUT /api/v1/games/{game_id}/seats/{seat}/",
        }
    ),
}


def checks_for(operation: str) -> list[Any]:
    """``CHECKS`` and each acceptance check that ``operation`` passes."""
    return CHECKS + [
        check for check in ACCEPTANCE_CHECKS if operation not in PENDING.get(check, frozenset())
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
def setup_records(load_scenario) -> dict[str, dict[str, Any]]:
    """The record of each of ``SETUPS`` (g101's opening): in play (three moves of round 1),
    waiting for round 2's lead, or with round 5 blocked and waiting for reveals (R18) after
    four settled rounds."""
    record = load_scenario("g101_generated_40_rounds")["record"]
    first, fifth = record["rounds"][0], record["rounds"][4]
    rounds = {
        "in_play": [{"moves": first["moves"][:3]}],
        "awaiting_lead": [first],
        "awaiting_reveals": [*record["rounds"][:4], {"moves": fifth["moves"]}],
    }
    return {setup: {**record, "rounds": rounds[setup]} for setup in SETUPS}


@pytest.fixture
def new_game(organiser, setup_records) -> Callable[[], Game]:
    """Make the next game of ``SETUPS``, round robin, imported by the organiser."""
    setups = itertools.cycle(SETUPS)

    def make() -> Game:
        game_record = copy.deepcopy(setup_records[next(setups)])
        return services.game_import(record=game_record, created_by=organiser)

    return make


@schema.parametrize()
@settings(
    max_examples=20,
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

    case.call_and_validate(headers=organiser_headers, checks=checks_for(case.operation.label))


# The stateful phase: scenarios of a few calls, each following the schema's links (a new
# game → every operation on it, ``referee.api.schema.game_links``) and schemathesis'
# inferred ones (a club → its players, seasons…). Each scenario begins with a game of
# ``SETUPS`` imported through ``POST /games/import/`` (so the links have a game to follow
# whatever else is generated) and runs in a savepoint rolled back at its end, so that every
# scenario, and Hypothesis' replay of it, meets the same database.
IMPORTED = "POST /api/v1/games/import/ -> 201"
STATEFUL_CHECKS = [use_after_free, ensure_resource_availability]
# Reached only here (the per-operation test's random slugs get 404 first), a club's own
# operations meet PENDING's positive_data_acceptance causes (issue 31, left open): a name
# or display name with invisible characters (`name_invalid`: POST …/seasons/, POST
# …/players/), an unknown account (`user_unknown`: POST …/members/), a cursor no list
# gave (`GET …/players/{id}/games/`), a query refused (`GET …/head-to-head/`).
CLUB_OPERATIONS = "/api/v1/clubs/{slug}/"


def stateful_checks_for(operation: Any) -> list[Any]:
    """``checks_for`` the operation and the stateful checks, but positive_data_acceptance
    for a club's own operations (``CLUB_OPERATIONS``)."""
    checks = checks_for(operation.label)
    if operation.path.startswith(CLUB_OPERATIONS):
        checks = [check for check in checks if check is not positive_data_acceptance]
    return checks + STATEFUL_CHECKS


def test_call_sequences_answer_as_the_schema_says(organiser_headers, setup_records):
    base = schema.as_state_machine()
    importing = schema["/api/v1/games/import/"]["POST"]

    class Workflow(base):  # type: ignore[valid-type, misc]
        def setup(self) -> None:
            self.savepoint = transaction.atomic()
            self.savepoint.__enter__()

        def teardown(self) -> None:
            transaction.set_rollback(True)
            self.savepoint.__exit__(None, None, None)

        @initialize(target=base.bundles[IMPORTED], setup=st.sampled_from(SETUPS))
        def import_a_game(self, setup: str) -> StepOutput:
            case = importing.Case(
                body=copy.deepcopy(setup_records[setup]), media_type="application/json"
            )
            step = StepInput.initial(case)
            self.recorder.record_case(case=case)
            self.control.record_step(step, self.recorder)
            output = self.step(step)
            assert output.response.status_code == 201, output.response.text
            return output

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": organiser_headers}

        def validate_response(
            self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            case.validate_response(
                response,
                checks=stateful_checks_for(case.operation),
                transport_kwargs=kwargs or None,
                recorder=self.recorder,
            )

    Workflow.run(
        settings=settings(
            max_examples=80,
            stateful_step_count=6,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )
