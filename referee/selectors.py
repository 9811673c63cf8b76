"""Reads of stored games: the current round's events and the state a table sees.

Reading a game costs a constant number of queries however long it is: the
game row caches a snapshot of the standing at the start of its last round
(``referee.store.GameState.snapshot``) and only that round's events are folded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee import folding, settled, store
from referee.engine import Game as EngineGame
from referee.engine import Tile
from referee.engine.outcome import RoundOutcome
from referee.engine.tiles import SEATS
from referee.models import Event, Game

LAST_EVENTS = 12


CurrentRound = store.CurrentRound
load_current_round = store.current_round
"""The live events of the game's last round and the seat names (``referee.store``)."""


def game_state_for(
    game: Game,
    *,
    viewer: int | None = None,
    viewer_label: str | None = None,
    organiser: bool = False,
) -> dict[str, Any]:
    """The state of a stored game as ``game_state`` gives it (three queries)."""
    current = store.current_round(game)
    engine, effects = current.fold(store.rules_of(game))
    return game_state(
        game,
        engine,
        current.events,
        effects,
        viewer=viewer,
        viewer_label=viewer_label,
        players=current.players,
        organiser=organiser,
    )


def game_state(
    game: Game,
    engine: EngineGame,
    events: Sequence[Any],
    effects: Sequence[folding.Effects],
    *,
    viewer: int | None,
    players: list[str],
    viewer_label: str | None = None,
    organiser: bool = False,
) -> dict[str, Any]:
    """What the table sees now.

    ``viewer`` is the seat of the phone asking or ``None``; ``viewer_label`` the
    phone's ``TableToken.actor``; ``organiser`` whether the game's organiser asks. While
    the round is in play a declared hand is shown only to the phone that declared it (its
    seat and its label, R31): not to a phone that claimed the seat later, nor to the
    organiser. A blocked round still waiting for reveals (R18) shows them to the
    organiser alone: any other viewer — another seat's phone, the scorekeeper, the room —
    could otherwise tailor a ``pips`` reveal to them (R33, R31). Every hand is shown once
    the round is settled (every reveal in, or over by CAPPU). Seats are 0–4, tiles
    ``a-b``, stones whole numbers. ``turn`` is the seat that must move, or
    ``None`` before the game's first lead (the holder of the highest
    first-lead double leads, R5) and while a blocked round waits for reveals.
    """
    standing = engine.standing()
    game_round = engine.rounds[-1] if engine.rounds else None
    rnd = game_round.round if game_round else None
    # R18/R33: a blocked round waiting for reveals is over but not settled.
    hands_shown = rnd is not None and (rnd.is_settled() or (organiser and rnd.is_over()))
    declared_by = {
        e.payload.get("seat"): e.entered_by
        for e in events
        if e.kind == Event.Kind.HAND and e.revoked_by_id is None
    }
    if viewer is not None and (viewer_label is None or declared_by.get(viewer) != viewer_label):
        viewer = None  # not the phone that declared this seat's hand: it reads no hand
    if game_round is None or rnd is None or game_round.is_closed():
        status = "awaiting_lead"
        turn = engine.expected_leader()
    elif rnd.is_waiting_for_reveals():
        status, turn = "awaiting_reveals", None
    else:
        status = "in_play" if rnd.moves else "awaiting_lead"
        turn = rnd.turn
    cached = store.state_of(game)
    computers = cached.computer_seats  # R39, cached on the row
    seats = []
    for seat in range(SEATS):
        hand = rnd.hands.get(seat) if rnd else None
        seats.append(
            {
                "seat": seat,
                "name": players[seat] if seat < len(players) else "",
                "stones": standing.stones[seat],
                "is_camat": standing.camat == seat,
                "tiles_played": [str(t) for t in rnd.played_by[seat]] if rnd else [],
                "tiles_left": rnd.tiles_left(seat) if rnd else 5,
                "passed_on": sorted(rnd.passed_values(seat)) if rnd else [],
                "has_declared": hand is not None,
                "hand": sorted(str(t) for t in hand)
                if hand is not None and (viewer == seat or hands_shown)
                else None,
                "computer": computers.get(str(seat)),
            }
        )
    return {
        "id": str(game.pk),
        "version": game.version,
        "status": game.status,
        "session": cached.session,
        "table": standing.table,
        "camat": standing.camat,
        "turn": turn,
        "round": _with_verification(
            _with_finished(_round_state(engine, rnd, status, viewer), engine, game), game
        ),
        "seats": seats,
        "last_events": _last_events(events, effects),
    }


def _last_events(events: Sequence[Any], effects: Sequence[folding.Effects]) -> list[dict[str, Any]]:
    """The last ``LAST_EVENTS`` events with their effects (one effect per event), oldest
    first; only those effects are read (a round cache makes each when it is read)."""
    if len(events) != len(effects):
        raise ValueError("one effect for each event")
    start = max(0, len(events) - LAST_EVENTS)
    return [_event_summary(events[i], effects[i]) for i in range(start, len(events))]


UNVERIFIED: dict[str, Any] = {
    "status": "unverified",
    "seat": None,
    "reason": None,
    "resolution": None,
    "note": None,
    "updated_at": None,
}
"""A round nobody has confirmed or disputed yet (``referee.services.verification``)."""


def cached_verification(game: Game, number: int) -> dict[str, Any]:
    """Round ``number``'s verification from the game row's cache (no query), as
    ``referee.services.verification`` keeps it for the rounds the state can show."""
    entry = store.state_of(game).verification.get(str(number))
    return dict(entry) if entry else dict(UNVERIFIED)


def _with_verification(round_state: dict[str, Any], game: Game) -> dict[str, Any]:
    """The round's ``verification`` (``null`` while it is not settled) and that of the
    ``previous`` round, settled or voided (issue 11)."""
    round_state["verification"] = None
    previous = round_state.get("previous")
    if previous is not None:
        previous["verification"] = cached_verification(game, previous["number"])
    return round_state


def _with_finished(round_state: dict[str, Any], engine: EngineGame, game: Game) -> dict[str, Any]:
    """A round not led yet keeps the finished round before it on show (issue 28, R27):
    a hand declared for the next round (R31) begins that round in the core, so the round
    state alone would forget the one the table is still checking. The finished round
    comes from the fold when it holds it, else from its own events, folded from the
    standing stored before it (``settled.snapshot_before``): at most two queries, and one
    round begun, however long the game."""
    number = round_state["number"]
    if round_state["status"] != "awaiting_lead" or round_state["previous"] is not None:
        return round_state
    if number <= 1 or not engine.rounds or engine.rounds[-1].round.number != number:
        return round_state
    if len(engine.rounds) >= 2:
        finished = engine.rounds[-2]
    else:
        start = number - 1
        snapshot = settled.snapshot_before(game, start)
        since = start if snapshot is not None else 1
        events = (
            Event.objects.filter(
                game=game, revoked_by__isnull=True, round_number__gte=since, round_number__lt=number
            )
            .order_by("position")
            .values_list("kind", "payload")
        )
        folded = folding.replay(store.rules_of(game), list(events), snapshot=snapshot)
        if not folded.rounds:
            return round_state
        finished = folded.rounds[-1]
    if finished.voided:
        round_state["previous"] = _void_banner(finished)
    else:
        round_state["previous"] = _outcome(finished.round.outcome, finished)
    return round_state


def _round_state(engine: EngineGame, rnd: Any, status: str, viewer: int | None) -> dict[str, Any]:
    if rnd is None or engine.rounds[-1].is_closed():
        number = (rnd.number + 1) if rnd is not None else engine.rounds_before + 1
        upcoming: dict[str, Any] = {
            "number": number,
            "status": "awaiting_lead",
            "leader": engine.expected_leader(),
            "chain": [],
            "ends": None,
            "playable": {},
            "awaiting_reveal": [],
            "previous": _outcome(rnd.outcome, engine.rounds[-1]) if rnd is not None else None,
        }
        if rnd is not None and engine.rounds[-1].voided:
            upcoming["previous"] = _void_banner(engine.rounds[-1])
        return upcoming
    # Only the seat to play, reading its own declared hand, gets the narrowed list: for
    # any other viewer, excluding another seat's declared tiles would give them away (R31).
    hidden = viewer is None or viewer != rnd.turn or viewer not in rnd.hands
    playable = rnd.playable_tiles(hidden=hidden)
    return {
        "number": rnd.number,
        "status": status,
        "leader": rnd.leader if rnd.leader is not None else rnd.expected_leader,
        "chain": [f"{a}-{b}" for a, b in rnd.chain()],
        "ends": list(rnd.ends) if rnd.ends is not None else None,
        "playable": {str(value): [str(t) for t in tiles] for value, tiles in playable.items()},
        "awaiting_reveal": rnd.seats_awaiting_reveal(),
        "previous": None,
        "outcome": _outcome(rnd.outcome, engine.rounds[-1]) if rnd.outcome else None,
    }


def _outcome(outcome: RoundOutcome | None, game_round: Any) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {
        "number": game_round.round.number,
        "ending": outcome.ending.value,
        "finish": outcome.finish.value if outcome.finish else None,
        "named": list(outcome.named),
        "first_cappu": outcome.first_cappu,
        "manguno": outcome.manguno,
        "mattikkeng": list(outcome.mattikkeng),
        "cucuq": outcome.cucuq,
        "winner": outcome.winner,
        "remaining_pips": list(outcome.remaining_pips) if outcome.remaining_pips else None,
        "transfers": [t.to_dict() for t in game_round.transfers],
        "camat_elected": game_round.camat_elected,
        # The chain as the round ended: the table checks it until the next lead (issue 28).
        "chain": [f"{a}-{b}" for a, b in game_round.round.chain()],
    }


def _void_banner(game_round: Any) -> dict[str, Any]:
    """A voided round as the table's banner shows it: nothing named, why (R35), and its
    chain as it stood."""
    return {
        "number": game_round.round.number,
        "ending": None,
        "finish": None,
        "named": [],
        "first_cappu": None,
        "manguno": None,
        "mattikkeng": [],
        "cucuq": None,
        "winner": None,
        "remaining_pips": None,
        "transfers": [t.to_dict() for t in game_round.transfers],
        "camat_elected": None,
        "void": {"reason": game_round.void_reason},
        # The chain as it stood when voided: the table checks what it voided (issue 28).
        "chain": [f"{a}-{b}" for a, b in game_round.laid_chain()],
    }


def _event_summary(event: Any, effect: folding.Effects) -> dict[str, Any]:
    payload = event.payload
    data: dict[str, Any] = {
        "position": event.position,
        "kind": event.kind,
        "round": event.round_number,
        "seat": payload.get("seat"),
        "named": effect.named,
        "transfers": effect.transfers,
        "entered_by": event.entered_by,
    }
    if event.kind == "move":
        if payload.get("pass"):
            data["pass"] = True
        else:
            data["tile"] = str(Tile.parse(payload["tile"]))
            if payload.get("on") is not None:
                data["on"] = payload["on"]
    elif event.kind == "reveal":
        data.update({k: payload[k] for k in ("tiles", "pips") if k in payload})
    elif event.kind != "hand":  # a ruling (R35, R36, R38): as the organiser entered it
        data["ruling"] = {k: v for k, v in payload.items() if k != "seat"}
    return data
