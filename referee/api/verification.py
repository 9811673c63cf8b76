"""Round verification over the API (issue 11): confirm, dispute, resolve a settled round.

``POST /games/{id}/rounds/{n}/confirm/`` and ``…/dispute/`` are a seat's phone's (a table
token joined to one seat, not the one that entered the round's last event);
``…/resolve/`` is the organiser's. Each answers ``{round, verification, state}``; a retry
with the same ``Idempotency-Key`` gets the first answer. See ``referee.services.verification``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee.api import answers
from referee.api.auth import actor_of
from referee.api.problems import PROBLEM_CONTENT_TYPE
from referee.api.schema import ProblemDocument, VerificationResultDocument, problems
from referee.api.serializers import StrictSerializer
from referee.api.writes import (
    ETAG_HEADER,
    IDEMPOTENCY_HEADER,
    IDEMPOTENT_REPLAYED_HEADER,
    GameMixin,
    idempotency_of,
    validated,
)
from referee.engine.names import reorders_text
from referee.services import verification

HEADERS = [IDEMPOTENCY_HEADER, ETAG_HEADER, IDEMPOTENT_REPLAYED_HEADER]
RESULT = OpenApiResponse(
    VerificationResultDocument,
    description="`{round, verification, state}`: the round's verification now and the new "
    "state (its version moved on if anything changed; a repeat changes nothing).",
)


def _problem(status: int, code: str, title: str, detail: str) -> OpenApiExample:
    return OpenApiExample(
        code,
        response_only=True,
        status_codes=[str(status)],
        media_type=PROBLEM_CONTENT_TYPE,
        value={
            "type": f"urn:domeng:problem:{code}",
            "title": title,
            "status": status,
            "detail": detail,
            "code": code,
        },
    )


OWN_ENTRY = _problem(
    403,
    "verification_own_entry",
    "Verified by the wrong seat",
    "This round's last event was entered from this seat: another seat's phone verifies it.",
)
SEAT_REQUIRED = _problem(
    403,
    "verification_seat_required",
    "A seat's phone verifies",
    "A round is confirmed or disputed from a phone joined to one seat; the organiser "
    "resolves a dispute.",
)
ORGANISER = _problem(
    403, "organiser_only", "Organiser only", "Only the game's organiser may do this."
)
NOT_ENDED = _problem(
    409,
    "round_not_ended",
    "Round not ended",
    "This round is not settled yet: there is nothing to verify.",
)
VOIDED = _problem(
    409,
    "round_voided",
    "Round voided",
    "This round was voided by the organiser (R35): it is not verified.",
)
DISPUTED = _problem(
    409,
    "round_disputed",
    "Round disputed",
    "This round is disputed: the organiser resolves it (correct it, void it or mark it confirmed).",
)
CLOSED = _problem(
    409, "game_closed", "Game closed", "This game is closed: no more events can be entered."
)
REASON = _problem(
    400,
    "verification_reason_invalid",
    "Reason needed",
    "Say in a few words what is wrong (at most 200 characters).",
)


def _responses(*examples: OpenApiExample) -> dict[Any, OpenApiResponse]:
    documented = problems(400, 403, 409)
    by_status: dict[int, list[OpenApiExample]] = {}
    for example in examples:
        status = int((example.status_codes or ["400"])[0])
        by_status.setdefault(status, []).append(example)
    for status, listed in by_status.items():
        key = (status, PROBLEM_CONTENT_TYPE)
        documented[key] = OpenApiResponse(
            ProblemDocument, description=documented[key].description, examples=listed
        )
    return {200: RESULT, **documented}


class ConfirmSerializer(StrictSerializer):
    """Nothing to send: the round is named in the URL and the seat by the phone's token."""


class VerificationTextField(serializers.CharField):
    """A dispute's reason or a resolution's note: a JSON string, judged by the service.

    Anything else (a number, ``null``, a list) and a text over 200 characters are 400
    ``verification_reason_invalid`` as the README and the schema say, never a generic
    ``invalid`` nor a number coerced to a text."""

    judges_its_own_type = True  # ``referee.inputs.StrictSerializer`` leaves it the type

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if data is serializers.empty:
            return super().run_validation(data)  # missing: ``required`` as declared
        if not isinstance(data, str) or len(data.strip()) > verification.VERIFICATION_REASON_MAX:
            raise verification.VerificationReasonInvalid()
        if reorders_text(data):  # shown on every phone: it must read as typed
            raise verification.VerificationReasonInvalid()
        return data.strip()


class DisputeSerializer(StrictSerializer):
    reason = VerificationTextField(
        allow_blank=True,
        max_length=verification.VERIFICATION_REASON_MAX,
        help_text="What is wrong, in a few words (1–200 characters); shown to every phone "
        "and the organiser.",
    )


class ResolveSerializer(StrictSerializer):
    note = VerificationTextField(
        required=False,
        allow_blank=True,
        max_length=verification.VERIFICATION_REASON_MAX,
        help_text="The organiser's note (optional).",
    )


class RoundConfirmView(GameMixin, APIView):
    """A seat's phone confirms a settled round."""

    @extend_schema(
        operation_id="games_rounds_confirm",
        tags=["verification"],
        summary="Confirm a settled round",
        description="A phone joined to one seat confirms the round's summary (ending, named "
        "outcomes, stones moved). Not the seat whose phone entered the round's last event "
        "(403 `verification_own_entry`), not a scorekeeper or the organiser (403 "
        "`verification_seat_required`; the organiser resolves). A round not settled yet is "
        "409 `round_not_ended`, a voided one 409 `round_voided`, a disputed one 409 "
        "`round_disputed` (the organiser resolves it). Confirming again, or a round already "
        "confirmed or resolved, changes nothing (200).",
        request=ConfirmSerializer,
        parameters=HEADERS,
        responses=_responses(OWN_ENTRY, SEAT_REQUIRED, NOT_ENDED, VOIDED, DISPUTED, CLOSED),
        examples=[OpenApiExample("Confirm", request_only=True, value={})],
    )
    def post(self, request: Request, game_id: Any, number: int) -> Response:
        game = self.get_game(request, game_id)
        validated(ConfirmSerializer, request)
        render = answers.verified
        return answers.respond(
            verification.round_confirm(
                game_id=game.pk,
                round=number,
                actor=actor_of(request),
                idempotency=idempotency_of(request),
            ),
            render,
        )


class RoundDisputeView(GameMixin, APIView):
    """A seat's phone disputes a settled round, with a reason."""

    @extend_schema(
        operation_id="games_rounds_dispute",
        tags=["verification"],
        summary="Dispute a settled round",
        description="As confirming, with a short `reason` (1–200 characters; else 400 "
        "`verification_reason_invalid`). The round stays disputed — flagged on every phone, "
        "on the organiser's page and in the state and result — until the organiser corrects "
        "it, voids it or marks it confirmed. A dispute may follow a confirmation; the same "
        "dispute again changes nothing; the disputing seat may reword it; another seat's "
        "dispute of a disputed round is 409 `round_disputed` (the first reason stands).",
        request=DisputeSerializer,
        parameters=HEADERS,
        responses=_responses(OWN_ENTRY, SEAT_REQUIRED, REASON, NOT_ENDED, VOIDED, DISPUTED, CLOSED),
        examples=[
            OpenApiExample(
                "A wrong tile",
                request_only=True,
                value={"reason": "Daeng's 3-4 was entered as 3-5"},
            )
        ],
    )
    def post(self, request: Request, game_id: Any, number: int) -> Response:
        game = self.get_game(request, game_id)
        data = validated(DisputeSerializer, request)
        render = answers.verified
        return answers.respond(
            verification.round_dispute(
                game_id=game.pk,
                round=number,
                actor=actor_of(request),
                reason=data["reason"],
                idempotency=idempotency_of(request),
            ),
            render,
        )


class RoundResolveView(GameMixin, APIView):
    """The organiser marks a settled round confirmed (resolving any dispute)."""

    organiser_only_methods = frozenset({"POST"})

    @extend_schema(
        operation_id="games_rounds_resolve",
        tags=["verification"],
        summary="Resolve a round: mark it confirmed",
        description="Organisers only (a phone gets 403 `organiser_only`). The round becomes "
        "`resolved` with resolution `confirmed`, disputed or not. To resolve a dispute by "
        "correcting or voiding the round instead, use `POST …/corrections/` or "
        "`POST …/rounds/{n}/void/`: the dispute is then resolved as `corrected` or "
        "`voided`. A round already confirmed or resolved stays as it is (200). Works on a "
        "closed game too.",
        request=ResolveSerializer,
        parameters=HEADERS,
        responses=_responses(ORGANISER, NOT_ENDED, VOIDED, REASON),
        examples=[
            OpenApiExample(
                "Checked with the table",
                request_only=True,
                value={"note": "checked with the table: 3-4 is right"},
            )
        ],
    )
    def post(self, request: Request, game_id: Any, number: int) -> Response:
        game = self.get_game(request, game_id)
        data = validated(ResolveSerializer, request)
        render = answers.verified
        return answers.respond(
            verification.round_resolve(
                game_id=game.pk,
                round=number,
                actor=actor_of(request),
                note=data.get("note", ""),
                idempotency=idempotency_of(request),
            ),
            render,
        )
