"""The API's views: each parses the request, calls one function of the core and renders."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiRequest, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from referee.api import schema
from referee.api.problems import PROBLEM_CONTENT_TYPE
from referee.api.schema import PROBLEM_RESPONSE_GENERIC
from referee.engine.records import replay_record
from referee.exceptions import RecordTooLong, RequestTooLarge


class ScoreThrottle(AnonRateThrottle):
    """``SCORE_THROTTLE_RATE`` scorings per client (its address, ``NUM_PROXIES``), counted in
    the database cache: every worker counts together, a restart forgets nothing."""

    scope = "score"


class RecordScoreView(APIView):
    """Score a game record: replay it under its rule set and return the result."""

    authentication_classes: list[type] = []  # stateless and public: nothing is stored
    permission_classes = [AllowAny]
    throttle_classes = [ScoreThrottle]

    @extend_schema(
        operation_id="records_score",
        summary="Score a game record",
        description=(
            "Replays a `domeng-record/1` record and returns what the rules conclude from it "
            "(`domeng-result/1`). Stateless: nothing is stored. A record the rules make "
            "impossible is rejected as a whole, naming the first faulty event.\n\n"
            "Public, so bounded: a body over `SCORE_MAX_BODY_BYTES` (256 KiB) is 413 "
            "`request_too_large`, a record of more than `SCORE_MAX_ROUNDS` (500) rounds 413 "
            "`record_too_long`, and each client may score `SCORE_THROTTLE_RATE` (60 a "
            "minute) records: 429 `throttled` with `Retry-After` beyond."
        ),
        tags=["records"],
        request={
            "application/json": OpenApiRequest(
                schema.RecordDocument, examples=schema.RECORD_EXAMPLES
            ),
        },
        responses={
            200: schema.RESULT_RESPONSE,
            (400, PROBLEM_CONTENT_TYPE): schema.MALFORMED_RESPONSE,
            (413, PROBLEM_CONTENT_TYPE): PROBLEM_RESPONSE_GENERIC,
            (422, PROBLEM_CONTENT_TYPE): schema.IMPOSSIBLE_RESPONSE,
            (429, PROBLEM_CONTENT_TYPE): PROBLEM_RESPONSE_GENERIC,
        },
    )
    def post(self, request: Request) -> Response:
        _check_body_size(request)  # before the body is read
        record = request.data
        if _round_count(record) > settings.SCORE_MAX_ROUNDS:
            raise RecordTooLong()
        return Response(replay_record(record))


def _check_body_size(request: Request) -> None:
    """Raise ``request_too_large`` (413) for a body over ``SCORE_MAX_BODY_BYTES``."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > settings.SCORE_MAX_BODY_BYTES:
        raise RequestTooLarge()


def _round_count(record: Any) -> int:
    rounds = record.get("rounds") if isinstance(record, dict) else None
    return len(rounds) if isinstance(rounds, list) else 0
