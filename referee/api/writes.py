"""What every write view of the API shares: its headers, problems and answers in the schema,
the version precondition, the ``Idempotency-Key`` and the game named in the URL.

A write accepts ``Idempotency-Key`` (a retried POST returns the first answer and never
applies twice, ``idempotency_of``) and a version precondition (``If-Match: "<version>"``
→ 412, or ``expected_version`` → 409, ``precondition_of``); the service checks both under
the game's lock. Conditional headers are read by ``referee.conditional`` alone (RFC 9110
§13.1: strong ``If-Match``, weak ``If-None-Match``, lists, ``*``; malformed → 400).
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import transaction
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_cache_control
from django.utils.translation import ngettext
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.exceptions import APIException, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import conditional, services
from referee.api.auth import CanUseGame, actor_of, can_access
from referee.api.problems import PROBLEM_CONTENT_TYPE
from referee.api.schema import (
    CONDITIONAL_HEADER,
    ETAG_HEADER,
    IF_MATCH_HEADER,
    CorrectionResultDocument,
    EventResultDocument,
    GameStateDocument,
    ProblemDocument,
    problems,
)
from referee.engine import RefereeError
from referee.exceptions import OrganiserOnly, VersionMismatch
from referee.idempotency import Idempotency
from referee.inputs import StrictSerializer
from referee.models import Game, TableToken

IDEMPOTENCY_KEY_MAX_LENGTH = 255
Result = TypeVar("Result")
SEATS_EXAMPLE = OpenApiExample(
    "A club game: registered players and a guest",
    request_only=True,
    value={
        "players": [17, {"player": 18}, "Cakra (guest)", 19, 20],
        "club": "makassar-domeng",
        "season": 5,
    },
)
IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "maxLength": IDEMPOTENCY_KEY_MAX_LENGTH},
    OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (≤ 255 characters). A retry with the same key and body "
    "returns the first response; the same key with another body gets 422. An empty key is "
    "no key (the write is not kept for retries); a longer one is a 400.",
)
IF_NONE_MATCH_WRITE_HEADER = OpenApiParameter(
    "If-None-Match",
    CONDITIONAL_HEADER,
    OpenApiParameter.HEADER,
    required=False,
    description="`*` (always fails: the game exists) or entity tags compared weakly; a write "
    "whose version one of them names gets 412.",
)
IDEMPOTENT_REPLAYED_HEADER = OpenApiParameter(
    "Idempotent-Replayed",
    {"type": "string", "enum": ["true"]},
    OpenApiParameter.HEADER,
    response=[200, 201],
    description="Present on the first answer sent again for a retried `Idempotency-Key` "
    "(which then carries no `ETag`).",
)
WRITE_HEADERS = [IDEMPOTENCY_HEADER, IF_MATCH_HEADER, ETAG_HEADER, IDEMPOTENT_REPLAYED_HEADER]
# A write that must name the version it was made on (428 ``precondition_required`` without
# ``If-Match``; an empty or blank one is none): the schema says the header is required.
REQUIRED_IF_MATCH_HEADER = OpenApiParameter(
    IF_MATCH_HEADER.name,
    {**IF_MATCH_HEADER.type, "minLength": 1, "pattern": conditional.ENTITY_TAGS_PATTERN},  # type: ignore[dict-item]
    OpenApiParameter.HEADER,
    required=True,
    description=IF_MATCH_HEADER.description
    + " Required: without it (or with an empty one) 428 `precondition_required`.",
)
VERSIONED_WRITE_HEADERS = [
    REQUIRED_IF_MATCH_HEADER if header is IF_MATCH_HEADER else header for header in WRITE_HEADERS
]

# 400/401/403/404/406/413/415/429/503 are documented for every operation by ``AutoSchema``.
PROBLEMS = problems(400)
WRITE_PROBLEMS = problems(400, 409, 412, 422)
# An event, an undo or an amendment from a table token that probed declared hands too
# often is 429 ``probe_limited`` (R31), which ``AutoSchema`` documents on every operation.
EVENT_PROBLEMS = WRITE_PROBLEMS
STATE = OpenApiResponse(GameStateDocument, description="The game's state (see GET /games/{id}/).")
EVENT_RESULT = OpenApiResponse(
    EventResultDocument,
    description="`{event, effects, state}`: the stored event, what it caused (named outcomes "
    "such as PASSEBUNGE, CEKI, MANGUNO; the stones it moved; whether the round ended or was "
    "settled) and the new state.",
)
CORRECTION_RESULT = OpenApiResponse(
    CorrectionResultDocument,
    description="`{correction, state}`: the correction (the events it replaced stay in the "
    "audit trail) and the new state.",
)


# -- corrections of any round and the organiser's rulings (R35–R38) ------------------------

RULING_PROBLEMS = {
    **WRITE_PROBLEMS,
    (422, PROBLEM_CONTENT_TYPE): OpenApiResponse(
        ProblemDocument,
        description="The corrected game, replayed as a record, is impossible: the first "
        "faulty event's `code`, `rule`, `round` and `move` (R37); nothing changed.",
        examples=[
            OpenApiExample(
                "A later event became impossible",
                response_only=True,
                status_codes=["422"],
                media_type=PROBLEM_CONTENT_TYPE,
                value={
                    "type": "urn:domeng:problem:wrong_leader",
                    "title": "Refused by the rules",
                    "status": 422,
                    "detail": "seat 3 leads this round, not seat 0",
                    "code": "wrong_leader",
                    "rule": "R6",
                    "round": 2,
                    "move": 0,
                },
            ),
            OpenApiExample(
                "An adjustment a seat cannot pay",
                response_only=True,
                status_codes=["422"],
                media_type=PROBLEM_CONTENT_TYPE,
                value={
                    "type": "urn:domeng:problem:ruling_invalid",
                    "title": "Refused by the rules",
                    "status": 422,
                    "detail": "seat 3 holds 3 stones and cannot give 4",
                    "code": "ruling_invalid",
                    "rule": "R36",
                    "round": 2,
                    "move": None,
                },
            ),
        ],
    ),
}
ORGANISER_ONLY = (
    " Organisers only (a signed-in user who may use the game): a phone gets 403 "
    "`organiser_only`. Logged in the audit trail (`GET …/events/`) with its author, time and "
    "reason."
)


def conditions_of(request: Request) -> conditional.Conditions | None:
    """The request's ``If-Match``/``If-None-Match`` (400 ``precondition_invalid`` if malformed)."""
    return conditional.conditions_of(
        if_match=request.headers.get("If-Match"),
        if_none_match=request.headers.get("If-None-Match"),
    )


def precondition_of(request: Request, data: dict[str, Any]) -> services.Precondition | None:
    """The versions a write to a game may apply at: its conditional headers (412) and
    ``expected_version`` (409), checked by the service under the game's lock. ``None``
    while ``GameMixin`` judges the request without them (``preconditions_waived``)."""
    conditions = conditions_of(request)
    if getattr(request, "preconditions_waived", False):
        return None
    version = data.get("expected_version")
    if conditions is None and version is None:
        return None
    return services.Precondition(version, conditions=conditions)


def idempotency_of(request: Request) -> Idempotency | None:
    """The request's ``Idempotency-Key`` and fingerprint (400 for a key too long); the
    service keeps the write's outcome under it, and a refusal by the rules too (a retry
    gets it again, not judged again). ``None`` without a key."""
    key = request.headers.get("Idempotency-Key")
    if not key:
        return None
    if len(key) > IDEMPOTENCY_KEY_MAX_LENGTH:
        limit = IDEMPOTENCY_KEY_MAX_LENGTH
        message = ngettext("At most %(count)s character.", "At most %(count)s characters.", limit)
        raise serializers.ValidationError({"Idempotency-Key": [message % {"count": limit}]})
    # Who sent it is part of the request: a stored outcome holds the sender's view of the
    # state (e.g. its own declared hand, R31), never replayed to another token or user.
    body = {"by": actor_of(request).label, "body": request.data}
    fingerprint = Idempotency.fingerprint_of(request.method or "", request.path, body)
    return Idempotency(key, fingerprint, keeps_refusals=True)


class PerViewer(APIView):
    """Every answer of the view says ``Cache-Control: private, no-store`` (issue 27).

    What a game's URL answers depends on who asks: a phone reads its own declared hand
    and not another seat's (R31), refusals and alerts are shown to some callers only, a
    blocked round's hands wait for its reveals (R18, R33), and whether the game is there
    at all (401/403/404) is the caller's. A shared cache keyed on the URL alone would
    hand one phone's body to another; ``no-store`` also keeps it off the phone's disk.

    A mixin rather than a middleware matching paths: every view that reads a game goes
    through ``GameMixin``, so a new one is covered without a list of URLs to keep in step,
    and every answer is marked — errors and 304s included, writes too (their answers carry
    the writer's view of the state).
    """

    cache_privacy = "always"  # declared in the schema (``referee.api.schema.AutoSchema``)

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        patch_cache_control(response, private=True, no_store=True)
        return response


class GameMixin(PerViewer):
    """Fetch the game named in the URL and check the caller may use it (404, then 403).

    Its writes evaluate ``If-Match``/``If-None-Match`` against the game's version
    under the game's lock (``precondition_of``), not in ``ConditionalRequestMiddleware``.

    A malformed body keeps its 400 whatever its preconditions (issue 31, as the middleware
    does for other writes, RFC 9110 §13.2.1: a precondition only matters where the request
    would otherwise succeed). An event's own fields are judged by the rules core, under the
    lock and after the version: so a write refused for its version (412, 409) is judged
    again without its preconditions, everything it wrote rolled back, and a malformed
    request gets that 400 instead.
    """

    permission_classes = [CanUseGame]
    checks_conditions = True
    defers_conditional_faults = True
    """A malformed ``If-Match``/``If-None-Match`` is the 400 after the game's 404 and 403
    (``ConditionalRequestMiddleware`` leaves it on the request for ``get_game``)."""
    organiser_only_methods: frozenset[str] = frozenset()
    """The methods no phone may use: a table token is refused by ``phone_refusal`` as soon
    as the game is found (404, then 403), before its body is read — a malformed body from a
    phone is 403 like a valid one, so it learns nothing of the organiser's operations."""

    def phone_refusal(self) -> Exception:
        """What a table token gets for an ``organiser_only_methods`` request (403)."""
        return OrganiserOnly()

    def handle_exception(self, exc: Exception) -> Any:
        if isinstance(exc, VersionMismatch):
            malformed = self.malformed_without_preconditions()
            if isinstance(malformed, Exception):
                exc = malformed
            elif malformed is not None:
                return malformed
        return super().handle_exception(exc)

    def malformed_without_preconditions(self) -> Exception | Response | None:
        """The 400 the request would get without its preconditions (raised or answered),
        or ``None``."""
        request = self.request
        if getattr(request, "preconditions_waived", False):
            return None
        handler = getattr(self, (request.method or "").lower(), None)
        if handler is None:
            return None
        request.preconditions_waived = True  # type: ignore[attr-defined]
        try:
            with transaction.atomic():
                try:
                    answer = handler(request, *self.args, **self.kwargs)
                finally:
                    transaction.set_rollback(True)
        except RefereeError as error:
            return error if error.malformed else None
        except APIException as error:
            return error if error.status_code == 400 else None
        except Exception:  # any other answer: the precondition's refusal stands
            return None
        finally:
            request.preconditions_waived = False  # type: ignore[attr-defined]
        return answer if getattr(answer, "status_code", None) == 400 else None

    def get_game(self, request: Request, game_id: Any) -> Game:
        token = request.auth
        if isinstance(token, TableToken) and token.game_id == game_id:
            if request.method in self.organiser_only_methods:
                raise self.phone_refusal()
            game = token.game  # the token's query read it already (select_related)
        else:
            game = get_object_or_404(Game, pk=game_id)
            if not can_access(request, game):
                raise PermissionDenied()
        fault = getattr(request, "conditional_fault", None)
        if fault is not None:
            raise fault  # 400 ``precondition_invalid``, once the game is known to be theirs
        return game


def validated(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:  # type: ignore[type-arg]
    """The request body as ``serializer_class`` validates it; raises its 400. A plainly
    valid body (``StrictSerializer.plainly_valid``) is taken without building it."""
    if issubclass(serializer_class, StrictSerializer):
        plain = serializer_class.plainly_valid(request.data)
        if plain is not None:
            return plain
    serializer = serializer_class(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
