"""Reads that do not grow with the game (issue 29, R27): its settled rounds as stored.

A game stays open across sittings (R27), so it may reach hundreds of rounds. Each
settled round is kept (``referee.models.SettledRound``) as its record's round and its
result's round, written in the transaction that settled or judged it:

- ``keep(game, engine)``: the closed rounds of ``engine`` (settled or voided, R35) that
  have no row yet. The event that settles a round (``round_settled``), an import and
  every correction or ruling (``rounds_changed``, after ``store.forget_settled`` deleted
  the rows from the first round it changed) call it with the fold they judged.
- ``game_rounds(game)``: every round's record and result entry, from the stored rows
  (one query) and the fold of the live events after them only (one query): what the
  result (``GET …/result/``), the export (``GET …/record/``) and the organiser's round
  pages read. A game whose closed rounds have no rows yet (stored before this module,
  or a row deleted and not written again) gets them then, under the game's lock.

The rows always equal a replay of the events (``tests/referee/test_settled.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.db import transaction

from referee import folding, store
from referee.engine import Game as EngineGame
from referee.engine.records import RECORD_FORMAT, RESULT_FORMAT, export_record, result_of
from referee.models import Event, Game, SettledRound

__all__ = [
    "GameRounds",
    "differences",
    "game_rounds",
    "keep",
    "snapshot_before",
    "stored_result",
]


@dataclass(frozen=True)
class GameRounds:
    """A game's rounds, 1 to n: ``records`` (``domeng-record/1`` rounds), ``results``
    (``domeng-result/1`` rounds), ``stored`` (how many of them came from stored rows) and
    ``engine`` (the fold of the rounds after them, resumed at the standing after the last
    stored round: its rounds are the last ``len(records) - stored``)."""

    records: list[dict[str, Any]]
    results: list[dict[str, Any]]
    stored: int
    engine: EngineGame

    def record(self, players: Sequence[str]) -> dict[str, Any]:
        """The whole ``domeng-record/1`` record, seats ``players`` (seat 0 to 4)."""
        return {
            "format": RECORD_FORMAT,
            "players": list(players),
            "rules": self.engine.rules.to_dict(),
            "rounds": [dict(data) for data in self.records],
        }

    def result(self) -> dict[str, Any]:
        """The whole ``domeng-result/1`` result."""
        return {"format": RESULT_FORMAT, "rounds": list(self.results)}


class _Rounds:
    """``engine`` seen through some of its rounds only: what ``export_record`` and
    ``result_of`` read (``rounds``, ``rules``, ``standing``)."""

    def __init__(self, engine: EngineGame, rounds: list[Any]) -> None:
        self.rounds = rounds
        self.rules = engine.rules
        self.standing = engine.standing


def _entries(
    engine: EngineGame, rounds: list[Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    view = cast(EngineGame, _Rounds(engine, rounds))
    return export_record(view, ("",) * 5)["rounds"], result_of(view)["rounds"]


def keep(game: Game, engine: EngineGame) -> int:
    """Store the closed rounds of ``engine`` (a fold of ``game``'s live events, from its
    start or resumed) that have no row yet; how many. The caller holds the game's lock
    in the transaction that judged them. One ``INSERT`` (that skips a round stored),
    after a query of the numbers stored when more than two rounds are closed: the rows
    are worked out for the new rounds only."""
    closed = [game_round for game_round in engine.rounds if game_round.is_closed()]
    if not closed:
        return 0
    have: set[int] = set()
    if len(closed) > 2:  # else (a round just settled) the INSERT alone skips a stored one
        first = engine.rounds[0].round.number
        stored = SettledRound.objects.filter(game=game, number__gte=first)
        have = set(stored.values_list("number", flat=True))
    new = [r for r in closed if r.round.number not in have]
    if not new:
        return 0
    records, results = _entries(engine, new)
    rows = [
        SettledRound(game=game, number=result["number"], record=record, result=result)
        for record, result in zip(records, results, strict=True)
    ]
    if len(closed) > 2:  # the rows stored were read under the lock: none of these is there
        store.insert_rows(SettledRound, rows)  # a COPY: a correction of round 1 writes 600
    else:
        SettledRound.objects.bulk_create(rows, ignore_conflicts=True)
    return len(new)


def game_rounds(game: Game) -> GameRounds:
    """Every round of ``game``: the stored settled rounds, then the fold of the live
    events after them (the round in play, and any closed round not stored yet, which is
    stored then, under the game's lock). Two queries when every closed round is stored,
    whatever the game's length."""
    rounds = _read(game)
    if any(game_round.is_closed() for game_round in rounds.engine.rounds):
        with transaction.atomic():
            store.lock(game.pk)  # no correction in between: the rows stored are the replay's
            rounds = _read(game)
            if keep(game, rounds.engine):
                rounds = _read(game)
    return rounds


def stored_result(game: Game, number: int) -> dict[str, Any] | None:
    """Round ``number``'s ``domeng-result/1`` entry as stored when it was settled, or
    ``None`` when it has no row (in play, or not stored yet: ``game_rounds`` then). One
    query: a round's page reads its own round, not the game's."""
    rows = SettledRound.objects.filter(game=game, number=number).values_list("result", flat=True)
    return next(iter(rows), None)


def snapshot_before(game: Game, number: int) -> dict[str, Any] | None:
    """Where a fold of ``game``'s rounds from round ``number`` on resumes (R27, issue 29):
    ``{"round": number, "rounds_played": number - 1, "standing": …}``, the standing after
    round ``number - 1`` as its stored row says; ``None`` for round 1 or when that row is
    not stored (then fold from the start). One query (none for round 1). The caller holds
    the game's lock, and changes nothing before round ``number``."""
    if number <= 1:
        return None
    result = stored_result(game, number - 1)
    if result is None:
        return None
    return {"round": number, "rounds_played": number - 1, "standing": result["after"]}


def _read(game: Game) -> GameRounds:
    rows = store.settled_rows(game)
    records: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for record, result in rows:
        if result["number"] != len(results) + 1:
            break  # the rounds from a gap on are folded (and their rows written again)
        records.append(record)
        results.append(result)
    stored = len(results)
    snapshot = None
    if stored:
        snapshot = {"round": stored + 1, "rounds_played": stored, "standing": results[-1]["after"]}
    events = (
        Event.objects.filter(game=game, revoked_by__isnull=True, round_number__gt=stored)
        .order_by("position")
        .values_list("kind", "payload")
    )
    engine = folding.replay(store.rules_of(game), list(events), snapshot=snapshot)
    tail_records, tail_results = _entries(engine, list(engine.rounds))
    return GameRounds(records + tail_records, results + tail_results, stored, engine)


def differences(game: Game) -> list[int]:
    """The rounds whose stored row does not say what a replay of ``game``'s live events from
    its start says, or that are closed in the replay and have no row: ``[]`` when every row
    is right (the check of the tests and the bench; it replays the whole game)."""
    events = game.events.filter(revoked_by__isnull=True).order_by("position")
    engine = folding.replay(store.rules_of(game), list(events.values_list("kind", "payload")))
    records, results = _entries(engine, list(engine.rounds))
    closed = {r.round.number for r in engine.rounds if r.is_closed()}
    rows = {
        number: (record, result)
        for number, record, result in SettledRound.objects.filter(game=game).values_list(
            "number", "record", "result"
        )
    }
    wrong = set()
    for number in closed | set(rows):
        row = rows.get(number)
        if number not in closed or row is None:
            wrong.add(number)
        elif row != (records[number - 1], results[number - 1]):
            wrong.add(number)
    return sorted(wrong)
