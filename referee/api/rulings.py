"""Corrections of any round and the organiser's rulings over HTTP (R35–R38): a batch of
corrections, a void (R35), an adjustment (R36), a substitute and a re-seating (R38)
(``referee.services.corrections``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee.api import answers
from referee.api import serializers as s
from referee.api.auth import actor_of
from referee.api.writes import (
    CORRECTION_RESULT,
    IDEMPOTENCY_HEADER,
    IF_MATCH_HEADER,
    ORGANISER_ONLY,
    RULING_PROBLEMS,
    WRITE_PROBLEMS,
    GameMixin,
    idempotency_of,
    precondition_of,
    validated,
)
from referee.services import corrections


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
        "(`correction: null`, same version). A phone may only amend, and only as "
        "`PUT …/events/{position}/` lets it (an event of the round in play, 409 "
        "`event_not_amendable` else; a declared hand by the phone that declared it, R31): "
        "an insertion, a removal or a ruling's amendment from a phone is 403 "
        "`organiser_only`. Logged in the audit trail (`GET …/events/`) with its author, "
        "time and reason.",
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
        data = validated(s.CorrectionRequestSerializer, request)
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
        render = answers.corrected
        return answers.respond(
            corrections.events_correct(
                game_id=game.pk,
                changes=changes,
                actor=actor_of(request),
                reason=data.get("reason", ""),
                precondition=precondition_of(request, data),
                idempotency=idempotency_of(request),
            ),
            render,
        )


class RoundVoidView(GameMixin, APIView):
    """Void a round (R35)."""

    organiser_only_methods = frozenset({"POST"})

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
        data = validated(s.VoidSerializer, request)
        render = answers.corrected
        return answers.respond(
            corrections.round_void(
                game_id=game.pk,
                round=number,
                reason=data["reason"],
                actor=actor_of(request),
                precondition=precondition_of(request, data),
                idempotency=idempotency_of(request),
            ),
            render,
        )


class RoundAdjustmentView(GameMixin, APIView):
    """Move stones by a ruling after a round (R36)."""

    organiser_only_methods = frozenset({"POST"})

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
        data = validated(s.AdjustmentSerializer, request)
        render = answers.corrected
        return answers.respond(
            corrections.round_adjust(
                game_id=game.pk,
                round=number,
                source=data["from"],
                to=data["to"],
                stones=data["stones"],
                reason=data["reason"],
                actor=actor_of(request),
                precondition=precondition_of(request, data),
                idempotency=idempotency_of(request),
            ),
            render,
        )


class SeatSubstituteView(GameMixin, APIView):
    """Someone else takes a seat from a round on (R38)."""

    organiser_only_methods = frozenset({"POST"})

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
        data = validated(s.SubstituteSerializer, request)
        render = answers.corrected
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
                precondition=precondition_of(request, data),
                idempotency=idempotency_of(request),
            ),
            render,
        )


class SeatView(GameMixin, APIView):
    """Re-seat: who sat a seat from the game's start (R38)."""

    organiser_only_methods = frozenset({"PUT"})

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
        data = validated(s.SeatOccupantSerializer, request)
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
