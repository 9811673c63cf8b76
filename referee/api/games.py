"""The live-table API: games played move by move over HTTP.

One ``APIView`` per operation; each parses the request, calls one service
and renders its answer. Writes accept ``Idempotency-Key`` (a retried POST
returns the first answer and never applies twice) and a version
precondition (``If-Match: "<version>"`` → 412, or ``expected_version`` → 409).
"""

from __future__ import annotations

import re
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from referee import selectors, services
from referee.api import serializers as s
from referee.api.auth import CanUseGame, IsOrganiser, actor_of, can_access, client_ident
from referee.api.pagination import BoundedPageNumberPagination
from referee.api.schema import (
    ETAG_HEADER,
    IF_NONE_MATCH_HEADER,
    MAX_ID,
    AuditTrailDocument,
    CorrectionResultDocument,
    EventResultDocument,
    GameStateDocument,
    RecordDocument,
    ResultDocument,
    SessionDocument,
    problems,
)
from referee.engine.records import replay_record
from referee.models import Correction, Event, Game, RefusedEvent, TableToken
from scoring import selectors as league_selectors
from scoring.api.examples import SEATS_EXAMPLE
from scoring.api.serializers import GameLeagueQuerySerializer

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
    description='The state\'s ETag (`"<version>"`); a stale one gets 412 and the current '
    "state, and nothing is applied.",
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
_ETAG_RE = re.compile(r'^(?:W/)?"?(\d+)"?$')
_ENTITY_TAG_RE = re.compile(r'(?:W/)?("[^"]*")')  # an entity tag of a list: its opaque-tag

# 400/401/403/404/406/413/415/429/503 are documented for every operation by ``AutoSchema``.
PROBLEMS = problems(400)
WRITE_PROBLEMS = problems(400, 409, 412, 422)
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


def _precondition(request: Request, data: dict[str, Any]) -> services.Precondition | None:
    header = request.headers.get("If-Match")
    if header and header.strip() != "*":  # RFC 9110: "*" matches any current version
        match = _ETAG_RE.match(header.strip())
        return services.Precondition(int(match.group(1)) if match else -1, from_header=True)
    if data.get("expected_version") is not None:
        return services.Precondition(data["expected_version"])
    return None


def etag_matches_any(header: str | None, etag: str) -> bool:
    """``If-None-Match``'s test (RFC 9110 §13.1.2): ``*``, or any entity tag of the list
    equal to ``etag`` by weak comparison (``W/"2"`` matches ``"2"``)."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    return etag.removeprefix("W/") in _ENTITY_TAG_RE.findall(header)


def _idempotency(request: Request) -> services.Idempotency | None:
    key = request.headers.get("Idempotency-Key")
    if not key:
        return None
    if len(key) > 255:
        raise serializers.ValidationError({"Idempotency-Key": ["At most 255 characters."]})
    # Who sent it is part of the request: a stored answer holds the sender's view of the
    # state (e.g. its own declared hand, R31), never replayed to another token or user.
    body = {"by": actor_of(request).label, "body": request.data}
    return services.Idempotency(
        key, services.Idempotency.fingerprint_of(request.method or "", request.path, body)
    )


def _render(outcome: services.Outcome) -> Response:
    return Response(outcome.body, status=outcome.status, headers=outcome.headers)


class GameMixin(APIView):
    """Fetch the game named in the URL and check the caller may use it (404, then 403)."""

    permission_classes = [CanUseGame]

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
        return league_selectors.games_accessible(user=self.request.user)

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
            club=data.get("club"),
            season=data.get("season"),
        )
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
        "as a game (its events, in order). A record the rules forbid stores nothing (422).",
        request=RecordDocument,
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
        league = GameLeagueQuerySerializer(data=request.query_params)
        league.is_valid(raise_exception=True)
        game = services.game_import(
            record=request.data, created_by=request.user, **league.validated_data
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
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "join"

    @extend_schema(
        operation_id="games_join",
        tags=["games"],
        summary="Join a game with its join code",
        description="A phone gets a table token scoped to one game (and optionally one seat). "
        "Attempts are throttled; repeated wrong codes lock the client out for a while (429 "
        "`join_locked_out`, with `Retry-After`: the seconds left).",
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
            client=client_ident(request),
        )
        return Response(
            {"token": key, "game": str(token.game_id), "seat": token.seat},
            status=status.HTTP_201_CREATED,
        )


class GameDetailView(GameMixin, APIView):
    """The state a table sees now."""

    @extend_schema(
        operation_id="games_state",
        tags=["games"],
        summary="Game state",
        description="The chain with its open ends, whose turn it is, each seat's name, tiles "
        "played and left, stones; stones on the table, the CAMAT, the round, the last events "
        "with their named outcomes and which tiles can still be played on each end. Sends an "
        "`ETag` (the version); `If-None-Match` with it gets 304 while nothing changed.",
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
        etag = f'"{game.version}"'
        if etag_matches_any(request.headers.get("If-None-Match"), etag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        body = selectors.game_state_for(game, viewer=actor_of(request).seat)
        return Response(body, headers={"ETag": etag})


class _EventView(GameMixin, APIView):
    kind = "move"
    serializer_class: type[serializers.Serializer] = s.MoveSerializer  # type: ignore[type-arg]

    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(self.serializer_class, request)
        outcome = services.event_submit(
            game_id=game.pk,
            kind=self.kind,
            payload=s.event_payload(data),
            actor=actor_of(request),
            precondition=_precondition(request, data),
            idempotency=_idempotency(request),
        )
        return _render(outcome)


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
        parameters=WRITE_HEADERS,
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
        parameters=WRITE_HEADERS,
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
        parameters=WRITE_HEADERS,
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
        parameters=WRITE_HEADERS,
        responses={200: CORRECTION_RESULT, **WRITE_PROBLEMS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.UndoSerializer, request)
        return _render(
            services.event_undo(
                game_id=game.pk,
                actor=actor_of(request),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request),
                reason=data.get("reason", ""),
            )
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
        parameters=WRITE_HEADERS,
        responses={200: CORRECTION_RESULT, **WRITE_PROBLEMS},
    )
    def put(self, request: Request, game_id: Any, position: int) -> Response:
        game = self.get_game(request, game_id)
        data = _validated(s.AmendSerializer, request)
        return _render(
            services.event_amend(
                game_id=game.pk,
                position=position,
                payload=s.event_payload(data),
                actor=actor_of(request),
                precondition=_precondition(request, data),
                idempotency=_idempotency(request),
                reason=data.get("reason", ""),
            )
        )


class EventLogView(GameMixin, APIView):
    """The audit trail: every event (live and revoked), corrections and refused events."""

    @extend_schema(
        operation_id="games_events_list",
        tags=["corrections"],
        summary="Audit trail",
        description="Every event as entered (live and revoked, with the correction that "
        "revoked it), every correction with who entered it and why, and every refused event "
        "with its code and rule. A declared hand's tiles are shown only to its own seat "
        "(R31).",
        responses={200: AuditTrailDocument},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        viewer = actor_of(request).seat
        events = [
            {
                "position": e.position,
                "kind": e.kind,
                "round": e.round_number,
                "payload": _visible_payload(e, viewer),
                "entered_by": e.entered_by,
                "created_at": e.created_at,
                "revoked_by": e.revoked_by_id,
            }
            for e in Event.objects.filter(game=game).order_by("position", "id")
        ]
        corrections = [
            {
                "id": c.pk,
                "kind": c.kind,
                "entered_by": c.entered_by,
                "reason": c.reason,
                "created_at": c.created_at,
                "replacement_position": c.replacement.position if c.replacement else None,
            }
            for c in Correction.objects.filter(game=game).select_related("replacement")
        ]
        refused = [
            {
                "kind": r.kind,
                "payload": r.payload if r.kind != "hand" and _may_read_detail(r, viewer) else None,
                "code": r.code,
                "rule": r.rule or None,
                "detail": r.detail if _may_read_detail(r, viewer) else None,
                "entered_by": r.entered_by,
                "created_at": r.created_at,
            }
            for r in RefusedEvent.objects.filter(game=game)
        ]
        return Response({"events": events, "corrections": corrections, "refused": refused})


def _may_read_detail(refused: RefusedEvent, viewer: int | None) -> bool:
    """A refusal under R31 may name a declared tile (its detail; its payload with its code:
    "this tile is in another seat's declared hand"): only the refused seat's phone reads it."""
    return refused.rule != "R31" or (viewer is not None and refused.payload.get("seat") == viewer)


def _visible_payload(event: Event, viewer: int | None) -> dict[str, Any]:
    if event.kind == "hand" and event.payload.get("seat") != viewer:
        return {"seat": event.payload.get("seat"), "tiles": None}
    return event.payload


class SessionStartView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_sessions_start",
        tags=["sessions"],
        summary="Start a session",
        description="Start a sitting (R27); an open one is ended first. Stones, the CAMAT and "
        "the next leader carry over.",
        request=None,
        responses={201: SessionDocument, **problems(409)},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        session = services.session_start(game_id=game.pk, actor=actor_of(request))
        return Response(
            {"number": session.number, "started_at": session.started_at},
            status=status.HTTP_201_CREATED,
        )


class SessionEndView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_sessions_end",
        tags=["sessions"],
        summary="End the session",
        description="Ends the open sitting (R27); the game stays open for the next one.",
        request=None,
        responses={200: SessionDocument, **problems(409)},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        session = services.session_end(game_id=game.pk, actor=actor_of(request))
        return Response(
            {
                "number": session.number,
                "started_at": session.started_at,
                "ended_at": session.ended_at,
            }
        )


class GameCloseView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_close",
        tags=["sessions"],
        summary="Close the game",
        description="No event is taken after this (409 `game_closed`); the record, the "
        "result and the league records stay.",
        request=None,
        responses={200: STATE, **problems(409)},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        game = services.game_close(game_id=game.pk, actor=actor_of(request))
        return Response(selectors.game_state_for(game))


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


class GameResultView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_result",
        tags=["records"],
        summary="The game's result",
        description="`domeng-result/1` of the stored game.",
        responses={200: ResultDocument},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        return Response(replay_record(services.game_export(self.get_game(request, game_id))))
