"""The API's views: each parses the request, calls one function of the core and renders."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiRequest, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee.api import schema
from referee.api.problems import PROBLEM_CONTENT_TYPE
from referee.engine.records import replay_record


class RecordScoreView(APIView):
    """Score a game record: replay it under its rule set and return the result."""

    authentication_classes: list[type] = []  # stateless and public: nothing is stored
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="records_score",
        summary="Score a game record",
        description=(
            "Replays a `domeng-record/1` record and returns what the rules conclude from it "
            "(`domeng-result/1`). Stateless: nothing is stored. A record the rules make "
            "impossible is rejected as a whole, naming the first faulty event."
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
            (422, PROBLEM_CONTENT_TYPE): schema.IMPOSSIBLE_RESPONSE,
        },
    )
    def post(self, request: Request) -> Response:
        return Response(replay_record(request.data))
