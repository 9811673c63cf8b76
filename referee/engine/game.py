"""A whole game: rounds in order, the stones they move and the CAMAT (R6, R22–R27).

``Game`` folds a game's events — declared hands, moves, reveals — into its
rounds, its ``Ledger`` of stones and its CAMAT. It carries both across
sittings: a session is just a pause in the same fold (R27).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.errors import (
    RecordInvalid,
    RefereeError,
    RevealInvalid,
    RevealMissing,
    RulingInvalid,
    gettext_noop,
    ngettext_noop,
)
from referee.engine.moves import Move, Pass, Play
from referee.engine.names import reorders_text
from referee.engine.round import MoveReport, Round, check_seat, move_parts
from referee.engine.rules import DEFAULT_RULES, RuleSet
from referee.engine.tiles import SEATS, Tile
from scoring.core import settlement
from scoring.core.ledger import TABLE, Ledger, Transfer

# A ruling's reason is shown as typed on every phone (R35, R36): no bidirectional
# embedding, override or isolate (``referee.engine.names.reorders_text``).
_REORDERED = gettext_noop("a ruling's reason may not hold characters that change its direction")


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


@dataclass(slots=True)
class GameMoveReport:
    """A move's ``MoveReport`` with the stones it moved and, if it settled the
    round, the end-of-round transfers and any CAMAT elected (a fresh value for each
    move; nothing keeps it)."""

    report: MoveReport
    transfers: tuple[Transfer, ...]
    settled: bool
    camat_elected: int | None
    voided: bool = False  # a move of a voided round: checked for form only (R35)


class GameRound:
    """A round of the game with its stone transfers, the state after it and its rulings.

    ``voided`` marks a round the organiser voided (R35): its events are only
    checked for form and kept as entered (``entries``: its moves; ``raw_hands``,
    ``raw_reveal``, ``raw_pips``: as given), and ``void_reason`` is set once
    the void closes it. ``substitutes`` maps a seat to who sits it from this
    round on (R38); ``adjustments`` are the organiser's stone moves after the
    round (R36), in record form.
    """

    def __init__(self, round: Round, *, voided: bool = False) -> None:
        self.round = round
        self.transfers: list[Transfer] = []
        self.camat_elected: int | None = None
        self.after: Standing | None = None  # set once the round is settled (or voided)
        self.voided = voided
        self.void_reason: str | None = None
        self.entries: list[Move] = []
        self.raw_hands: dict[int, Any] = {}
        self.raw_reveal: dict[int, Any] = {}
        self.raw_pips: dict[int, Any] = {}
        self.substitutes: dict[int, str] = {}
        self.adjustments: list[dict[str, Any]] = []

    def is_closed(self) -> bool:
        """Whether no event of play can join the round: settled, or voided (R35)."""
        return self.void_reason is not None or self.round.is_settled()

    def laid_chain(self) -> list[tuple[int, int]]:
        """The chain left to right (``Round.chain``). A voided round's moves were kept
        unjudged (R35): they are laid again as far as the rules allow (R5–R13), so the
        table sees what it voided up to its first wrong move."""
        if not self.voided:
            return self.round.chain()
        rnd = self.round
        trial = Round(number=rnd.number, rules=rnd.rules, expected_leader=rnd.expected_leader)
        for move in self.entries:
            try:
                trial.push(move)
            except RefereeError:
                break
        return trial.chain()

    def is_fresh(self) -> bool:
        """Whether nothing but substitutes was entered in the round yet."""
        return not (self.round.moves or self.round.hands or self.entries or self.raw_hands)

    @property
    def leader(self) -> int | None:
        """The seat of the round's first move, else the seat expected to lead (R5, R6)."""
        if self.voided:
            return self.entries[0].seat if self.entries else self.round.expected_leader
        rnd = self.round
        return rnd.leader if rnd.leader is not None else rnd.expected_leader


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
        # Numbers of the rounds the organiser voided (R35): such a round is begun voided,
        # since a voided round's events must not be judged even before its void arrives.
        self.void_ahead: frozenset[int] = frozenset()

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
        """The last round if it is not settled (or voided) yet, else ``None``."""
        if self.rounds and not self.rounds[-1].is_closed():
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
        if last is not None and not self.rounds[-1].is_closed():
            self.check_revealed()
            raise RecordInvalid(
                gettext_noop("round %(previous)s is still in play"), previous=last.number
            ).at(round=number)
        game_round = GameRound(
            Round(number=number, rules=self.rules, expected_leader=self.expected_leader()),
            voided=number in self.void_ahead,
        )
        self.rounds.append(game_round)
        return game_round

    def check_revealed(self) -> None:
        """Raise ``reveal_missing`` (R18, at the blocked round, ``move`` None) if the last
        round is blocked and still waits for reveals: a round after it may not begin, and
        a record with a round after it lacks them — a fault of that round's reveals, which
        R34 checks before the round's adjustments (R36)."""
        game_round = self.rounds[-1] if self.rounds else None
        if game_round is not None and not game_round.is_closed() and game_round.round.is_over():
            raise RevealMissing(
                gettext_noop("round %(previous)s is blocked and still waits for reveals"),
                previous=game_round.round.number,
            ).at(round=game_round.round.number)

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
        if game_round.voided:
            try:
                return self._enter_unjudged(game_round, move)
            except RefereeError:
                if begun:
                    self.rounds.pop()
                raise
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
        if report.outcome is not None and report.outcome.is_settled():  # only an end settles
            transfers.extend(self._settle(game_round))
            settled = True
        return GameMoveReport(report, tuple(transfers), settled, game_round.camat_elected)

    def replay_moves(self, moves: Sequence[object], game_round: GameRound) -> None:
        """``push(move, within=game_round)`` for each move in turn, without reports.

        The same checks, errors, stones and CAMAT as ``push``: ordinary legal
        moves take ``Round.run``'s fast path (their pass awards, R23a, and a FIRST
        CAPPU's settlement, R14, R23b, R24, follow in order), anything else
        ``push``'s, which raises at the first fault (the moves before it stay
        applied).
        """
        count = len(moves)
        index = 0
        while index < count:
            if not game_round.voided:
                index = self._run(game_round, moves, index)
                if index == count:
                    break
            self.push(moves[index], within=game_round)  # type: ignore[arg-type]
            index += 1

    def replay(self, moves: Sequence[object]) -> None:
        """``push(move)`` for each move in turn, without reports: moves already accepted
        once (a stored round's), applied again.

        The same state, stones and CAMAT as pushing them one by one, and the same
        errors (it raises at the first fault, the moves before it stay applied): the
        ordinary legal moves of a round in play take ``Round.run``'s fast path, as in
        ``replay_moves``; a round's lead (R5, R6), a move of a voided round (R35) or a
        blocked round waiting for its reveals (R18), declared hands (R31) and anything
        odd take ``push``'s. Unlike ``replay_moves`` it is not bound to one round: a
        move after a round's settlement leads the next, as with ``push``.
        """
        count = len(moves)
        index = 0
        while index < count:
            game_round = self.current
            if game_round is not None and not game_round.voided:
                stopped = self._run(game_round, moves, index)
                if stopped != index:
                    index = stopped
                    continue
            self.push(moves[index])  # type: ignore[arg-type]
            index += 1

    def _run(self, game_round: GameRound, moves: Sequence[object], index: int) -> int:
        """``Round.run`` from ``moves[index]`` on, then the stones of the passes it applied
        (R23a) and a FIRST CAPPU's settlement (R14, R23b, R24) in order; the index of the
        first move not applied."""
        rnd = game_round.round
        passes_before = len(rnd.pass_log)
        stopped = rnd.run(moves, index)
        if stopped != index:
            self._award_passes(game_round, passes_before)
            if rnd.outcome is not None and rnd.outcome.is_settled():
                self._settle(game_round)  # a FIRST CAPPU (R14) settles at once
        return stopped

    def _award_passes(self, game_round: GameRound, first: int) -> None:
        """The stones of the round's passes from ``passes[first]`` on, in order (R23a).

        A pass that ended the round is the MANGUNO's closing pass (R17); it
        leaves the round blocked, waiting for reveals, since declared hands
        (R31) never take ``Round.run``'s path.
        """
        rnd = game_round.round
        game_round.transfers += settlement.pass_awards(
            self.ledger,
            self.rules,
            [
                (move, seat, passebunge, last_mappano)
                for move, seat, passebunge, last_mappano, _, _ in rnd.pass_log[first:]
            ],
            closing_move=len(rnd.moves) - 1 if rnd.outcome is not None else None,
        )

    def declare(self, seat: int, tiles: Iterable[object], *, shared: bool = False) -> None:
        """Seat ``seat`` declares its five tiles for the round in play (R31); ``shared``
        keeps a hand that shares tiles with another seat's (``Round.declare``).

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
            if game_round.voided:
                game_round.raw_hands[check_seat(seat)] = tiles  # kept, not judged (R35)
            else:
                game_round.round.declare(seat, tiles, shared=shared)
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
        try:
            seat = check_seat(seat)  # first, as in a round's reveal (R34): it is a dict key
        except RefereeError as error:
            number = self.rounds[-1].round.number if self.rounds else self.rounds_before + 1
            raise error.at(round=number) from None
        game_round = self.current
        if game_round is None and self.rounds and self._accepts_confirmation(seat):
            game_round = self.rounds[-1]  # a declared seat confirming its remainder (R31)
        if game_round is None:
            number = self.rounds[-1].round.number if self.rounds else self.rounds_before + 1
            raise RevealInvalid(gettext_noop("no blocked round is waiting for reveals")).at(
                round=number
            )
        if game_round.voided:  # kept as given, not judged (R35)
            if tiles is not None:
                game_round.raw_reveal[seat] = tiles
            if pips is not None:
                game_round.raw_pips[seat] = pips
            return ()
        was_settled = game_round.round.is_settled()
        game_round.round.reveal(seat, tiles=tiles, pips=pips)
        if not was_settled and game_round.round.is_settled():
            return tuple(self._settle(game_round))
        return ()

    # -- the organiser's rulings (R35, R36, R38) -------------------------------------

    def _enter_unjudged(
        self, game_round: GameRound, raw: Move | Mapping[str, Any]
    ) -> GameMoveReport:
        """Keep a voided round's move after checking only its form (R35): a seat 0–4,
        a play or a pass, a well-formed tile."""
        index = len(game_round.entries)
        try:
            if isinstance(raw, (Play, Pass)):
                move: Move = raw
            else:
                seat = check_seat(raw.get("seat") if isinstance(raw, Mapping) else None)
                kind, raw_tile, on = move_parts(raw)
                move = Pass(seat) if kind == "pass" else Play(seat, Tile.parse(raw_tile), on)
        except RefereeError as error:
            raise error.at(round=game_round.round.number, move=index) from None
        game_round.entries.append(move)
        report = MoveReport(index=index, move=move, ends=(0, 0))
        return GameMoveReport(report, (), False, None, voided=True)

    def void_round(self, number: int, reason: object) -> None:
        """Close round ``number`` as voided by the organiser, with its reason (R35).

        The round must be the last one begun and begun voided (``void_ahead``).
        A round is voided finished or in play, never before anything of it was
        entered (R35: a round not yet led, with no declared hand, holds nothing
        to void; a misdeal before the lead is simply dealt again). No stone
        moves: the state after it is the state before it. Raises
        ``ruling_invalid`` (R35) for a void without a non-empty reason, of
        another round, or of a round with nothing entered yet.
        """
        if not isinstance(reason, str) or not reason.strip():
            raise RulingInvalid(gettext_noop("a void always carries its reason"), rule="R35").at(
                round=number
            )
        if reorders_text(reason):  # shown on every phone's banner: it must read as typed
            raise RulingInvalid(_REORDERED, rule="R35").at(round=number)
        game_round = self.rounds[-1] if self.rounds else None
        if (
            game_round is None
            or (game_round.is_closed() and game_round.round.number < number)
            or (game_round.round.number == number and game_round.is_fresh())
        ):
            raise RulingInvalid(
                gettext_noop(
                    "round %(number)s has not been led and holds no declared hand: "
                    "there is nothing in it to void"
                ),
                rule="R35",
                number=number,
            ).at(round=number)
        if (
            game_round.round.number != number
            or not game_round.voided
            or game_round.void_reason is not None
        ):
            raise RulingInvalid(
                gettext_noop("round %(number)s cannot be voided here: its events must come first"),
                rule="R35",
                number=number,
            ).at(round=number)
        game_round.void_reason = reason
        game_round.after = Standing(
            self.ledger.table, tuple(self.ledger.stones), self.camat, self.next_leader
        )

    def adjust(self, number: int, data: object) -> Transfer:
        """Apply an organiser's adjustment to round ``number``, the last begun (R36).

        ``data`` is ``{"from", "to", "stones", "reason"}`` (see
        ``_adjustment``). The round must be over and settled, or
        voided; the round's ``after`` follows. Raises ``ruling_invalid`` (R36).
        """
        game_round = self.rounds[-1] if self.rounds else None
        if game_round is None or game_round.round.number != number:
            raise RulingInvalid(
                gettext_noop("an adjustment follows the round it belongs to"), rule="R36"
            ).at(round=number)
        if not game_round.is_closed():
            raise RulingInvalid(
                gettext_noop("round %(number)s is still in play or waiting for its reveals"),
                rule="R36",
                number=number,
            ).at(round=number)
        try:
            transfer = _adjustment(self.ledger, data)
        except RefereeError as error:
            raise error.at(round=number) from None
        assert isinstance(data, dict)
        game_round.transfers.append(transfer)
        game_round.adjustments.append(dict(data))
        game_round.after = Standing(
            self.ledger.table, tuple(self.ledger.stones), self.camat, self.next_leader
        )
        return transfer

    def substitute(self, number: int, seat: object, name: object) -> None:
        """From round ``number`` on, seat ``seat`` is sat by ``name`` (R38).

        Only the name changes: stones, office and turn stay with the seat. A
        substitute comes before anything else of its round, so it begins the
        round if needed. Raises ``record_invalid`` (R38) for a seat not 0–4,
        an empty name or a round already under way.
        """
        game_round = self.rounds[-1] if self.rounds else None
        if game_round is None or game_round.is_closed():
            game_round = self.begin_round()
        if type(seat) is not int or not 0 <= seat < SEATS:
            raise RecordInvalid(
                gettext_noop('substitutes name seats "0" to "4", not %(seat)s'),
                rule="R38",
                seat=repr(seat),
            ).at(round=number)
        if not isinstance(name, str) or not name.strip():
            raise RecordInvalid(gettext_noop("a substitute has a non-empty name"), rule="R38").at(
                round=number
            )
        if game_round.round.number != number or not game_round.is_fresh():
            raise RecordInvalid(
                gettext_noop("a substitute comes before the events of round %(number)s"),
                rule="R38",
                number=number,
            ).at(round=number)
        game_round.substitutes[seat] = name

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


def _adjustment(ledger: Ledger, data: object) -> Transfer:
    """Apply an organiser's adjustment ``{"from", "to", "stones", "reason"}`` (R36).

    ``from``/``to`` are ``"table"`` or a seat 0–4, ``stones`` a whole number
    ≥ 1, ``reason`` a non-empty text. Nobody gives more than they hold, so
    stones stay conserved and nobody goes negative; no CAMAT is elected (R24
    is checked only at a round's end). Raises ``ruling_invalid`` (R36) for
    anything else; the ledger is unchanged then.
    """
    if not isinstance(data, dict) or set(data) != {"from", "to", "stones", "reason"}:
        raise RulingInvalid(
            gettext_noop('an adjustment is {"from", "to", "stones", "reason"}'), rule="R36"
        )
    source, to, stones, reason = data["from"], data["to"], data["stones"], data["reason"]
    for holder in (source, to):
        if holder != TABLE and (type(holder) is not int or not 0 <= holder < SEATS):
            raise RulingInvalid(
                gettext_noop('an adjustment moves stones between "table" and seats 0 to 4'),
                rule="R36",
            )
    if source == to:
        raise RulingInvalid(
            gettext_noop("an adjustment cannot give stones to the giver"), rule="R36"
        )
    if type(stones) is not int or stones < 1:
        raise RulingInvalid(gettext_noop("an adjustment moves at least 1 stone"), rule="R36")
    if not isinstance(reason, str) or not reason.strip():
        raise RulingInvalid(gettext_noop("an adjustment always carries its reason"), rule="R36")
    if reorders_text(reason):
        raise RulingInvalid(_REORDERED, rule="R36")
    held = ledger.holding(source)
    if held < stones:
        if source == TABLE:
            raise RulingInvalid(
                ngettext_noop(
                    "the table cannot give %(stones)s: it holds only %(held)s stone",
                    "the table cannot give %(stones)s: it holds only %(held)s stones",
                    number="held",
                ),
                rule="R36",
                held=held,
                stones=stones,
            )
        raise RulingInvalid(
            ngettext_noop(
                "seat %(seat)s cannot give %(stones)s: it holds only %(held)s stone",
                "seat %(seat)s cannot give %(stones)s: it holds only %(held)s stones",
                number="held",
            ),
            rule="R36",
            seat=source,
            held=held,
            stones=stones,
        )
    return ledger.move(source=source, to=to, stones=stones)
