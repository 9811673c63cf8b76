"""A whole game: rounds in order, the stones they move and the CAMAT (R6, R22–R27).

``Game`` folds a game's events — declared hands, moves, reveals — into its
rounds, its ``Ledger`` of stones and its CAMAT. It carries both across
sittings: a session is just a pause in the same fold (R27).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# A module import, not names: scoring.core.settlement itself imports from this package.
import scoring.core.settlement as settlement
from referee.engine.errors import (
    RecordInvalid,
    RefereeError,
    RevealInvalid,
    RevealMissing,
    gettext_noop,
)
from referee.engine.moves import Move
from referee.engine.round import MoveReport, Round
from referee.engine.rules import DEFAULT_RULES, RuleSet
from scoring.core.ledger import Ledger, Transfer


@dataclass(frozen=True, slots=True)
class Standing:
    """The state between rounds: stones on the table, held by seats 0–4, the CAMAT
    and the seat that leads next (``None`` while it is not known)."""

    table: int
    stones: tuple[int, ...]
    camat: int | None
    next_leader: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "stones": list(self.stones),
            "camat": self.camat,
            "next_leader": self.next_leader,
        }


@dataclass(frozen=True, slots=True)
class GameMoveReport:
    """A move's ``MoveReport`` with the stones it moved and, if it settled the
    round, the end-of-round transfers and any CAMAT elected."""

    report: MoveReport
    transfers: tuple[Transfer, ...]
    settled: bool
    camat_elected: int | None


class GameRound:
    """A round of the game with its stone transfers and the state after it."""

    def __init__(self, round: Round) -> None:
        self.round = round
        self.transfers: list[Transfer] = []
        self.camat_elected: int | None = None
        self.after: Standing | None = None  # set once the round is settled


class Game:
    """A game under one rule set (R40): rounds, stones and the CAMAT.

    ``rounds`` holds every round begun, the last possibly unfinished.
    ``ledger`` holds the stones now; ``camat`` is the seat in office or
    ``None``; ``next_leader`` the seat that leads the next round (``None``
    before the first round, R5).
    """

    def __init__(self, rules: RuleSet = DEFAULT_RULES) -> None:
        self.rules = rules
        self.ledger = Ledger.starting(rules.starting_stones)
        self.camat: int | None = None
        self.next_leader: int | None = None
        self.rounds: list[GameRound] = []
        self.rounds_before = 0  # rounds settled before ``rounds`` begins (see ``resume``)

    @classmethod
    def resume(cls, rules: RuleSet, standing: Standing, *, rounds_played: int) -> Game:
        """A game continued after ``rounds_played`` settled rounds left ``standing`` (R27).

        Folding only the rounds after a cached standing gives the same state
        as folding the whole game, at a cost that does not grow with it.
        """
        game = cls(rules)
        game.ledger = Ledger(
            total=rules.starting_stones, table=standing.table, stones=list(standing.stones)
        )
        game.camat = standing.camat
        game.next_leader = standing.next_leader
        game.rounds_before = rounds_played
        return game

    # -- questions -------------------------------------------------------------------

    @property
    def current(self) -> GameRound | None:
        """The last round if it is not settled yet, else ``None``."""
        if self.rounds and not self.rounds[-1].round.is_settled():
            return self.rounds[-1]
        return None

    def standing(self) -> Standing:
        """The stones, the CAMAT and who moves next, as of now."""
        current = self.current
        if current is None:
            leader = self.next_leader
        elif current.round.is_over():
            leader = None  # blocked, waiting for the reveals
        else:
            leader = current.round.turn
        return Standing(self.ledger.table, tuple(self.ledger.stones), self.camat, leader)

    def expected_leader(self) -> int | None:
        """Who must lead a round begun now: the CAMAT, else the last winner (R6)."""
        return self.camat if self.camat is not None else self.next_leader

    # -- events ----------------------------------------------------------------------

    def begin_round(self) -> GameRound:
        """Start the next round (the previous one must be settled).

        Raises ``reveal_missing`` (R18, at the blocked round, ``move`` None) while
        a blocked round waits for its reveals — as a replay of a record with a
        round after it does — and ``record_invalid`` while the last round is
        still in play.
        """
        last = self.rounds[-1].round if self.rounds else None
        number = self.rounds_before + len(self.rounds) + 1
        if last is not None and not last.is_settled():
            if last.is_over():
                raise RevealMissing(
                    gettext_noop("round %(previous)s is blocked and still waits for reveals"),
                    previous=last.number,
                ).at(round=last.number)
            raise RecordInvalid(
                gettext_noop("round %(previous)s is still in play"), previous=last.number
            ).at(round=number)
        game_round = GameRound(
            Round(number=number, rules=self.rules, expected_leader=self.expected_leader())
        )
        self.rounds.append(game_round)
        return game_round

    def push(
        self, move: Move | Mapping[str, Any], *, within: GameRound | None = None
    ) -> GameMoveReport:
        """Apply a move to the round in play, starting a new round if the last is settled.

        With ``within`` (a record's round) the move belongs to that round and
        never starts another: after its end it is ``round_over`` (R30). Without
        it, a move after a round's end is the next round's lead (R30), so while
        a blocked round waits for its reveals it is ``reveal_missing`` (R18).

        Moves stones at a pass (R23a) and at the end of a round (R23b–d), then
        checks for a CAMAT (R24–R25). Raises the round's ``RefereeError``s
        (see ``Round.push``) and ``round_over`` while a blocked round waits for
        its reveals; nothing changes when it raises.
        """
        game_round = within or self.current
        if within is None and game_round is not None and game_round.round.is_over():
            game_round = None  # the next round's lead: begin_round says what it waits for
        begun = game_round is None
        if game_round is None:
            game_round = self.begin_round()
        try:
            report = game_round.round.push(move)
        except RefereeError:
            if begun:
                self.rounds.pop()  # a refused lead leaves no empty round behind
            raise
        transfers: list[Transfer] = []
        if report.move.is_pass:
            assert report.last_mappano is not None
            transfers = settlement.pass_award(
                self.ledger,
                self.rules,
                seat=report.move.seat,
                passebunge=report.passebunge,
                closing=report.closing,
                last_mappano=report.last_mappano,
                move=report.index,
            )
            game_round.transfers.extend(transfers)
        settled = False
        if game_round.round.is_settled():
            transfers.extend(self._settle(game_round))
            settled = True
        return GameMoveReport(report, tuple(transfers), settled, game_round.camat_elected)

    def declare(self, seat: int, tiles: Iterable[object]) -> None:
        """Seat ``seat`` declares its five tiles for the round in play (R31).

        Starts a new round if the last one is over (a hand is declared before the
        round's lead, R31): ``reveal_missing`` (R18) while a blocked round waits for
        its reveals. Raises as ``Round.declare``.
        """
        game_round = self.current
        if game_round is not None and game_round.round.is_over():
            game_round = None  # a hand for the next round
        begun = game_round is None
        if game_round is None:
            game_round = self.begin_round()
        try:
            game_round.round.declare(seat, tiles)
        except RefereeError as error:
            if begun:
                self.rounds.pop()
            raise error.at(round=game_round.round.number) from None

    def reveal(
        self, seat: int, *, tiles: Iterable[object] | None = None, pips: object = None
    ) -> tuple[Transfer, ...]:
        """Record a seat's remaining tiles or pips at a blocked round (R18, R33).

        Returns the end-of-round transfers once the last seat is known.
        Raises ``reveal_invalid`` when no round waits for reveals.
        """
        game_round = self.current
        if game_round is None and self.rounds and self._accepts_confirmation(seat):
            game_round = self.rounds[-1]  # a declared seat confirming its remainder (R31)
        if game_round is None:
            number = self.rounds[-1].round.number if self.rounds else self.rounds_before + 1
            raise RevealInvalid(gettext_noop("no blocked round is waiting for reveals")).at(
                round=number
            )
        was_settled = game_round.round.is_settled()
        game_round.round.reveal(seat, tiles=tiles, pips=pips)
        if not was_settled and game_round.round.is_settled():
            return tuple(self._settle(game_round))
        return ()

    def _accepts_confirmation(self, seat: int) -> bool:
        """Whether the last round is blocked and settled, and ``seat`` declared its hand."""
        last = self.rounds[-1].round
        return (
            last.is_settled()
            and last.outcome is not None
            and last.outcome.manguno is not None
            and seat in last.hands
            and seat not in last.revealed
            and seat not in last.pip_sums
        )

    def _settle(self, game_round: GameRound) -> list[Transfer]:
        outcome = game_round.round.outcome
        assert outcome is not None and outcome.winner is not None
        transfers = settlement.round_award(self.ledger, self.rules, outcome)
        game_round.transfers.extend(transfers)
        elected = settlement.camat_election(self.ledger, outcome)
        if elected is not None:
            self.camat = elected
            game_round.camat_elected = elected
        self.next_leader = self.camat if self.camat is not None else outcome.winner  # R6, R26
        game_round.after = Standing(
            self.ledger.table, tuple(self.ledger.stones), self.camat, self.next_leader
        )
        return transfers
