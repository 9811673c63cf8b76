"""The live-table API: games played move by move over HTTP.

One ``APIView`` per operation; each parses the request, calls one service
and renders its answer. Writes accept ``Idempotency-Key`` (a retried POST
returns the first answer and never applies twice) and a version
precondition (``If-Match: "<version>"`` → 412, or ``expected_version`` → 409).
Conditional headers are read by ``referee.conditional`` alone (RFC 9110 §13.1:
strong ``If-Match``, weak ``If-None-Match``, lists, ``*``; malformed → 400).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import ngettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import conditional, corrections, selectors, services, verification
from referee.api import answers
from referee.api import serializers as s
from referee.api.auth import CanUseGame, IsOrganiser, actor_of, can_access
from referee.api.pagination import MAX_PAGE, BoundedPageNumberPagination
from referee.api.problems import PROBLEM_CONTENT_TYPE, referee_problem
from referee.api.schema import (
    ETAG_HEADER,
    EXAMPLE_RECORD,
    IF_NONE_MATCH_HEADER,
    AuditTrailDocument,
    CorrectionResultDocument,
    EventResultDocument,
    GameStateDocument,
    ProblemDocument,
    RecordDocument,
    ResultDocument,
    SessionDocument,
    problems,
)
from referee.computer import computer_seats_setup
from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.idempotency import Idempotency, Rendered
from referee.inputs import MAX_ID, StrictSerializer, client_ident, join_client
from referee.league import league
from referee.lockouts import give_device, join_lockout_lift
from referee.models import Correction, Event, Game, RefusedEvent, TableAlert, TableToken

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
    {"type": "string", "minLength": 1, "maxLength": 255},
    OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (≤ 255 characters). A retry with the same key and body "
    "returns the first response; the same key with another body gets 422.",
)
IF_MATCH_HEADER = OpenApiParameter(
    "If-Match",
    {"type": "string", "example": '"7"'},
    OpenApiParameter.HEADER,
    required=False,
    description='`*` or the state\'s ETag (`"<version>"`), or a list of entity tags; compared '
    'strongly (RFC 9110 §13.1.1: a weak tag such as `W/"3"` never matches). A stale one gets '
    "412 and the current state, and nothing is applied; a malformed one 400 "
    "(`precondition_invalid`).",
)
IF_NONE_MATCH_WRITE_HEADER = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
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


def _conditions(request: Request) -> conditional.Conditions | None:
    """The request's ``If-Match``/``If-None-Match`` (400 ``precondition_invalid`` if malformed)."""
    return conditional.conditions_of(
        if_match=request.headers.get("If-Match"),
        if_none_match=request.headers.get("If-None-Match"),
    )


def _precondition(request: Request, data: dict[str, Any]) -> services.Precondition | None:
    """The versions a write to a game may apply at: its conditional headers (412) and
    ``expected_version`` (409), checked by the service under the game's lock."""
    conditions = _conditions(request)
    version = data.get("expected_version")
    if conditions is None and version is None:
        return None
    return services.Precondition(version, conditions=conditions)


def _idempotency(
    request: Request, render: Callable[[Result], Rendered]
) -> Idempotency[Result] | None:
    """The request's ``Idempotency-Key`` and fingerprint (400 for a key too long), with how
    its answer is rendered to be stored (``referee.api.answers``); ``None`` without a key."""
    key = request.headers.get("Idempotency-Key")
    if not key:
        return None
    if len(key) > IDEMPOTENCY_KEY_MAX_LENGTH:
        limit = IDEMPOTENCY_KEY_MAX_LENGTH
        message = ngettext("At most %(count)s character.", "At most %(count)s characters.", limit)
        raise serializers.ValidationError({"Idempotency-Key": [message % {"count": limit}]})
    # Who sent it is part of the request: a stored answer holds the sender's view of the
    # state (e.g. its own declared hand, R31), never replayed to another token or user.
    body = {"by": actor_of(request).label, "body": request.data}
    fingerprint = Idempotency.fingerprint_of(request.method or "", request.path, body)
    return Idempotency(key, fingerprint, render, refuse=_refused)


def _refused(error: RefereeError) -> Rendered:
    """A refusal by the rules as the problem the API answers (kept for a retry)."""
    body = referee_problem(error)
    return int(body["status"]), body


class GameMixin(APIView):
    """Fetch the game named in the URL and check the caller may use it (404, then 403).

    Its writes evaluate ``If-Match``/``If-None-Match`` against the game's version
    under the game's lock (``_precondition``), not in ``ConditionalRequestMiddleware``.
    """

    permission_classes = [CanUseGame]
    checks_conditions = True

    def get_game(self, request: Request, game_id: Any) -> Game:
        token = request.auth
        if isinstance(token, TableToken) and token.game_id == game_id:
            # The token's query read the game already (select_related): no second read.
            return token.game
        game = get_object_or_404(Game, pk=game_id)
        if not can_access(request, game):
            raise PermissionDenied()
        return game


def _validated(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:  # type: ignore[type-arg]
    """The request body as ``serializer_class`` validates it; raises its 400. A plainly
    valid body (``StrictSerializer.plainly_valid``) is taken without building it."""
    if issubclass(serializer_class, StrictSerializer):
        plain = serializer_class.plainly_valid(request.data)
        if plain is not None:
            return plain
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class GamePagination(BoundedPageNumberPagination):
    page_size = 50
    max_page_size = 500


class GameListCreateView(generics.ListAPIView):  # type: ignore[type-arg]
    """The games an organiser may use; create a game (organisers only)."""

    permission_classes = [IsOrganiser]
    serializer_class = s.GameListItemSerializer
    pagination_class = GamePagination

    def get_queryset(self) -> QuerySet[Game]:
        return league().games_accessible(user=self.request.user)

    @extend_schema(
        operation_id="games_list",
        tags=["games"],
        summary="Your games",
        description="The games you may use, newest first: those you created and those of the "
        "clubs you organise (staff: every game). Paginated (`page`, `page_size`). A game's "
        "state is `GET /games/{id}/`.",
        responses={200: s.GameListItemSerializer(many=True), **PROBLEMS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="games_create",
        tags=["games"],
        summary="Create a game",
        description="Organisers only. Seats are guests' names or players of the `club`; "
        "`rules` override the defaults (R40). The answer carries the table's `join_code` "
        "and the first state.",
        request=s.GameCreateSerializer,
        parameters=[ETAG_HEADER],
        responses={201: s.GameCreatedSerializer, **PROBLEMS},
        examples=[
            OpenApiExample(
                "Five players, default rules",
                request_only=True,
                value={"players": ["Andi", "Besse", "Cakra", "Daeng", "Evi"]},
            ),
            SEATS_EXAMPLE,
        ],
    )
    def post(self, request: Request) -> Response:
        data = _validated(s.GameCreateSerializer, request)
        game = services.game_create(
            players=data["players"],
            rules=data.get("rules"),
            created_by=request.user,
            allow_seated_elsewhere=data["allow_seated_elsewhere"],
            **{key: data[key] for key in league().create_fields() if key in data},
        )
        if data.get("computer"):
            computer_seats_setup(game=game, strategies=data["computer"])  # R39
        body = {
            "id": str(game.pk),
            "join_code": game.join_code,
            "version": game.version,
            "state": selectors.game_state_for(game),
        }
        return Response(body, status=status.HTTP_201_CREATED, headers={"ETag": f'"{game.version}"'})


class GameImportView(APIView):
    """Store a game transcribed as a record (e.g. from a paper sheet)."""

    permission_classes = [IsOrganiser]

    @extend_schema(
        operation_id="games_import",
        tags=["games"],
        summary="Import a game record",
        description="Checks a whole `domeng-record/1` record against the rules and stores it "
        "as a game (its events and rulings, in order). A record the rules forbid stores "
        "nothing (422). The body is the record itself, or `{record, players?, played_at?}`: "
        "`players` names the seats by the club's player ids (or guests' names) and "
        "`played_at` dates its rounds in the league.",
        request=RecordDocument,
        examples=[
            OpenApiExample("A record", request_only=True, value=EXAMPLE_RECORD),
            OpenApiExample(
                "A paper game of club players",
                request_only=True,
                value={
                    "record": EXAMPLE_RECORD,
                    "players": [17, 18, "Cakra", 21, 22],
                    "played_at": "2026-11-20T19:30:00Z",
                },
            ),
        ],
        parameters=[
            OpenApiParameter(
                "club",
                {"type": "string", "pattern": r"^[-a-zA-Z0-9_]+$", "maxLength": 60},
                description="A club you organise (slug).",
            ),
            OpenApiParameter(
                "season",
                {"type": "integer", "minimum": 1, "maximum": MAX_ID},
                description="One of its seasons (id).",
            ),
        ],
        responses={201: s.GameCreatedSerializer, **WRITE_PROBLEMS},
    )
    def post(self, request: Request) -> Response:
        in_league = league().import_query(request.query_params)
        envelope: dict[str, Any] = {"record": request.data}
        if isinstance(request.data, dict) and "record" in request.data:
            envelope = _validated(s.ImportSerializer, request)
        game = services.game_import(
            record=envelope["record"],
            created_by=request.user,
            players=envelope.get("players"),
            played_at=envelope.get("played_at"),
            **in_league,
        )
        body = {
            "id": str(game.pk),
            "join_code": game.join_code,
            "version": game.version,
            "state": selectors.game_state_for(game),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class JoinView(APIView):
    """Exchange a join code for a table token."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    @extend_schema(
        operation_id="games_join",
        tags=["games"],
        summary="Join a game with its join code",
        description="A phone gets a table token scoped to one game (and optionally one seat, "
        "which no other phone may then claim: 409 `seat_taken` until the organiser or the "
        "table's scorekeeper releases it or its phone leaves). Only wrong codes count: "
        "after `JOIN_LOCKOUT_FAILURES` of them from one phone (its address and its "
        "`domeng_device` cookie, set by this answer) it is locked out for a while (429 "
        "`join_locked_out`, with `Retry-After`: the seconds left); an organiser can lift it.",
        request=s.JoinSerializer,
        responses={
            201: s.JoinedSerializer,
            **problems(400, 404, 409, 429),  # 404: no game has this join code
        },
    )
    def post(self, request: Request) -> Response:
        data = _validated(s.JoinSerializer, request)
        key, token = services.table_join(
            join_code=data["join_code"],
            seat=data.get("seat"),
            label=data.get("label", ""),
            client=join_client(request),
        )
        return Response(
            {"token": key, "game": str(token.game_id), "seat": token.seat},
            status=status.HTTP_201_CREATED,
        )

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        # Refused or not, the phone gets a device cookie: its next typos count for it alone.
        return give_device(request, super().finalize_response(request, response, *args, **kwargs))  # type: ignore[arg-type]


class JoinLockoutLiftView(APIView):
    """Lift the join lockouts of an address (an organiser's)."""

    permission_classes = [IsOrganiser]

    @extend_schema(
        operation_id="join_lockouts_lift",
        tags=["games"],
        summary="Lift a join lockout",
        description="Forgets every wrong join code counted against an address (all its "
        "phones): by default the address you call from, e.g. the club's Wi-Fi; staff may "
        "name any address.",
        request=s.LockoutLiftSerializer,
        responses={200: s.LockoutLiftedSerializer, **PROBLEMS},
    )
    def post(self, request: Request) -> Response:
        data = _validated(s.LockoutLiftSerializer, request)
        own = client_ident(request)
        address = data.get("address") or own
        if address != own and not request.user.is_staff:
            raise PermissionDenied("Only staff may lift another address's lockout.")
        join_lockout_lift(address)
        return Response({"address": address, "lifted": True})


class GameDetailView(GameMixin, APIView):
    """The state a table sees now."""

    @extend_schema(
        operation_id="games_state",
        tags=["games"],
        summary="Game state",
        description="The chain with its open ends, whose turn it is, each seat's name, tiles "
        "played and left, stones; stones on the table, the CAMAT, the round, the last events "
        "with their named outcomes and which tiles can still be played on each end. Sends an "
        "`ETag` (the version); `If-None-Match` with it (`*`, or a list of tags compared "
        'weakly: `W/"3"` names version 3) gets 304 while nothing changed; a malformed one '
        "400 (`precondition_invalid`).",
        parameters=[IF_NONE_MATCH_HEADER, ETAG_HEADER],
        responses={
            200: STATE,
            304: OpenApiResponse(
                description="Not modified: the game is still at the version "
                "`If-None-Match` named. No body."
            ),
        },
    )
    def get(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        etag = conditional.etag(game.version)
        conditions = _conditions(request)
        if conditions is not None and conditions.not_modified(game.version):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        actor = actor_of(request)
        body = selectors.game_state_for(game, viewer=actor.seat, viewer_label=actor.label)
        return Response(body, headers={"ETag": etag})


class _EventView(GameMixin, APIView):
    kind = "move"
    serializer_class: type[serializers.Serializer] = s.MoveSerializer  # type: ignore[type-arg]

    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(self.serializer_class, request)
        render = answers.once(answers.submitted)
        result = services.event_submit(
            game_id=game.pk,
            kind=self.kind,
            payload=s.event_payload(data),
            actor=actor_of(request),
            precondition=_precondition(request, data),
            idempotency=_idempotency(request, render),
            seen=game,
        )
        return answers.respond(result, render)


class MoveView(_EventView):
    """Enter a play or a pass."""

    kind = "move"
    serializer_class = s.MoveSerializer

    @extend_schema(
        operation_id="games_moves_create",
        tags=["play"],
        summary="Enter a play or a pass",
        description="A play `{seat, tile, on?}` or a pass `{seat, pass: true}`. The rules "
        "core checks it (R5–R17, R30–R34); an illegal move gets 422 with the rule's `code` "
        "and id and changes nothing (it is logged as refused).",
        request=s.MoveSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={201: EVENT_RESULT, **WRITE_PROBLEMS},
        examples=[
            OpenApiExample("A play", request_only=True, value={"seat": 3, "tile": "4-6"}),
            OpenApiExample(
                "A play on a named end",
                request_only=True,
                value={"seat": 0, "tile": "1-6", "on": 1},
            ),
            OpenApiExample("A pass", request_only=True, value={"seat": 4, "pass": True}),
        ],
    )
    def post(self, request: Request, game_id: Any) -> Response:
        return super().post(request, game_id)


class HandView(_EventView):
    """Declare the phone's own seat's hand (R31)."""

    kind = "hand"
    serializer_class = s.HandSerializer

    @extend_schema(
        operation_id="games_hands_create",
        tags=["play"],
        summary="Declare a hand",
        description="A phone joined to one seat declares that seat's five tiles (R31). No "
        "other token can read them until the round is over; from then on the referee "
        "checks that seat fully.",
        request=s.HandSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={201: EVENT_RESULT, **WRITE_PROBLEMS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        return super().post(request, game_id)


class RevealView(_EventView):
    """Give a seat's remaining tiles or pip sum at a blocked round (R18, R33)."""

    kind = "reveal"
    serializer_class = s.RevealSerializer

    @extend_schema(
        operation_id="games_reveals_create",
        tags=["play"],
        summary="Reveal at a blocked round",
        description="`{seat, tiles}` (checked, R33) or `{seat, pips}` (R18). Once every seat "
        "is known the round is settled (MATTIKKENG, winner, CUCUQ, stones).",
        request=s.RevealSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={201: EVENT_RESULT, **WRITE_PROBLEMS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        return super().post(request, game_id)


class UndoView(GameMixin, APIView):
    """Undo the last event."""

    @extend_schema(
        operation_id="games_undo",
        tags=["corrections"],
        summary="Undo the last event",
        description="The last live event is revoked (kept in the audit trail). Undoing a "
        "round's last move reopens it until the next round's first move.",
        request=s.UndoSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={200: CORRECTION_RESULT, **WRITE_PROBLEMS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.UndoSerializer, request)
        render = answers.once(answers.undone)
        return answers.respond(
            services.event_undo(
                game_id=game.pk,
                actor=actor_of(request),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request, render),
                reason=data.get("reason", ""),
            ),
            render,
        )


class EventAmendView(GameMixin, APIView):
    """Amend an earlier event of the current round."""

    @extend_schema(
        operation_id="games_events_amend",
        tags=["corrections"],
        summary="Amend an event",
        description="Replaces the event at `position` (same kind, new fields). Every later "
        "event is replayed through the rules; if one becomes impossible the amendment is "
        "refused (422 with that event's code) and nothing changes.",
        request=s.AmendSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={200: CORRECTION_RESULT, **WRITE_PROBLEMS},
    )
    def put(self, request: Request, game_id: Any, position: int) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.AmendSerializer, request)
        render = answers.once(answers.corrected)
        return answers.respond(
            services.event_amend(
                game_id=game.pk,
                position=position,
                payload=s.event_payload(data),
                actor=actor_of(request),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request, render),
                reason=data.get("reason", ""),
            ),
            render,
        )


class AuditPagination(BoundedPageNumberPagination):
    """A page of each list of the audit trail (``page``, ``page_size`` ≤ 500)."""

    page_size = 100


AUDIT_PAGE_PARAMETERS = [
    OpenApiParameter(
        "page",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
        description="The page, from 1.",
    ),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": AuditPagination.max_page_size},
        description="Entries of each list per page (≤ 500).",
    ),
]


class EventLogView(GameMixin, APIView):
    """The audit trail: every event (live and revoked), corrections, refused events, alerts."""

    @extend_schema(
        operation_id="games_events_list",
        tags=["corrections"],
        summary="Audit trail",
        description="Paginated: each page holds up to `page_size` entries of each list "
        "(`events` by position, `corrections`, `refused`, `alerts`), `counts` the totals and "
        "`next` the next page while one list has more. A refused event's payload and detail "
        "are shown only to the phone that entered it and to the organiser (not a refusal "
        "under R31, which may tell of a declared hand); a declared hand only to the phone "
        "that declared it (R31). `alerts` (a phone that probed declared "
        "hands) are shown to the organiser and to the phones of the seats concerned.",
        parameters=AUDIT_PAGE_PARAMETERS,
        responses={200: AuditTrailDocument},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        actor = actor_of(request)
        viewer = actor.seat
        organiser = actor.token is None
        paginator = AuditPagination()
        size = paginator.get_page_size(request) or paginator.page_size
        page = _page_number(request)
        window = slice((page - 1) * size, page * size)
        # A handful per game at most; filtered here (JSON containment is not SQLite's).
        alerts_all = [
            a for a in TableAlert.objects.filter(game=game) if organiser or viewer in a.seats
        ]
        event_qs = Event.objects.filter(game=game).order_by("position", "id")
        correction_qs = Correction.objects.filter(game=game).select_related("replacement")
        refused_qs = RefusedEvent.objects.filter(game=game)
        counts = {
            "events": event_qs.count(),
            "corrections": correction_qs.count(),
            "refused": refused_qs.count(),
            "alerts": len(alerts_all),
        }
        events = [
            {
                "position": e.position,
                "kind": e.kind,
                "round": e.round_number,
                "payload": _visible_payload(e, viewer, actor.label),
                "entered_by": e.entered_by,
                "created_at": e.created_at,
                "revoked_by": e.revoked_by_id,
            }
            for e in event_qs[window]
        ]
        trail = [
            {
                "id": c.pk,
                "kind": c.kind,
                "entered_by": c.entered_by,
                "reason": c.reason,
                "created_at": c.created_at,
                "replacement_position": c.replacement.position if c.replacement else None,
                "changes": corrections.redacted(c.changes),
            }
            for c in correction_qs[window]
        ]
        refused = []
        for r in refused_qs[window]:
            readable = r.entered_by == actor.label or (organiser and r.rule != "R31")
            refused.append(
                {
                    "kind": r.kind,
                    "payload": r.payload if readable and r.kind != "hand" else None,
                    "code": r.code,
                    "rule": r.rule or None,
                    "detail": r.detail if readable else None,
                    "entered_by": r.entered_by,
                    "created_at": r.created_at,
                }
            )
        alerts = [
            {
                "kind": a.kind,
                "entered_by": a.entered_by,
                "seats": a.seats,
                "count": a.count,
                "created_at": a.created_at,
            }
            for a in alerts_all[window]
        ]
        more = page * size < max(counts.values())
        next_url = (
            request.build_absolute_uri(f"{request.path}?page={page + 1}&page_size={size}")
            if more
            else None
        )
        return Response(
            {
                "events": events,
                "corrections": trail,
                "refused": refused,
                "alerts": alerts,
                "counts": counts,
                "page": page,
                "next": next_url,
            }
        )


def _page_number(request: Request) -> int:
    """``?page=`` as a whole number from 1 (400 ``invalid`` otherwise)."""
    raw = request.query_params.get("page", "1")
    if not raw.isdecimal() or len(raw) > 9 or int(raw) < 1:
        raise serializers.ValidationError({"page": ["A whole number from 1."]})
    return int(raw)


def _visible_payload(event: Event, viewer: int | None, viewer_label: str) -> dict[str, Any]:
    """A declared hand's tiles only for the phone that declared it (R31)."""
    if event.kind == "hand" and not (
        event.payload.get("seat") == viewer and event.entered_by == viewer_label
    ):
        return {"seat": event.payload.get("seat"), "tiles": None}
    return event.payload


def _bodiless_write(
    request: Request,
    game: Game,
    service: Callable[..., Any],
    render_result: Callable[[Any], Rendered],
) -> Response:
    """A write whose body is at most ``expected_version`` (a sitting started or ended, the
    game closed; any other field is 400 ``unknown_field``): the service under the
    request's preconditions and ``Idempotency-Key``, its result rendered by
    ``render_result`` (or the answer kept for the key)."""
    data = _validated(s.VersionedSerializer, request)
    render = answers.once(render_result)
    result = service(
        game_id=game.pk,
        actor=actor_of(request),
        precondition=_precondition(request, data),
        idempotency=_idempotency(request, render),
    )
    return answers.respond(result, render)


class SessionStartView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_sessions_start",
        tags=["sessions"],
        summary="Start a session",
        description="Start a sitting (R27); an open one is ended first. Stones, the CAMAT and "
        "the next leader carry over.",
        request=s.VersionedSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={201: SessionDocument, **problems(409, 412)},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        return _bodiless_write(request, game, services.session_start, answers.session_started)


class SessionEndView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_sessions_end",
        tags=["sessions"],
        summary="End the session",
        description="Ends the open sitting (R27); the game stays open for the next one.",
        request=s.VersionedSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={200: SessionDocument, **problems(409, 412)},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        return _bodiless_write(request, game, services.session_end, answers.session_ended)


class GameCloseView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_close",
        tags=["sessions"],
        summary="Close the game",
        description="The organiser's only (403 `organiser_only` for a phone), on the version "
        "they saw: `If-Match` with the state's ETag is required (428 "
        "`precondition_required` without it, 412 when stale).",
        request=s.VersionedSerializer,
        parameters=[*WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={200: STATE, **problems(409, 412, 428)},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        return _bodiless_write(request, game, services.game_close, answers.closed)


class GameTokensView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_tokens_list",
        tags=["games"],
        summary="The table's tokens",
        description="Every table token of the game, live and revoked, oldest first: the seat "
        "each claimed, its label, when it joined and when it was revoked. The organiser's "
        "only (403 `organiser_only` for a phone); keys are never shown.",
        responses={200: s.TableTokenSerializer(many=True), **PROBLEMS},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        tokens = services.table_tokens(game=game, actor=actor_of(request))
        return Response(s.TableTokenSerializer(tokens, many=True).data)


class TokenRevokeView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_tokens_revoke",
        tags=["games"],
        summary="Revoke a table token",
        description="The phone loses the game at once and its seat is free for another "
        "phone. The organiser's only.",
        request=None,
        responses={200: s.TableTokenSerializer, **PROBLEMS},
    )
    def post(self, request: Request, game_id: Any, token_id: int) -> Response:
        game = self.get_game(request, game_id)
        token = services.token_revoke(game_id=game.pk, token_id=token_id, actor=actor_of(request))
        return Response(s.TableTokenSerializer(token).data)


class SeatReleaseView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_seats_release",
        tags=["games"],
        summary="Release a seat",
        description="Revokes the token of the phone holding `seat` (0–4) so that another "
        "phone may claim it: the organiser or the table's scorekeeper (403 "
        "`seat_not_allowed` for a seat's phone; 404 `token_not_found` when no phone holds it).",
        request=None,
        responses={200: s.TableTokenSerializer, **PROBLEMS},
    )
    def post(self, request: Request, game_id: Any, seat: int) -> Response:
        game = self.get_game(request, game_id)
        if seat > 4:
            raise Http404
        token = services.seat_release(game_id=game.pk, seat=seat, actor=actor_of(request))
        return Response(s.TableTokenSerializer(token).data)


class LeaveView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_leave",
        tags=["games"],
        summary="Leave the table",
        description="The calling phone's table token is revoked and its seat, if any, is "
        "free for another phone. Table tokens only.",
        request=None,
        responses={204: OpenApiResponse(description="Left."), **PROBLEMS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        token = request.auth
        if not isinstance(token, TableToken) or token.game_id != game.pk:
            raise PermissionDenied("Only a table token leaves a table.")
        services.table_leave(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GameRecordView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_record",
        tags=["records"],
        summary="Export the game's record",
        description="`domeng-record/1`: replaying it gives exactly the stored game's result.",
        responses={200: RecordDocument},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        return Response(services.game_export(self.get_game(request, game_id)))

    @extend_schema(
        operation_id="games_record_replace",
        tags=["corrections"],
        summary="Replace the game by a corrected record",
        description="Replaces the stored game by a corrected `domeng-record/1` of it (same "
        "players and rules), judged as a replay (R37), so a game is never counted twice. "
        "Events it repeats keep their first entry's time and author; the others are amended, "
        "inserted or removed, all in one correction." + ORGANISER_ONLY,
        request=s.RecordReplaceSerializer,
        responses={200: CORRECTION_RESULT, **RULING_PROBLEMS},
    )
    def put(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.RecordReplaceSerializer, request)
        return answers.respond(
            corrections.game_replace(
                game_id=game.pk,
                record=data["record"],
                actor=actor_of(request),
                reason=data.get("reason", ""),
            ),
            answers.corrected,
        )


class GameResultView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_result",
        tags=["records"],
        summary="The game's result",
        description="`domeng-result/1` of the stored game; each round also carries its "
        "`verification` at the table (unverified, confirmed, disputed, resolved).",
        responses={200: ResultDocument},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        result = replay_record(services.game_export(game))
        return Response(verification.annotate_result(result, game))  # issue 11


class CorrectionsView(GameMixin, APIView):
    """Amend, insert or remove any events of any rounds, as one correction (R37)."""

    @extend_schema(
        operation_id="games_corrections_create",
        tags=["corrections"],
        summary="Correct any events of any rounds",
        description="Amends, inserts and removes events of any round, in one atomic batch "
        "(one fix can make a later event impossible until a second fix lands). The game is "
        "judged again from the earliest change exactly as a replay of its corrected record "
        "(R37): if an event becomes impossible, the whole correction is refused with that "
        "event's error and nothing changes. Events keep the time and author of their first "
        "entry; each round keeps the time it was settled at the table; league rows follow in "
        "the same transaction. A correction that changes nothing stores nothing "
        "(`correction: null`, same version)." + ORGANISER_ONLY,
        request=s.CorrectionRequestSerializer,
        parameters=[IDEMPOTENCY_HEADER, IF_MATCH_HEADER],
        responses={200: CORRECTION_RESULT, **RULING_PROBLEMS},
        examples=[
            OpenApiExample(
                "Two entries of round 3 swapped",
                request_only=True,
                value={
                    "changes": [
                        {"op": "amend", "position": 61, "event": {"seat": 1, "tile": "2-4"}},
                        {"op": "amend", "position": 62, "event": {"seat": 2, "pass": True}},
                    ],
                    "reason": "seat 1's and seat 2's entries were swapped",
                },
            ),
            OpenApiExample(
                "A forgotten pass, a duplicate removed",
                request_only=True,
                value={
                    "changes": [
                        {
                            "op": "insert",
                            "position": 14,
                            "kind": "move",
                            "event": {"seat": 4, "pass": True},
                        },
                        {"op": "remove", "position": 20},
                    ],
                    "reason": "entered on the wrong phone",
                },
            ),
        ],
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.CorrectionRequestSerializer, request)
        changes = [
            corrections.Change(
                op=c["op"],
                position=c.get("position"),
                kind=c.get("kind"),
                payload=c.get("event"),
                round=c.get("round"),
            )
            for c in data["changes"]
        ]
        render = answers.once(answers.corrected)
        return answers.respond(
            corrections.events_correct(
                game_id=game.pk,
                changes=changes,
                actor=actor_of(request),
                reason=data.get("reason", ""),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request, render),
            ),
            render,
        )


class RoundVoidView(GameMixin, APIView):
    """Void a round (R35)."""

    @extend_schema(
        operation_id="games_rounds_void",
        tags=["corrections"],
        summary="Void a round",
        description="The round's events are kept as entered but not judged (only their form); "
        "it moves no stone, names nobody and counts in no statistic; the next round is led as "
        "it should have been (R6; R5 if no round before counts). Later rounds are judged again "
        "(R37). Always with a reason (else 422 `ruling_invalid`)." + ORGANISER_ONLY,
        request=s.VoidSerializer,
        parameters=[IDEMPOTENCY_HEADER, IF_MATCH_HEADER],
        responses={200: CORRECTION_RESULT, **RULING_PROBLEMS},
        examples=[
            OpenApiExample(
                "Played on after an impossible tile",
                request_only=True,
                value={"reason": "2-5 was placed on the 6 and the table played on"},
            )
        ],
    )
    def post(self, request: Request, game_id: Any, number: int) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.VoidSerializer, request)
        render = answers.once(answers.corrected)
        return answers.respond(
            corrections.round_void(
                game_id=game.pk,
                round=number,
                reason=data["reason"],
                actor=actor_of(request),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request, render),
            ),
            render,
        )


class RoundAdjustmentView(GameMixin, APIView):
    """Move stones by a ruling after a round (R36)."""

    @extend_schema(
        operation_id="games_rounds_adjust",
        tags=["corrections"],
        summary="Adjust stones after a round",
        description="Moves stones between the table and seats after the round's awards and "
        "any reset (R36), listed in its `transfers` with reason `adjustment`. Nobody gives "
        "more than they hold; it never elects a CAMAT. On a round still in play or waiting for "
        "its reveals, from a seat to itself, or without a reason: 422 `ruling_invalid`."
        + ORGANISER_ONLY,
        request=s.AdjustmentSerializer,
        parameters=[IDEMPOTENCY_HEADER, IF_MATCH_HEADER],
        responses={200: CORRECTION_RESULT, **RULING_PROBLEMS},
        examples=[
            OpenApiExample(
                "A stone found under the table",
                request_only=True,
                value={
                    "from": 3,
                    "to": "table",
                    "stones": 1,
                    "reason": "stone found under the table returned",
                },
            )
        ],
    )
    def post(self, request: Request, game_id: Any, number: int) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.AdjustmentSerializer, request)
        render = answers.once(answers.corrected)
        return answers.respond(
            corrections.round_adjust(
                game_id=game.pk,
                round=number,
                source=data["from"],
                to=data["to"],
                stones=data["stones"],
                reason=data["reason"],
                actor=actor_of(request),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request, render),
            ),
            render,
        )


class SeatSubstituteView(GameMixin, APIView):
    """Someone else takes a seat from a round on (R38)."""

    @extend_schema(
        operation_id="games_seats_substitute",
        tags=["corrections"],
        summary="Seat a substitute",
        description="From `from_round` on (default: the round in play, else the next) the seat "
        "is sat by a guest (`name`) or a club `player`. Only the name changes: the seat keeps "
        "its stones, office and turn (R38); the league credits each round to whoever sat it; "
        "the record gets the round's `substitutes`. A club player in another open game: 409 "
        "`player_seated_elsewhere` naming it (`game`) unless `allow_seated_elsewhere`."
        + ORGANISER_ONLY,
        request=s.SubstituteSerializer,
        parameters=[IDEMPOTENCY_HEADER, IF_MATCH_HEADER],
        responses={200: CORRECTION_RESULT, **RULING_PROBLEMS},
        examples=[
            OpenApiExample(
                "Evi left the table",
                request_only=True,
                value={"name": "Fajar", "from_round": 3, "reason": "Evi went home"},
            )
        ],
    )
    def post(self, request: Request, game_id: Any, seat: int) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.SubstituteSerializer, request)
        render = answers.once(answers.corrected)
        return answers.respond(
            corrections.seat_substitute(
                game_id=game.pk,
                seat=seat,
                round=data.get("from_round"),
                name=data.get("name"),
                player=data.get("player"),
                allow_elsewhere=data["allow_seated_elsewhere"],
                actor=actor_of(request),
                reason=data.get("reason", ""),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request, render),
            ),
            render,
        )


class SeatView(GameMixin, APIView):
    """Re-seat: who sat a seat from the game's start (R38)."""

    @extend_schema(
        operation_id="games_seats_update",
        tags=["corrections"],
        summary="Re-seat a name",
        description="Who sat the seat from the game's start: a guest's `name` (e.g. a "
        "misspelling) or a club `player` (a guest identified). The table state, the record's "
        "`players`, the games list and the league follow (rounds after a substitute stay the "
        "substitute's). A club player in another open game: 409 `player_seated_elsewhere` "
        "unless `allow_seated_elsewhere`." + ORGANISER_ONLY,
        request=s.SeatOccupantSerializer,
        responses={200: CORRECTION_RESULT, **WRITE_PROBLEMS},
        examples=[
            OpenApiExample(
                "A misspelt guest", request_only=True, value={"name": "Besse", "reason": "typo"}
            ),
            OpenApiExample("A club player", request_only=True, value={"player": 17}),
        ],
    )
    def put(self, request: Request, game_id: Any, seat: int) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.SeatOccupantSerializer, request)
        return answers.respond(
            corrections.seat_rename(
                game_id=game.pk,
                seat=seat,
                name=data.get("name"),
                player=data.get("player"),
                allow_elsewhere=data["allow_seated_elsewhere"],
                actor=actor_of(request),
                reason=data.get("reason", ""),
            ),
            answers.corrected,
        )
