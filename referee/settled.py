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
from functools import cached_property
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


class GameRounds:
    """A game's rounds, 1 to n: ``records`` (``domeng-record/1`` rounds), ``results``
    (``domeng-result/1`` rounds), ``stored`` (how many of them came from stored rows) and
    ``engine`` (the fold of the rounds after them, resumed at the standing after the last
    stored round: its rounds are the last ``len(records) - stored``). ``tail_records`` and
    ``tail_results`` are those folded rounds' entries; the stored rounds are kept as their
    rows' text (``store.SettledText``), parsed only when ``records`` or ``results`` is
    read, and given as an answer's bytes by ``stored_json`` (issue 29)."""

    def __init__(
        self,
        rows: list[store.SettledText],
        tail_records: list[dict[str, Any]],
        tail_results: list[dict[str, Any]],
        engine: EngineGame,
    ) -> None:
        self.rows = rows
        self.tail_records = tail_records
        self.tail_results = tail_results
        self.stored = len(rows)
        self.engine = engine

    @cached_property
    def records(self) -> list[dict[str, Any]]:
        stored = [store.settled_loads(_read_text(row.record)) for row in self.rows]
        return stored + self.tail_records

    @cached_property
    def results(self) -> list[dict[str, Any]]:
        stored = [store.settled_loads(_read_text(row.result)) for row in self.rows]
        return stored + self.tail_results

    def stored_json(self, field: str) -> list[bytes] | None:
        """Each stored round's ``record`` or ``result`` (``field``) as the bytes the API's
        renderer writes for it: a compact row's text as it is, any other row's parsed and
        written again; ``None`` if one cannot be (an integer beyond 64 bits: the answer
        is then rendered whole)."""
        pieces: list[bytes] = []
        for row in self.rows:
            text = _read_text(getattr(row, field))
            if row.compact:
                pieces.append(text.encode())
                continue
            piece = store.compact_json(store.settled_loads(text))
            if piece is None:
                return None
            pieces.append(piece)
        return pieces

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


def _read_text(text: str | None) -> str:
    if text is None:
        raise ValueError("a column game_rounds was told not to read")
    return text


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
        (result["number"], record, result) for record, result in zip(records, results, strict=True)
    ]
    # More than two closed: the rows stored were read under the lock, none of these is
    # there (a COPY: a correction of round 1 writes 600); else the INSERT skips one stored.
    store.settled_insert(game, rows, skip_stored=len(closed) <= 2)
    return len(new)


def game_rounds(game: Game, only: str | None = None) -> GameRounds:
    """Every round of ``game``: the stored settled rounds, then the fold of the live
    events after them (the round in play, and any closed round not stored yet, which is
    stored then, under the game's lock). Two queries when every closed round is stored,
    whatever the game's length. ``only``: ``"record"`` or ``"result"``, the stored rounds'
    one column read (``records`` or ``results`` and ``stored_json`` of it alone)."""
    rounds = _read(game, only)
    if any(game_round.is_closed() for game_round in rounds.engine.rounds):
        with transaction.atomic():
            store.lock(game.pk)  # no correction in between: the rows stored are the replay's
            rounds = _read(game, only)
            if keep(game, rounds.engine):
                rounds = _read(game, only)
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


def _read(game: Game, only: str | None = None) -> GameRounds:
    rows = store.settled_texts(game, only)
    for index, row in enumerate(rows):
        if row.number != index + 1:
            rows = rows[:index]  # the rounds from a gap on are folded (their rows written again)
            break
    stored = len(rows)
    snapshot = None
    if stored:
        last = rows[-1]
        if last.after is not None:
            after = store.settled_loads(last.after)
        else:
            after = store.settled_loads(_read_text(last.result))["after"]
        snapshot = {"round": stored + 1, "rounds_played": stored, "standing": after}
    events = (
        Event.objects.filter(game=game, revoked_by__isnull=True, round_number__gt=stored)
        .order_by("position")
        .values_list("kind", "payload")
    )
    engine = folding.replay(store.rules_of(game), list(events), snapshot=snapshot)
    tail_records, tail_results = _entries(engine, list(engine.rounds))
    return GameRounds(rows, tail_records, tail_results, engine)


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
