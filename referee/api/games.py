"""The live-table API: games played move by move over HTTP.

One ``APIView`` per operation; each parses the request, calls one service and renders
its answer (``referee.api.answers``). Games are listed, created, imported; their state,
record, result and audit trail read; moves, declared hands and reveals entered; events
undone or amended; sittings opened and ended; games closed. The plumbing every write
shares (precondition, ``Idempotency-Key``, the game's access) is ``referee.api.writes``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import conditional, selectors, services, settled
from referee.api import answers
from referee.api import serializers as s
from referee.api.answers import Rendered
from referee.api.auth import IsOrganiser, actor_of
from referee.api.pagination import MAX_PAGE, BoundedCursorPagination, BoundedPageNumberPagination
from referee.api.renderers import JSONText, dumps
from referee.api.schema import (
    ETAG_HEADER,
    EXAMPLE_RECORD,
    IF_NONE_MATCH_HEADER,
    READ_ETAG_HEADER,
    AuditTrailDocument,
    RecordDocument,
    ResultDocument,
    SessionDocument,
    problems,
)
from referee.api.writes import (
    CORRECTION_RESULT,
    EVENT_RESULT,
    IF_NONE_MATCH_WRITE_HEADER,
    ORGANISER_ONLY,
    PROBLEMS,
    RULING_PROBLEMS,
    SEATS_EXAMPLE,
    STATE,
    VERSIONED_WRITE_HEADERS,
    WRITE_HEADERS,
    WRITE_PROBLEMS,
    GameMixin,
    PerViewer,
    conditions_of,
    idempotency_of,
    precondition_of,
    validated,
)
from referee.engine.records import RECORD_FORMAT, RESULT_FORMAT
from referee.inputs import MAX_ID
from referee.league import league
from referee.models import Correction, Event, Game, RefusedEvent, TableAlert
from referee.services import corrections, verification
from referee.services.computer import computer_seats_setup


class GamePagination(BoundedCursorPagination):
    """The games, newest first, by cursor: a game created meanwhile goes before the first
    page, never onto the next."""

    ordering = ("-created_at", "-id")


class GameListCreateView(PerViewer, generics.ListAPIView):  # type: ignore[type-arg]
    """The games an organiser may use (theirs: ``PerViewer``); create a game (organisers only)."""

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
        "clubs you organise (staff: every game). Paged by cursor (`page_size`; follow "
        "`next`), so a game created meanwhile never repeats a row of the next page. A game's "
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
        # 409: a player seated elsewhere (R38); 412: a precondition no entity tag meets
        responses={201: s.GameCreatedSerializer, **problems(400, 409, 412)},
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
        data = validated(s.GameCreateSerializer, request)
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
            "state": selectors.game_state_for(game, organiser=True),
        }
        return Response(
            body, status=status.HTTP_201_CREATED, headers={"ETag": conditional.etag(game.version)}
        )


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
        in_league = league().import_query(request.query_params, user=request.user)
        envelope: dict[str, Any] = {"record": request.data}
        if isinstance(request.data, dict) and "record" in request.data:
            envelope = validated(s.ImportSerializer, request)
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
            "state": selectors.game_state_for(game, organiser=True),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class GameDetailView(GameMixin, APIView):
    """The state a table sees now."""

    @extend_schema(
        operation_id="games_state",
        tags=["games"],
        summary="Game state",
        description="The chain with its open ends, whose turn it is, each seat's name, tiles "
        "played and left, stones; stones on the table, the CAMAT, the round, the last events "
        "with their named outcomes and which tiles can still be played on each end. Sends an "
        '`ETag` of the body you get, `"<version>.<digest>"`: what a game shows depends on '
        "who asks (a phone's own declared hand, the organiser's view of a blocked round), and "
        "two callers whose bodies differ never share a tag. `If-None-Match` with it (`*`, or "
        'a list of tags compared weakly: `W/"3.<digest>"` matches too) gets 304 while your '
        'body is unchanged; a bare `"<version>"` or another caller\'s tag gets the body; a '
        "malformed one 400 (`precondition_invalid`). The tag names the version in a write's "
        "`If-Match`.",
        parameters=[IF_NONE_MATCH_HEADER, READ_ETAG_HEADER],
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
        conditions = conditions_of(request)
        actor = actor_of(request)
        body = selectors.game_state_for(
            game, viewer=actor.seat, viewer_label=actor.label, organiser=actor.token is None
        )
        # The tag is this viewer's body's (issue 27): another viewer's tag of the same
        # version never gets a 304 for a body that differs from theirs.
        etag = conditional.representation_etag(game.version, body)
        if conditions is not None and conditions.not_modified(etag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        return Response(body, headers={"ETag": etag})


class _EventView(GameMixin, APIView):
    kind = "move"
    serializer_class: type[serializers.Serializer] = s.MoveSerializer  # type: ignore[type-arg]

    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = validated(self.serializer_class, request)
        render = answers.submitted
        result = services.event_submit(
            game_id=game.pk,
            kind=self.kind,
            payload=s.event_payload(data),
            actor=actor_of(request),
            precondition=precondition_of(request, data),
            idempotency=idempotency_of(request),
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
        description="A phone joined to one seat declares that seat's five tiles (R31); from "
        "then on the referee checks that seat fully. No other token can read them until the "
        "round is settled (a blocked round waiting for reveals shows them to the organiser "
        "alone, R18/R33).",
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
        data = validated(s.UndoSerializer, request)
        render = answers.undone
        return answers.respond(
            services.event_undo(
                game_id=game.pk,
                actor=actor_of(request),
                precondition=precondition_of(request, data),
                idempotency=idempotency_of(request),
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
        data = validated(s.AmendSerializer, request)
        render = answers.corrected
        return answers.respond(
            services.event_amend(
                game_id=game.pk,
                position=position,
                payload=s.event_payload(data),
                actor=actor_of(request),
                precondition=precondition_of(request, data),
                idempotency=idempotency_of(request),
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
                "round": a.round_number,
                # The tiles a shared hand shares: the organiser's alone (R31).
                "tiles": a.tiles if organiser and a.kind == TableAlert.Kind.SHARED else None,
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
    """``?page=`` as a whole number from 1 to ``MAX_PAGE`` (the bound the schema declares),
    1 if absent or blank; a 400 ``invalid`` naming ``page`` otherwise."""
    return BoundedPageNumberPagination._bounded(request, "page", MAX_PAGE) or 1


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
    data = validated(s.VersionedSerializer, request)
    render = render_result
    result = service(
        game_id=game.pk,
        actor=actor_of(request),
        precondition=precondition_of(request, data),
        idempotency=idempotency_of(request),
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
    organiser_only_methods = frozenset({"POST"})

    @extend_schema(
        operation_id="games_close",
        tags=["sessions"],
        summary="Close the game",
        description="The organiser's only (403 `organiser_only` for a phone), on the version "
        "they saw: `If-Match` with the state's ETag is required (428 "
        "`precondition_required` without it, 412 when stale).",
        request=s.VersionedSerializer,
        parameters=[*VERSIONED_WRITE_HEADERS, IF_NONE_MATCH_WRITE_HEADER],
        responses={200: STATE, **problems(409, 412, 428)},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        return _bodiless_write(request, game, services.game_close, answers.closed)


class GameRecordView(GameMixin, APIView):
    organiser_only_methods = frozenset({"PUT"})

    @extend_schema(
        operation_id="games_record",
        tags=["records"],
        summary="Export the game's record",
        description="`domeng-record/1`: replaying it gives exactly the stored game's result.",
        responses={200: RecordDocument},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        rounds, tail = services.game_export_rounds(game, reader=actor_of(request).token)

        def value() -> dict[str, Any]:  # ``services.game_export``'s record
            record = rounds.record(game.players)
            record["rounds"][rounds.stored :] = tail
            return record

        head = {
            "format": RECORD_FORMAT,
            "players": list(game.players),
            "rules": rounds.engine.rules.to_dict(),
            "rounds": [],
        }
        pieces = _pieces(rounds.stored_json("record"), tail)
        body = None if pieces is None else _joined(head, pieces)
        return Response(value() if body is None else JSONText(body, value))

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
        data = validated(s.RecordReplaceSerializer, request)
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
        # The stored settled rounds and the round in play folded (issue 29): what a replay
        # of the exported record gives (tested), at a cost that does not grow with the game.
        rounds = settled.game_rounds(game, only="result")
        known = verification.round_verifications(game)  # issue 11

        def value() -> dict[str, Any]:
            return verification.annotate_result(rounds.result(), game)

        # Each stored round's kept text, its verification added, joined (issue 29): the
        # bytes the renderer writes for ``value()`` (tested), without parsing 600 rounds.
        body = None
        stored = rounds.stored_json("result")
        if stored is not None and all(len(p) > 2 and p.endswith(b"}") for p in stored):
            unverified = dumps(verification.round_verification({}, 0))
            said = [
                dumps(verification.round_verification(known, number))
                if number in known
                else unverified
                for number in range(1, len(stored) + 1)
            ]
            pieces: list[bytes] | None = None
            if all(text is not None for text in said):
                pieces = [
                    piece[:-1] + b',"verification":' + text + b"}"
                    for piece, text in zip(stored, said, strict=True)
                    if text is not None
                ]
            tail = [
                {**data, "verification": verification.round_verification(known, number)}
                for number, data in enumerate(rounds.tail_results, start=rounds.stored + 1)
            ]
            pieces = _pieces(pieces, tail)
            if pieces is not None:
                body = _joined({"format": RESULT_FORMAT, "rounds": []}, pieces)
        return Response(value() if body is None else JSONText(body, value))


def _pieces(stored: list[bytes] | None, tail: list[dict[str, Any]]) -> list[bytes] | None:
    """``stored`` (rounds' kept JSON) and each of ``tail`` as the renderer writes it, or
    ``None`` if either cannot be (the answer is then rendered whole)."""
    if stored is None:
        return None
    pieces = list(stored)
    for data in tail:
        piece = dumps(data)
        if piece is None:
            return None
        pieces.append(piece)
    return pieces


def _joined(head: dict[str, Any], pieces: list[bytes]) -> bytes | None:
    """``head``, whose last value is an empty list, as the renderer writes it with that list
    holding ``pieces`` (each a JSON value as the renderer writes it)."""
    text = dumps(head)
    if text is None or not text.endswith(b"[]}"):
        return None
    return text[:-2] + b",".join(pieces) + b"]}"
