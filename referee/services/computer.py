"""Computer seats in a live game (R39): a table one player short still plays.

The organiser marks a seat as played by the computer, with a strategy of
``referee.engine.strategies``, when the game is created or between rounds
(``seat_strategy_set``). Each round the organiser enters the five tiles dealt
to that place, privately (``computer_hand_declare``: a declared hand, R31;
no phone may join a computer seat, so no other token reads them before the
round is over). Whenever that seat is to move and its hand is known, the
referee chooses its move with the seat's strategy and enters it as that
seat's move through ``events.event_submit`` — after the event before it,
in its own transaction, with a version precondition and an idempotency key,
so a move is entered once however many requests look at the table — and a
person at the table places the tile. The rules judge it like any other move.

The choice is reproducible: the seed of a decision is the game's id, the
round and the move's index (``decision_rng``), so the same position always
gets the same move. Undo and amendments do not make the computer move again
by themselves (an undone computer move would come straight back);
``computer_turn_play`` asks for its move (e.g. after a correction, or at the
game's first lead, which R5 gives to the holder of a double the table calls).

Whether a game has computer seats is cached on the game row
(``Game.state["computer_seats"]``, written here under the game's lock with
``Seat.computer``), so a game without one pays no query for this.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from referee import store
from referee.engine import RefereeError
from referee.engine.game import Game as EngineGame
from referee.engine.moves import Move
from referee.engine.strategies import STRATEGIES, choose, decision_rng, observe
from referee.exceptions import (
    GameClosed,
    NoComputerTurn,
    RoundInPlay,
    SeatNotAllowed,
    SeatNotComputer,
    ServiceError,
    VersionMismatch,
)
from referee.idempotency import Idempotency, Replay
from referee.models import Game, Seat, TableToken
from referee.selectors import game_state_for
from referee.services import events, guard
from referee.services.events import Submitted
from referee.services.guard import Actor, Precondition
from referee.store import rules_of, state_of

logger = logging.getLogger(__name__)

# A round has at most 25 plays and a pass between each: a bound on one chain of computer moves.
MAX_MOVES_IN_A_ROW = 60


@dataclass(frozen=True)
class ComputerActor(Actor):
    """The referee entering computer seat ``computer_seat``'s move (R39).

    Its answer's state is no seat's view (``seat`` is ``None``): it shows no hand.
    """

    computer_seat: int = 0
    strategy: str = ""

    @property
    def label(self) -> str:
        return f"computer ({self.strategy}) at seat {self.computer_seat}"


@dataclass(frozen=True)
class OrganiserForComputer(Actor):
    """An organiser declaring computer seat ``computer_seat``'s hand (R31, R39), the only
    hand they may declare; the answer's state shows no hand."""

    computer_seat: int = 0

    @property
    def label(self) -> str:
        return f"{super().label} for the computer at seat {self.computer_seat}"

    def may_declare(self, seat: object) -> bool:
        return seat == self.computer_seat


def computer_seats(game: Game) -> dict[int, str]:
    """The game's computer seats (0–4) and their strategies, from the game row (no query)."""
    return {int(seat): name for seat, name in state_of(game).computer_seats.items()}


# -- writes ------------------------------------------------------------------------------


@transaction.atomic
def computer_seats_setup(*, game: Game, strategies: dict[int, str]) -> None:
    """Mark seats of a game just created as computer seats (R39); ``strategies``: seat → name.

    Raises ``ValueError`` for a seat that is not 0–4 or an unknown strategy (the API's
    serializer refuses them first).
    """
    for seat, name in strategies.items():
        if seat not in range(5) or name not in STRATEGIES:
            raise ValueError(f"seat {seat} cannot be played by {name!r}")
        Seat.objects.filter(game=game, number=seat).update(computer=name)
    seats = {str(s): n for s, n in sorted(strategies.items())}
    store.save_state(game, store.replace(state_of(game), computer_seats=seats))


def seat_strategy_set(
    *, game_id: Any, seat: int, strategy: str | None, actor: Actor
) -> dict[str, Any]:
    """Make ``seat`` (0–4) a computer seat playing ``strategy``, or a person's again (``None``).

    Only between rounds (no move of a round in play, no blocked round waiting for its
    reveals): else ``round_in_play`` (409). The seat's phones lose their tokens (a phone
    must not read the computer's hand). Organisers only (``seat_not_allowed``). Returns
    the state; the computer moves at once if it is its turn. ``ValueError`` for a seat
    that is not 0–4 or an unknown strategy.
    """
    if actor.token is not None:
        raise phone_refusal()
    if seat not in range(5) or (strategy is not None and strategy not in STRATEGIES):
        raise ValueError(f"seat {seat} cannot be played by {strategy!r}")  # the API refuses first
    with transaction.atomic():
        game = guard.lock(game_id, actor)  # one writer at a time
        if game.status != Game.Status.OPEN:
            raise GameClosed()
        engine = _fold(game)
        current = engine.current
        if current is not None and (current.round.moves or current.round.is_over()):
            raise RoundInPlay()
        Seat.objects.filter(game=game, number=seat).update(computer=strategy or "")
        seats = {str(s): n for s, n in computer_seats(game).items() if s != seat}
        if strategy is not None:
            seats[str(seat)] = strategy
            # A phone must not read the computer's hand (R39): its seat's phones leave.
            store.revoke_tokens(
                game, list(TableToken.objects.filter(game=game, seat=seat, revoked_at__isnull=True))
            )
        store.commit(
            game, store.replace(state_of(game), computer_seats=dict(sorted(seats.items())))
        )
    computer_turns_play(game_id=game_id)
    return game_state_for(Game.objects.get(pk=game_id), viewer=None)


def computer_hand_declare(
    *,
    game_id: Any,
    seat: int,
    tiles: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> Submitted | Replay[Submitted]:
    """The organiser enters the five tiles dealt to computer seat ``seat`` (R31, R39).

    As ``events.event_submit`` of a hand (its result, its errors: the rules core's, and
    ``version_mismatch`` …); ``seat_not_computer`` (409) for a person's seat and
    ``seat_not_allowed`` (403) for a phone. The answer's state shows no hand; the
    computer moves at once if it is its turn.
    """
    if actor.token is not None:
        raise phone_refusal()
    game = Game.objects.get(pk=game_id)
    if seat not in computer_seats(game):
        raise SeatNotComputer()
    return events.event_submit(
        game_id=game_id,
        kind="hand",
        payload={"seat": seat, "tiles": tiles},
        actor=OrganiserForComputer(user=actor.user, computer_seat=seat),
        precondition=precondition,
        idempotency=idempotency,
    )


def computer_turn_play(
    *, game_id: Any, actor: Actor, lead_seat: int | None = None
) -> dict[str, Any]:
    """Play the computer's move now (after an undo, or when the table calls its lead).

    ``lead_seat``: at the game's first lead (R5), the computer seat the table says
    holds the double that leads. Organiser or the table's scorekeeper
    (``seat_not_allowed``); ``no_computer_turn`` (409) when no computer seat with a
    declared hand is to move. Returns the state.
    """
    actor.check_table_wide()
    if not computer_turns_play(game_id=game_id, lead_seat=lead_seat):
        raise NoComputerTurn()
    return game_state_for(
        Game.objects.get(pk=game_id), viewer=actor.seat, organiser=actor.is_organiser
    )


def computer_turns_play(*, game_id: Any, lead_seat: int | None = None) -> int:
    """Enter every computer move now due, one transaction each; returns how many.

    Each goes through ``events.event_submit`` with the version it was chosen at
    (``If-Match``) and a key naming that version: a request that lost the race to
    another sees the version move on, looks again and finds nothing to do.
    """
    played = 0
    for _ in range(MAX_MOVES_IN_A_ROW):
        game = Game.objects.get(pk=game_id)
        due = _due_move(game, lead_seat=lead_seat if played == 0 else None)
        if due is None:
            return played
        move, strategy = due
        payload = move.to_dict()
        try:
            events.event_submit(
                game_id=game_id,
                kind="move",
                payload=payload,
                actor=ComputerActor(computer_seat=move.seat, strategy=strategy),
                precondition=Precondition(game.version),
                idempotency=Idempotency(
                    f"computer:{game.version}",
                    Idempotency.fingerprint_of("computer", str(game_id), payload),
                ),
            )
        except VersionMismatch:
            continue  # another request wrote first: look at the table again
        played += 1
    return played


def after_event(game: Game, actor: Actor) -> bool:
    """``events.AFTER_EVENT_HOOKS``: after a person's event, the computer seats due move."""
    if isinstance(actor, ComputerActor) or not computer_seats(game):
        return False  # a computer's own move: the loop that entered it goes on
    try:
        return computer_turns_play(game_id=game.pk) > 0
    except (RefereeError, ServiceError) as error:
        # The person's event stands; the refusal is logged with the game (RefusedEvent) and
        # the table enters that seat's move, or asks again (computer_turn_play).
        logger.warning("computer move refused in game %s: %s", game.pk, error)
        return True


# -- reads -------------------------------------------------------------------------------


def _fold(game: Game) -> EngineGame:
    current = store.current_round(game)
    engine, _ = current.fold(rules_of(game))
    return engine


def _due_move(game: Game, *, lead_seat: int | None) -> tuple[Move, str] | None:
    """The move of the computer seat to move now and its strategy, or ``None``.

    A computer seat moves when it is its turn and its hand of the round is
    declared. At the game's first lead (no turn yet, R5) it leads without being
    asked only when it holds the first listed first-lead double; another double
    leads when the table names the seat (``lead_seat``).
    """
    if game.status != Game.Status.OPEN:
        return None
    seats = computer_seats(game)
    if not seats:
        return None
    engine = _fold(game)
    current = engine.current
    if current is None:
        return None  # between rounds: no hand of the next round is declared yet
    rnd = current.round
    if rnd.is_over():
        return None
    seat = rnd.turn
    if seat is None:  # the game's first lead (R5)
        first = engine.rules.first_lead_doubles[0]
        holders = [s for s in seats if s in rnd.hands and first in rnd.hands[s]]
        seat = holders[0] if holders else lead_seat
    if seat is None or seat not in seats or seat not in rnd.hands:
        return None
    view = observe(engine, seat, rnd.hands[seat])
    if not view.legal_moves():
        return None  # it holds no first-lead double: another seat leads (R5)
    move = choose(seats[seat], view, decision_rng(game.pk, rnd.number, len(rnd.moves)))
    return move, seats[seat]


def phone_refusal() -> SeatNotAllowed:
    """What a phone gets for setting up a computer seat or entering its hand: 403
    ``seat_not_allowed`` (R39: the organiser's alone)."""
    return SeatNotAllowed(
        gettext("Only the organiser may set up or enter a computer seat's hand (R39).")
    )


events.AFTER_EVENT_HOOKS.append(after_event)
