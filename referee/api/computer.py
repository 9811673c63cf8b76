"""Computer seats over the API (R39): mark a seat, enter its hand, ask for its move.

One ``APIView`` per operation, as in ``referee.api.games``; each parses the
request, calls one service of ``referee.services.computer`` and renders its answer.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import conditional
from referee.api import answers
from referee.api.auth import actor_of
from referee.api.serializers import StrictSerializer, TilesAsSent, VersionedSerializer
from referee.api.writes import (
    EVENT_RESULT,
    IDEMPOTENCY_HEADER,
    IF_MATCH_HEADER,
    STATE,
    WRITE_PROBLEMS,
    GameMixin,
    idempotency_of,
    precondition_of,
    validated,
)
from referee.engine.strategies import STRATEGIES
from referee.inputs import WholeNumberField
from referee.services import computer

STRATEGY_HELP = (
    "`random` (any legal move), `greedy` (its heaviest playable tile) or `strong` "
    "(determinized Monte Carlo over the deals consistent with what the seat knows)."
)


class SeatComputerSerializer(StrictSerializer):
    strategy = serializers.ChoiceField(
        choices=sorted(STRATEGIES),
        allow_null=True,
        help_text=f"The seat's strategy, or null for a person again. {STRATEGY_HELP}",
    )


class ComputerHandSerializer(VersionedSerializer):
    tiles = TilesAsSent(help_text="The five tiles dealt to the computer's place (R31).")


class ComputerMoveSerializer(StrictSerializer):
    seat = WholeNumberField(
        required=False,
        min_value=0,
        max_value=4,
        help_text="Only at the game's first lead (R5): the computer seat the table says "
        "holds the double that leads.",
    )


class SeatComputerView(GameMixin, APIView):
    """Make a seat a computer seat, or a person's again (R39)."""

    organiser_only_methods = frozenset({"PUT"})

    def phone_refusal(self) -> Exception:
        return computer.phone_refusal()

    @extend_schema(
        operation_id="games_seats_computer_update",
        tags=["play"],
        summary="Make a seat a computer seat",
        description="The organiser sets the strategy of seat `seat` (0–4), or `null` for a "
        "person again, between rounds only (409 `round_in_play`). The seat's phones lose "
        "their tokens and no phone may join it (409 `seat_is_computer`): only the organiser "
        "enters its hand. When it is the computer's turn and its hand is entered, the "
        "referee chooses and enters its move at once; a person places the tile.",
        request=SeatComputerSerializer,
        responses={200: STATE, **WRITE_PROBLEMS},
        examples=[OpenApiExample("Strong", request_only=True, value={"strategy": "strong"})],
    )
    def put(self, request: Request, game_id: Any, seat: int) -> Response:
        game = self.get_game(request, game_id)
        data = validated(SeatComputerSerializer, request)
        state = computer.seat_strategy_set(
            game_id=game.pk, seat=_seat(seat), strategy=data["strategy"], actor=actor_of(request)
        )
        return Response(state, headers={"ETag": conditional.etag(state["version"])})


class ComputerHandView(GameMixin, APIView):
    """The organiser enters a computer seat's hand, privately (R31, R39)."""

    organiser_only_methods = frozenset({"POST"})

    def phone_refusal(self) -> Exception:
        return computer.phone_refusal()

    @extend_schema(
        operation_id="games_seats_computer_hand_create",
        tags=["play"],
        summary="Enter a computer seat's hand",
        description="The five tiles dealt to the computer's place this round, a declared "
        "hand (R31) that no other token can read before the round is settled (R18/R33). "
        "Organisers only "
        "(403 for a phone); 409 `seat_not_computer` for a person's seat. If the computer is "
        "to move, its move follows at once and the answer's state shows it.",
        request=ComputerHandSerializer,
        parameters=[IDEMPOTENCY_HEADER, IF_MATCH_HEADER],
        responses={201: EVENT_RESULT, **WRITE_PROBLEMS},
    )
    def post(self, request: Request, game_id: Any, seat: int) -> Response:
        game = self.get_game(request, game_id)
        data = validated(ComputerHandSerializer, request)
        render = answers.submitted
        return answers.respond(
            computer.computer_hand_declare(
                game_id=game.pk,
                seat=_seat(seat),
                tiles=data["tiles"],
                actor=actor_of(request),
                precondition=precondition_of(request, data),
                idempotency=idempotency_of(request),
            ),
            render,
        )


class ComputerMoveView(GameMixin, APIView):
    """Ask the computer for its move now (R39)."""

    @extend_schema(
        operation_id="games_computer_move_create",
        tags=["play"],
        summary="Play the computer's move now",
        description="After an undo or an amendment (which never make the computer move by "
        "themselves), or at the game's first lead when the table says a computer seat leads "
        "(`seat`; it leads without being asked only with the first listed double, R5). The "
        "organiser or the table's scorekeeper; 409 `no_computer_turn` when no computer seat "
        "with an entered hand is to move.",
        request=ComputerMoveSerializer,
        responses={200: STATE, **WRITE_PROBLEMS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        data = validated(ComputerMoveSerializer, request)
        state = computer.computer_turn_play(
            game_id=game.pk, actor=actor_of(request), lead_seat=data.get("seat")
        )
        return Response(
            state, status=status.HTTP_200_OK, headers={"ETag": conditional.etag(state["version"])}
        )


def _seat(seat: int) -> int:
    if not 0 <= seat <= 4:
        raise serializers.ValidationError({"seat": [gettext("A seat is 0 to 4 (R3).")]})
    return seat
