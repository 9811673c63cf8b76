"""One round at the table: the chain, the turns and how the round ends (R5–R21, R30–R34).

A ``Round`` is folded from its events: declared hands (R31), then moves
(plays and passes) in order, then — for a blocked round — each seat's
remaining tiles or pip sum (R18, R33). Every event is checked completely
before anything changes, so a rejected event leaves the round as it was.
The referee never sees the hands: it reasons from the table (R30).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.errors import (
    ContradictsPass,
    EndMismatch,
    EndRequired,
    NotYourTurn,
    OpeningTileInvalid,
    PassWithPlayableTile,
    RecordInvalid,
    RefereeError,
    RevealInvalid,
    RoundOver,
    SleepingTilePlayed,
    TileAlreadyPlayed,
    TileDoesNotMatch,
    TileNotInHand,
    WrongLeader,
    gettext_noop,
    ngettext_noop,
)
from referee.engine.moves import Move, Pass, Play
from referee.engine.outcome import Ending, Finish, RoundOutcome
from referee.engine.rules import MAX_SLEEPING, RuleSet
from referee.engine.tiles import (
    ALL_MASK,
    ALL_TILES,
    CARRYING,
    HIGHEST_VALUE,
    SEATS,
    TILE_SPELLINGS,
    TILES_PER_HAND,
    Tile,
    mask_of,
    next_seat,
    seat_before,
    tiles_in,
)

_MOVE_KEYS = frozenset({"seat", "tile", "on", "pass", "side"})

SIDES = ("left", "right")
"""A play's side of the chain (R11): the arm that grew from the lead's first half
(``left``, shown first by ``Round.chain``) or from its second (``right``). A stored
play keeps the side it was placed on, so that a correction of an earlier tile keeps it
where it lies; it is not part of a ``domeng-record/1`` record."""


@dataclass(frozen=True, slots=True)
class PassRecord:
    """A pass (R9) at move ``move`` while the open ends showed ``ends``;
    ``passebunge`` when the seat had not yet played a tile this round (R10);
    ``last_mappano``, the seat that played the latest tile, gives the shortfall (R23a)."""

    move: int
    seat: int
    ends: tuple[int, int]
    passebunge: bool = False
    last_mappano: int | None = None  # who played the latest tile before it (R12, R23a)


@dataclass(slots=True)
class MoveReport:
    """What one accepted move did (a fresh value for each move; nothing keeps it).

    ``index`` is the move's 0-based index in the round; ``is_lead`` for the
    round's first tile; ``passebunge`` for a pass by a seat that has not yet
    played this round (R10); ``closing`` for the MANGUNO's closing pass
    (R17); ``mappakuling`` (R13); ``last_mappano`` is the seat that played the
    latest tile (R12); ``outcome`` is set when the move ended the round.
    """

    index: int
    move: Move
    ends: tuple[int, int]
    is_lead: bool = False
    passebunge: bool = False
    closing: bool = False
    mappakuling: bool = False
    last_mappano: int | None = None
    outcome: RoundOutcome | None = None


def check_seat(seat: object) -> int:
    """Return ``seat`` if it is a seat number 0–4, else raise ``record_invalid`` (R3)."""
    if type(seat) is not int or not 0 <= seat < SEATS:
        raise RecordInvalid(
            gettext_noop("seat must be a whole number 0 to 4, not %(seat)s"),
            rule="R3",
            seat=repr(seat),
        )
    return seat


class Round:
    """A round being played: chain, turn, passes and, once over, its outcome.

    ``number`` is 1-based within the game; ``expected_leader`` is the seat
    that must lead (the CAMAT, else the previous round's winner, R6) or
    ``None`` in the game's first round, which is led by the holder of the
    highest first-lead double (R5).
    """

    def __init__(
        self,
        *,
        number: int,
        rules: RuleSet,
        expected_leader: int | None,
    ) -> None:
        self.number = number
        self.rules = rules
        self.expected_leader = expected_leader
        self.is_first_of_game = expected_leader is None
        self.hands: dict[int, frozenset[Tile]] = {}
        self.moves: list[Move] = []
        self.leader: int | None = None
        self.left: list[Tile] = []  # tiles placed to the left, outermost last
        self.right: list[Tile] = []  # tiles placed to the right, outermost last
        self.lead_tile: Tile | None = None
        self.ends: tuple[int, int] | None = None
        self.played_by: list[list[Tile]] = [[], [], [], [], []]  # by seat (SEATS)
        # Each pass as (move, seat, passebunge, LAST MAPPANO, left end, right end): plain
        # tuples, cheap to make at every pass; ``passes`` gives them as ``PassRecord``s.
        self.pass_log: list[tuple[int, int, bool, int, int, int]] = []
        self.sleeping: frozenset[Tile] = _NO_TILES
        self.turn: int | None = expected_leader
        self.last_mappano: int | None = None
        self.consecutive_passes = 0
        self.outcome: RoundOutcome | None = None
        self.revealed: dict[int, tuple[Tile, ...]] = {}
        self.pip_sums: dict[int, int] = {}
        self._pips_checked: dict[int, int] = {}  # seat -> the could_hold mask its pips fit
        # The same facts as bit masks of tiles (``Tile.bit``), so that a move's checks and
        # ``legal_moves`` are a few ``&``: the tiles played, of ``sleeping``, and for
        # each seat the tiles carrying a value it passed on (R32).
        self._played_mask = 0
        self._sleeping_mask = 0
        self._passed_mask = [0] * SEATS

    # -- questions -----------------------------------------------------------------

    def is_over(self) -> bool:
        """Whether the round has ended (FIRST CAPPU or blocked), settled or not."""
        return self.outcome is not None

    def is_settled(self) -> bool:
        """Whether the round has ended and its winner is known."""
        return self.outcome is not None and self.outcome.is_settled()

    def is_waiting_for_reveals(self) -> bool:
        """Whether the round is blocked and some seat's remaining pips are unknown (R18)."""
        return self.outcome is not None and not self.outcome.is_settled()

    def tiles_left(self, seat: int) -> int:
        """How many tiles ``seat`` still holds (5 − tiles played, R4)."""
        return TILES_PER_HAND - len(self.played_by[seat])

    @property
    def played(self) -> dict[Tile, int]:
        """The tiles played this round, each with the index of its move."""
        return {move.tile: index for index, move in enumerate(self.moves) if type(move) is Play}

    @property
    def passes(self) -> list[PassRecord]:
        """The round's passes in order (R9, R10, R32)."""
        return [
            PassRecord(move, seat, (left, right), passebunge, last_mappano)
            for move, seat, passebunge, last_mappano, left, right in self.pass_log
        ]

    def chain(self) -> list[tuple[int, int]]:
        """The chain left to right, each tile as its two halves in the order laid."""
        if self.lead_tile is None:
            return []
        laid: list[tuple[int, int]] = []
        value = self.lead_tile.low
        for tile in self.left:
            other = tile.other(value)
            laid.append((other, value))
            value = other
        laid.reverse()
        laid.append(self.lead_tile.values)
        value = self.lead_tile.high
        for tile in self.right:
            other = tile.other(value)
            laid.append((value, other))
            value = other
        return laid

    def placements(self) -> list[tuple[str, int, int] | None]:
        """Where each move went, by its index: ``(side, on, other)`` for a play after the
        lead — its arm of the chain (``SIDES``), the open-end value it was placed on and
        the other open end's value at that moment (R7, R11) — ``None`` for the lead and
        for a pass. Worked out from the chain when asked (nothing is kept per move)."""
        result: list[tuple[str, int, int] | None] = []
        if self.lead_tile is None:
            return result
        on_right = {tile.bit for tile in self.right}
        ends = [self.lead_tile.low, self.lead_tile.high]
        for index, move in enumerate(self.moves):
            if index == 0 or type(move) is not Play:
                result.append(None)
                continue
            arm = 1 if move.tile.bit in on_right else 0
            on = ends[arm]
            result.append((SIDES[arm], on, ends[1 - arm]))
            ends[arm] = move.tile.other(on)
        return result

    def seats_awaiting_reveal(self) -> list[int]:
        """Seats whose remaining tiles or pips the blocked round still needs (R18)."""
        if self.outcome is None or self.outcome.ending is not Ending.BLOCKED:
            return []
        return [s for s in range(SEATS) if self._remaining_pips_of(s) is None]

    def declared_by_others(self, seat: int) -> frozenset[Tile]:
        """Tiles declared (R31) or revealed (R33) by seats other than ``seat``, less the
        tiles of ``seat``'s own declared hand (where two live hands share a tile, each
        seat's own hand decides for it, R31)."""
        return frozenset(tiles_in(self._others_mask(seat)))

    def _others_mask(self, seat: int) -> int:
        """``declared_by_others(seat)`` as a mask of tiles."""
        mask = 0
        for other, hand in self.hands.items():
            if other != seat:
                mask |= mask_of(hand)
        for other, revealed in self.revealed.items():
            if other != seat:
                mask |= mask_of(revealed)
        own = self.hands.get(seat)
        return mask & ~mask_of(own) if own else mask

    def passed_values(self, seat: int) -> frozenset[int]:
        """The open-end values ``seat`` passed on this round: it holds none of them (R32)."""
        return frozenset(v for p in self.pass_log if p[1] == seat for v in p[4:])

    def could_hold(self, seat: int, *, hidden: bool = False) -> list[Tile]:
        """Tiles ``seat`` may still hold as far as the table knows (R31–R33).

        Not played this round, not declared or revealed by another seat, not
        asserted sleeping by the first lead, carrying no value the seat passed
        on; with a declared hand, only its unplayed tiles. With ``hidden``
        the declared hands are left out of the reckoning (what a phone that
        may not read them can be shown).
        """
        return tiles_in(self._could_hold_mask(seat, hidden))

    def _could_hold_mask(self, seat: int, hidden: bool) -> int:
        """``could_hold`` as a mask of tiles."""
        if not hidden and seat in self.hands:
            return mask_of(self.hands[seat]) & ~self._played_mask
        excluded = self._played_mask | self._sleeping_mask | self._passed_mask[seat]
        if not hidden:
            excluded |= self._others_mask(seat)
        return ALL_MASK & ~excluded

    def legal_moves(self, *, hidden: bool = False) -> list[Move]:
        """The moves the seat whose turn it is could make, given what is known.

        For a lead: a first-lead double in the game's first round (R5), any
        tile later (R6). Otherwise a play of each tile it could hold on each
        open end it matches (with ``on``), and a pass unless a declared hand
        holds a playable tile (R31). Empty when the round is over or, in the
        first round before the lead, when any seat may lead (seat unknown).
        """
        if self.outcome is not None or self.turn is None:
            return []
        return self.legal_moves_for(self.turn, hidden=hidden)

    def legal_moves_for(self, seat: int, *, hidden: bool = False) -> list[Move]:
        """Like ``legal_moves`` for a given seat on its turn (or any seat before the first lead)."""
        moves: list[Move] = []
        if self.ends is None:
            for tile in self.could_hold(seat, hidden=hidden):
                try:
                    self._check_lead(Play(seat, tile))
                except RefereeError:
                    continue
                moves.append(Play(seat, tile))
            return moves
        left, right = self.ends
        could_hold = self._could_hold_mask(seat, hidden)
        plays = _PLAYS_ON[seat]
        if left > right:
            left, right = right, left
        on_left = plays[left]
        on_right = plays[right] if left != right else {}
        for tile in tiles_in(could_hold & (CARRYING[left] | CARRYING[right])):
            play = on_left.get(tile.bit)  # the lower value first, then the higher
            if play is not None:
                moves.append(play)
            play = on_right.get(tile.bit)
            if play is not None:
                moves.append(play)
        if hidden or seat not in self.hands or not moves:
            moves.append(_PASSES[seat])
        return moves

    def playable_tiles(self, *, hidden: bool = False) -> dict[int, list[Tile]]:
        """For each open end's value, the tiles that can still legally go on it now.

        Keys are the distinct open-end values (one key when both ends show the
        same value); empty before the lead and once the round is over.
        """
        if self.ends is None or self.outcome is not None or self.turn is None:
            return {}
        could_hold = self._could_hold_mask(self.turn, hidden)
        return {v: tiles_in(could_hold & CARRYING[v]) for v in sorted(set(self.ends))}

    # -- events --------------------------------------------------------------------

    def declare(self, seat: int, tiles: Iterable[object], *, shared: bool = False) -> None:
        """Seat ``seat`` declares its five tiles (R31).

        Raises ``tile_invalid`` for a malformed tile and ``record_invalid``
        (R31) unless they are five distinct tiles declared by no other seat.
        With ``shared`` (a table's live declaration, which must not tell whether a
        tile is in another seat's hand, R31) a hand sharing tiles with another
        seat's is kept: each of the two seats is judged by its own hand, every
        other seat by both (``_check_in_hand``, ``declared_by_others``).
        A hand that an earlier event of the round contradicts is refused with
        that event's code (the round is replayed with the hand).
        """
        check_seat(seat)
        if not isinstance(tiles, (list, tuple, set, frozenset)):
            raise RecordInvalid(gettext_noop("a declared hand is a list of five tiles"), rule="R31")
        hand = [Tile.parse(t) for t in tiles]
        if len(hand) != TILES_PER_HAND or len(set(hand)) != TILES_PER_HAND:
            raise RecordInvalid(
                gettext_noop("seat %(seat)s must declare five distinct tiles"),
                rule="R31",
                seat=seat,
            )
        if seat in self.hands:
            raise RecordInvalid(
                gettext_noop("seat %(seat)s has already declared its hand"), rule="R31", seat=seat
            )
        if not shared and any(set(hand) & other_hand for other_hand in self.hands.values()):
            raise RecordInvalid(
                # Names neither tile nor seat: a phone may not learn another hand (R31).
                gettext_noop("a tile of this hand is already declared by another seat"),
                rule="R31",
            )
        if not self.moves:
            self.hands[seat] = frozenset(hand)
            return
        # Declared after the round began: the round must replay with the hand.
        replay = Round(number=self.number, rules=self.rules, expected_leader=self.expected_leader)
        replay.hands = {**self.hands, seat: frozenset(hand)}
        for index, move in enumerate(self.moves):
            try:
                replay.push(move)
            except RefereeError as error:
                raise error.at(round=self.number, move=index) from None
        self.hands[seat] = frozenset(hand)

    def run(self, moves: Sequence[object], start: int = 0) -> int:
        """Apply ``moves[start:]`` (a record's moves) while each is an ordinary legal play
        or pass; return the index of the first move not applied (``len(moves)`` when all
        were, or when the round ended at the one before).

        The replay's fast path (no ``MoveReport``, the round's state in locals): it
        takes only what ``push`` would accept with no declared hands (R31) from the
        seat whose turn it is (R8): the lead of a round after the game's first (any
        tile, R6), a pass ``{"seat", "pass": true}`` after the lead, or a play of a
        written tile not played, not sleeping (R40) and carrying no value the seat
        passed on (R32), on an open end it matches (R7, R11). It stops at anything
        else — the game's first lead, declared hands, any fault — changing nothing
        for that move, and ``push`` decides and raises in R34's order, so a record's
        errors are ``push``'s whichever path it takes. A move after the round's end
        is never applied. Each pass's ``PassRecord`` (with its LAST MAPPANO) is in
        ``passes`` for the stones it moves (R23a).
        """
        count = len(moves)
        if self.hands or self.outcome is not None or start >= count:
            return start
        index = start
        if self.ends is None:  # the round's lead
            raw = moves[index]
            if self.is_first_of_game or type(raw) is not dict or len(raw) != 2:
                return index  # the game's first lead (R5, R40) and any odd lead: push
            seat = raw.get("seat")
            text = raw.get("tile")
            if seat != self.turn or type(seat) is not int or type(text) is not str:
                return index
            play = _WRITTEN[seat][None].get(text)
            if play is None:
                return index
            self._open(play, len(self.moves))
            index += 1
        # The round's state in locals, written back once at the end.
        left, right = self.ends  # type: ignore[misc]
        played_mask = self._played_mask
        sleeping_mask = self._sleeping_mask
        passed_mask = self._passed_mask
        turn = self.turn
        last_mappano = self.last_mappano
        assert last_mappano is not None  # the lead is down
        consecutive_passes = self.consecutive_passes
        applied = self.moves
        played_by = self.played_by
        passes = self.pass_log
        lefts, rights = self.left, self.right
        outcome = None
        offset = len(applied) - index  # a move's index in the round = its index + offset
        try:  # a move without a field it needs (KeyError, TypeError) stops the loop too
            while index < count:
                raw = moves[index]
                if type(raw) is not dict:
                    break
                seat = raw["seat"]
                if seat != turn or type(seat) is not int:
                    break
                size = len(raw)
                if size == 2 and "pass" in raw:  # {"seat", "pass"}
                    if raw["pass"] is not True:
                        break
                    move = index + offset
                    passes.append((move, seat, not played_by[seat], last_mappano, left, right))
                    applied.append(_PASSES[seat])
                    passed_mask[seat] |= CARRYING[left] | CARRYING[right]  # R32
                    turn = _NEXT_SEAT[seat]
                    index += 1
                    consecutive_passes += 1
                    if consecutive_passes == SEATS:  # R17: the last of five is the MANGUNO
                        outcome = _BLOCKED[seat]
                        break
                    continue
                if size == 2:  # {"seat", "tile"}
                    on = side = None
                else:  # with "on" and/or a stored "side" (R11)
                    on = raw.get("on")
                    side = raw.get("side")
                    if size != 2 + (on is not None) + (side is not None):
                        break
                    if on is not None and type(on) is not int:
                        break
                # Not a tile, or ``on`` not a value it carries: KeyError, and push says which.
                play = _WRITTEN[seat][on][raw["tile"]]
                tile = play.tile
                bit = tile.bit
                if bit & (played_mask | sleeping_mask | passed_mask[seat]):
                    break
                arm = -1  # the chain's arm it goes on: 0 left, 1 right
                if side is not None:  # its stored side keeps it there while it fits (R11)
                    # ... unless ``on`` names the other open end, which the tile carries
                    # (``on`` is a value the tile carries: ``_WRITTEN`` says so).
                    if side == "right":
                        if bit & CARRYING[right] and (on != left or on == right):
                            on, arm = right, 1
                    elif side == "left":
                        if bit & CARRYING[left] and (on != right or on == left):
                            on, arm = left, 0
                    else:
                        break
                if arm < 0:
                    if on is None:
                        if bit & CARRYING[left]:
                            if left != right and bit & CARRYING[right]:
                                break  # end_required (R11)
                            on = left
                        elif bit & CARRYING[right]:
                            on = right
                        else:
                            break
                    elif on != left and on != right:
                        break
                    arm = 1 if on == right else 0  # equal ends: either side (R11)
                # Place it on the end showing ``on`` (R7).
                assert on is not None
                if arm:
                    rights.append(tile)
                    right = tile.low + tile.high - on
                else:
                    lefts.append(tile)
                    left = tile.low + tile.high - on
                played_mask |= bit
                hand = played_by[seat]
                hand.append(tile)
                applied.append(play)
                last_mappano = seat
                consecutive_passes = 0
                index += 1
                if len(hand) == TILES_PER_HAND:
                    outcome = _first_cappu(seat, tile, left, right)  # R14–R16
                    break
                turn = _NEXT_SEAT[seat]
        except (KeyError, TypeError):
            pass  # nothing of that move was applied: push judges it
        self.ends = (left, right)
        self._played_mask = played_mask
        self.last_mappano = last_mappano
        self.consecutive_passes = consecutive_passes
        if outcome is None:
            self.turn = turn
        else:
            self.outcome = outcome
            self.turn = None
            if outcome.ending is Ending.BLOCKED:
                self._settle_if_counted()
        return index

    def push(self, move: Move | Mapping[str, Any]) -> MoveReport:
        """Apply a play or a pass, given as ``Play``/``Pass`` or as a record move dict.

        Checks in the order of R34 and raises the first error found:
        ``record_invalid`` (seat not 0–4) → ``round_over`` → ``record_invalid``
        (neither play nor pass) → ``wrong_leader``/``not_your_turn`` →
        ``opening_tile_invalid`` (pass as lead); for a pass
        ``pass_with_playable_tile``; for a play ``tile_invalid`` →
        ``tile_already_played`` → ``tile_does_not_match`` →
        ``end_mismatch``/``end_required`` → ``tile_not_in_hand`` →
        ``sleeping_tile_played`` → ``contradicts_pass``; for a lead
        ``tile_invalid`` → ``opening_tile_invalid`` → ``tile_not_in_hand`` →
        ``opening_tile_invalid``. The error carries this round's number and
        the move's index. Nothing changes when it raises.
        """
        index = len(self.moves)
        try:
            if type(move) is dict:  # a record's move, the usual case
                seat = check_seat(move.get("seat"))
            else:
                seat = check_seat(
                    move.seat if isinstance(move, (Play, Pass)) else _get(move, "seat")
                )
            if self.outcome is not None:
                raise RoundOver(gettext_noop("the round is over: no move can follow its end"))
            kind, raw_tile, on = move_parts(move)
            if self.ends is None:
                if self.expected_leader is not None and seat != self.expected_leader:
                    raise WrongLeader(
                        gettext_noop("seat %(leader)s leads this round, not seat %(seat)s"),
                        leader=self.expected_leader,
                        seat=seat,
                    )
                if kind == "pass":
                    raise OpeningTileInvalid(
                        gettext_noop(
                            "a round cannot open with a pass: the leader must lead a tile"
                        ),
                        rule="R30",
                    )
                lead = Play(seat, Tile.parse(raw_tile), None)
                self._check_lead(lead)
                return self._lead(lead, index)
            if seat != self.turn:
                raise NotYourTurn(
                    gettext_noop("it is seat %(turn)s's turn, not seat %(seat)s's"),
                    turn=self.turn,
                    seat=seat,
                )
            if kind == "pass":
                if seat in self.hands:
                    self._check_pass(seat)
                return self._pass(_PASSES[seat], index)
            # The spellings table answers for a written tile; parse() raises tile_invalid.
            tile = TILE_SPELLINGS.get(raw_tile) if type(raw_tile) is str else None
            if tile is None:
                tile = Tile.parse(raw_tile)
            side = move.get("side") if type(move) is dict else None
            placed_on, arm = self._check_play(seat, tile, on, side)
            play = move if type(move) is Play else _play_of(seat, tile, on)
            return self._play(play, placed_on, index, arm)
        except RefereeError as error:
            raise error.at(round=self.number, move=index) from None

    def _check_lead(self, move: Play) -> None:
        tile = move.tile
        if self.is_first_of_game:
            doubles = self.rules.first_lead_doubles
            if tile not in doubles:
                raise OpeningTileInvalid(
                    gettext_noop("the game's first lead must be one of %(doubles)s, not %(tile)s"),
                    doubles=", ".join(str(d) for d in doubles),
                    tile=str(tile),
                )
            if doubles.index(tile) > MAX_SLEEPING:
                raise OpeningTileInvalid(
                    ngettext_noop(
                        "leading %(tile)s would make more than %(count)s tile sleep",
                        "leading %(tile)s would make more than %(count)s tiles sleep",
                    ),
                    rule="R40",
                    tile=str(tile),
                    count=MAX_SLEEPING,
                )
        self._check_in_hand(move.seat, tile)
        if self.is_first_of_game:
            higher = self.rules.first_lead_doubles[: self.rules.first_lead_doubles.index(tile)]
            if any(d in hand for hand in self.hands.values() for d in higher):
                raise OpeningTileInvalid(
                    gettext_noop(
                        "a declared hand holds a first-lead double that leads before %(tile)s"
                    ),
                    rule="R31",
                    tile=str(tile),
                )

    def _check_in_hand(self, seat: int, tile: Tile) -> None:
        # One message whichever declared hand forbids it: saying whether the tile is
        # missing from this seat's hand or held in another's would tell more of the hidden
        # hands than the refusal itself must (R31).
        # A seat with a declared hand is judged by its own hand alone: where two live hands
        # share a tile (R31), neither refuses the other's seat, so playing it answers the
        # same whether or not another hand shares it.
        own = self.hands.get(seat)
        if (own is not None and tile not in own) or (
            own is None and any(tile in hand for hand in self.hands.values())
        ):
            raise TileNotInHand(
                gettext_noop("seat %(seat)s cannot play %(tile)s: a declared hand says otherwise"),
                tile=str(tile),
                seat=seat,
            )

    def _check_pass(self, seat: int) -> None:
        assert self.ends is not None
        hand = self.hands.get(seat, frozenset())
        if any(not t.bit & self._played_mask and t.carries_any(self.ends) for t in hand):
            raise PassWithPlayableTile(
                gettext_noop("seat %(seat)s's declared hand holds a tile for an open end"),
                seat=seat,
            )

    def _check_play(
        self, seat: int, tile: Tile, on: int | None, side: object = None
    ) -> tuple[int, int]:
        """Check a play (not a lead) and return the open-end value it goes on and the
        chain's arm (0 left, 1 right).

        A stored ``side`` (``SIDES``) places the tile on that arm while the tile carries
        its end's value, unless ``on`` names the other open end and the tile carries it:
        so a play without ``on`` (or with both ends equal, or an ``on`` that a correction
        of an earlier tile left stale) stays where it lies; else ``on`` and R11 decide."""
        assert self.ends is not None
        left, right = self.ends
        bit = tile.bit
        if bit & self._played_mask:
            raise TileAlreadyPlayed(
                gettext_noop("%(tile)s was already played this round"), tile=str(tile)
            )
        fits_left = bit & CARRYING[left]
        fits_right = bit & CARRYING[right]
        if not (fits_left or fits_right):
            raise TileDoesNotMatch(
                gettext_noop("%(tile)s matches neither open end (%(left)s, %(right)s)"),
                tile=str(tile),
                left=left,
                right=right,
            )
        arm: int | None = None
        if side is not None and side not in SIDES:
            raise RecordInvalid(gettext_noop('a play\'s side is "left" or "right"'), rule="R11")
        # ``on`` naming an open end the tile carries says where it goes; the stored side
        # decides where ``on`` does not: missing, equal ends, or no longer an open end.
        said = on is not None and on in (left, right) and tile.carries(on)
        if side == "right" and fits_right and (not said or on == right):
            placed_on, arm = right, 1
        elif side == "left" and fits_left and (not said or on == left):
            placed_on, arm = left, 0
        elif on is not None:
            if on not in (left, right) or not tile.carries(on):
                raise EndMismatch(
                    gettext_noop(
                        "%(tile)s cannot go on %(on)s: the open ends are %(left)s and %(right)s"
                    ),
                    tile=str(tile),
                    on=on,
                    left=left,
                    right=right,
                )
            placed_on = on
        elif fits_left and fits_right and left != right:
            raise EndRequired(
                gettext_noop("%(tile)s fits both open ends (%(left)s, %(right)s): say which (on)"),
                tile=str(tile),
                left=left,
                right=right,
                choices=[left, right],
            )
        else:
            placed_on = left if fits_left else right
        if self.hands:
            self._check_in_hand(seat, tile)
        if bit & self._sleeping_mask:
            raise SleepingTilePlayed(
                gettext_noop("%(tile)s sleeps: the game's first lead asserted it was not dealt"),
                tile=str(tile),
                contradicts={"round": self.number, "move": 0},
            )
        contradicted = None
        if bit & self._passed_mask[seat]:  # it carries a value the seat passed on
            contradicted = self._contradicted_pass(seat, tile)
        if contradicted is not None:
            raise ContradictsPass(
                gettext_noop(
                    "seat %(seat)s passed on %(ends)s at move %(pass_move)s, "
                    "so it cannot hold %(tile)s"
                ),
                seat=seat,
                ends="/".join(str(v) for v in sorted(set(contradicted.ends))),
                pass_move=contradicted.move,
                tile=str(tile),
                contradicts={"round": self.number, "move": contradicted.move},
            )
        if arm is None:
            arm = 1 if placed_on == right else 0  # equal ends: either side (R11)
        return placed_on, arm

    def _contradicted_pass(self, seat: int, tile: Tile) -> PassRecord | None:
        for record in self.passes:
            if record.seat == seat and tile.carries_any(record.ends):
                return record
        return None

    # -- applying checked moves ------------------------------------------------------

    def _lead(self, move: Play, index: int) -> MoveReport:
        self._open(move, index)
        return MoveReport(index, move, self.ends, is_lead=True, last_mappano=move.seat)  # type: ignore[arg-type]

    def _open(self, move: Play, index: int) -> None:
        """Lay a checked lead: its halves are the open ends (R5, R6); in the game's first
        round the first-lead doubles above it sleep (R40)."""
        tile = move.tile
        self.moves.append(move)
        self.leader = move.seat
        self.lead_tile = tile
        self.ends = (tile.low, tile.high)
        self._played_mask |= tile.bit
        self.played_by[move.seat].append(tile)
        self.last_mappano = move.seat
        self.turn = next_seat(move.seat)
        if self.is_first_of_game:
            doubles = self.rules.first_lead_doubles
            self.sleeping = frozenset(doubles[: doubles.index(tile)])
            self._sleeping_mask = mask_of(self.sleeping)

    def _play(self, move: Play, on: int, index: int, arm: int | None = None) -> MoveReport:
        outcome = self._place(move, on, index, arm)
        left, right = self.ends  # type: ignore[misc]
        mappakuling = left == right  # R13: a double only if both ends showed it
        return MoveReport(
            index, move, (left, right), False, False, False, mappakuling, move.seat, outcome
        )

    def _place(
        self, move: Play, on: int, index: int, arm: int | None = None
    ) -> RoundOutcome | None:
        """Put a checked play (not a lead) on the end showing ``on`` (on the arm ``arm``,
        0 left, 1 right, when given); the round's outcome if it ended the round
        (R14–R16), else ``None``."""
        assert self.ends is not None
        left, right = self.ends
        tile = move.tile
        seat = move.seat
        open_value = tile.low + tile.high - on  # the half the tile leaves open (R7)
        if arm is None:
            arm = 1 if on == right else 0  # equal ends: either side gives the same table (R11)
        if arm:
            self.right.append(tile)
            self.ends = ends = (left, open_value)
        else:
            self.left.append(tile)
            self.ends = ends = (open_value, right)
        self.moves.append(move)
        self._played_mask |= tile.bit
        played_by = self.played_by[seat]
        played_by.append(tile)
        self.last_mappano = seat
        self.consecutive_passes = 0
        if len(played_by) < TILES_PER_HAND:
            self.turn = (seat + 1) % SEATS  # next_seat, clockwise (R8)
            return None
        outcome = _first_cappu(seat, tile, *ends)  # R14–R16
        self.outcome = outcome
        self.turn = None
        return outcome

    def _pass(self, move: Pass, index: int) -> MoveReport:
        """Record a checked pass (R9, R10, R32); the fifth in a row blocks the round (R17)."""
        assert self.ends is not None
        seat = move.seat
        ends = self.ends
        passebunge = not self.played_by[seat]  # R10
        self.moves.append(move)
        assert self.last_mappano is not None  # a pass never comes before the lead
        self.pass_log.append((index, seat, passebunge, self.last_mappano, *ends))
        self._passed_mask[seat] |= CARRYING[ends[0]] | CARRYING[ends[1]]  # R32
        self.consecutive_passes += 1
        self.turn = (seat + 1) % SEATS  # next_seat, clockwise (R8)
        closing = self.consecutive_passes == SEATS  # R17: the last of five is the MANGUNO
        if closing:
            self.outcome = _BLOCKED[seat]
            self.turn = None
            self._settle_if_counted()
        return MoveReport(
            index, move, ends, False, passebunge, closing, False, self.last_mappano, self.outcome
        )

    # -- blocked rounds: remaining pips ------------------------------------------------

    def reveal(
        self, seat: int, *, tiles: Iterable[object] | None = None, pips: object = None
    ) -> None:
        """Record ``seat``'s remaining tiles or remaining pip sum at a blocked round (R18, R33).

        Raises ``reveal_invalid`` (R33) unless the round is blocked and the
        reveal is possible: exactly 5 − played tiles, none played, none
        revealed or declared by another seat, none carrying a final open
        end's value; ``sleeping_tile_played`` / ``contradicts_pass`` (R32) for
        a tile the first lead or the seat's own pass rules out; a pip sum
        must be reachable by that many tiles the seat could hold. A seat with
        a declared hand must agree with it (R31). Once every seat is known
        the round is settled. The error carries the round and ``move`` None.
        """
        try:
            self._reveal(check_seat(seat), tiles, pips)
        except RefereeError as error:
            raise error.at(round=self.number, move=None) from None

    def _reveal(self, seat: int, tiles: Iterable[object] | None, pips: object) -> None:
        if self.outcome is None or self.outcome.ending is not Ending.BLOCKED:
            raise RevealInvalid(gettext_noop("reveals are only for a blocked round"))
        if seat in self.revealed or seat in self.pip_sums:
            raise RevealInvalid(gettext_noop("seat %(seat)s has already revealed"), seat=seat)
        if tiles is not None and pips is not None:
            raise RevealInvalid(
                gettext_noop("seat %(seat)s gives both tiles and a pip sum"), seat=seat
            )
        if tiles is None and pips is None:
            raise RecordInvalid(
                gettext_noop("a reveal gives either tiles or a pip sum"), rule="R18"
            )
        count = self.tiles_left(seat)
        if tiles is not None:
            if not isinstance(tiles, (list, tuple)):
                raise RecordInvalid(gettext_noop("revealed tiles must be a list"), rule="R18")
            shown = tuple([Tile.parse(t) for t in tiles])
            self._check_revealed_tiles(seat, shown, count)
            self.revealed[seat] = shown
        else:
            if type(pips) is not int or pips < 0:
                raise RecordInvalid(
                    gettext_noop("a pip sum must be a whole number >= 0"), rule="R18"
                )
            self._check_pip_sum(seat, pips, count)
            self.pip_sums[seat] = pips
        if not self.outcome.is_settled():  # a declared seat may confirm after settling (R31)
            try:
                self._settle_if_counted()
            except RefereeError:
                self.revealed.pop(seat, None)  # a refused reveal leaves the round as it was
                self.pip_sums.pop(seat, None)
                raise

    def _check_revealed_tiles(self, seat: int, shown: tuple[Tile, ...], count: int) -> None:
        assert self.ends is not None
        shown_mask = mask_of(shown)
        if shown_mask.bit_count() != len(shown) or len(shown) != count:
            raise RevealInvalid(
                ngettext_noop(
                    "seat %(seat)s must reveal exactly %(count)s distinct tile",
                    "seat %(seat)s must reveal exactly %(count)s distinct tiles",
                ),
                seat=seat,
                count=count,
            )
        if seat in self.hands:
            remaining = frozenset(t for t in self.hands[seat] if not t.bit & self._played_mask)
            if set(shown) != remaining:
                raise RevealInvalid(
                    gettext_noop("seat %(seat)s's reveal disagrees with its declared hand"),
                    rule="R31",
                    seat=seat,
                )
        left, right = self.ends
        ruled_out = (
            self._played_mask
            | CARRYING[left]
            | CARRYING[right]
            | self._sleeping_mask
            | self._passed_mask[seat]
        )
        if not shown_mask & (ruled_out | self._others_mask(seat)):
            return  # nothing below can refuse it
        others = self.declared_by_others(seat)
        for tile in shown:
            if tile.bit & self._played_mask:
                raise RevealInvalid(gettext_noop("%(tile)s was played this round"), tile=str(tile))
            if tile in others:
                raise RevealInvalid(
                    gettext_noop("%(tile)s is revealed or declared by another seat"), tile=str(tile)
                )
            if tile.carries_any(self.ends):
                raise RevealInvalid(
                    gettext_noop("%(tile)s matches a final open end, yet every seat passed on it"),
                    tile=str(tile),
                )
        for tile in shown:
            if tile in self.sleeping:
                raise SleepingTilePlayed(
                    gettext_noop(
                        "%(tile)s sleeps: the game's first lead asserted it was not dealt"
                    ),
                    tile=str(tile),
                    contradicts={"round": self.number, "move": 0},
                )
            contradicted = (
                self._contradicted_pass(seat, tile) if tile.bit & self._passed_mask[seat] else None
            )
            if contradicted is not None:
                raise ContradictsPass(
                    gettext_noop(
                        "seat %(seat)s passed at move %(pass_move)s, so it cannot hold %(tile)s"
                    ),
                    seat=seat,
                    pass_move=contradicted.move,
                    tile=str(tile),
                    contradicts={"round": self.number, "move": contradicted.move},
                )

    def _check_pip_sum(self, seat: int, pips: int, count: int) -> None:
        if seat in self.hands:
            remaining = frozenset(t for t in self.hands[seat] if not t.bit & self._played_mask)
            if sum(t.pips for t in remaining) != pips:
                raise RevealInvalid(
                    gettext_noop("seat %(seat)s's pip sum disagrees with its declared hand"),
                    rule="R31",
                    seat=seat,
                )
            return
        could_hold = self._could_hold_mask(seat, False)
        if not _reachable(tiles_in(could_hold), count, pips):
            raise RevealInvalid(
                ngettext_noop(
                    "no %(count)s tile seat %(seat)s could hold has a pip sum of %(pips)s",
                    "no %(count)s tiles seat %(seat)s could hold add up to a pip sum of %(pips)s",
                ),
                seat=seat,
                count=count,
                pips=pips,
            )
        self._pips_checked[seat] = could_hold

    def _remaining_pips_of(self, seat: int) -> int | None:
        if seat in self.revealed:
            return sum([t.low + t.high for t in self.revealed[seat]])
        if seat in self.pip_sums:
            return self.pip_sums[seat]
        if seat in self.hands:
            return sum(t.pips for t in self.hands[seat] if not t.bit & self._played_mask)
        return None

    def _settle_if_counted(self) -> None:
        """Once every seat's remaining pips are known, name the winner (R18–R21)."""
        assert self.outcome is not None and self.outcome.manguno is not None
        known = len(self.revealed) + len(self.pip_sums)  # no seat gives both
        if known < SEATS and (
            not self.hands
            or len(self.revealed.keys() | self.pip_sums.keys() | self.hands.keys()) < SEATS
        ):
            return  # some seat's remaining pips are still unknown
        remaining = [self._remaining_pips_of(s) for s in range(SEATS)]
        if any(p is None for p in remaining):
            return
        # Every seat is known now: re-check pip sums against all revealed tiles (R33).
        for seat, pips in sorted(self.pip_sums.items()):
            if seat in self.hands:
                continue
            could_hold = self._could_hold_mask(seat, False)
            if could_hold != self._pips_checked.get(seat) and not _reachable(
                tiles_in(could_hold), self.tiles_left(seat), pips
            ):
                raise RevealInvalid(
                    gettext_noop(
                        "seat %(seat)s's pip sum of %(pips)s no longer fits the tiles "
                        "revealed since: correct that seat's reveal"
                    ),
                    seat=seat,
                    pips=pips,
                )
        pips_by_seat = tuple(p for p in remaining if p is not None)
        self.outcome = RoundOutcome.blocked(
            manguno=self.outcome.manguno, remaining_pips=pips_by_seat
        )


def _reachable(candidates: list[Tile], count: int, pips: int) -> bool:
    """Whether exactly ``count`` distinct tiles of ``candidates`` add up to ``pips``."""
    if pips > 2 * HIGHEST_VALUE * count:
        return False
    # One int holds every (k, s) such that some k of the tiles seen so far add up to
    # s ≤ pips, as bit k × stride + s. A tile adds (k + 1, s + its pips) for each (k, s):
    # one shift; the stride leaves room for a tile's pips, so no sum spills into k + 1.
    stride = pips + 2 * HIGHEST_VALUE + 1
    sums = (1 << (pips + 1)) - 1
    keep = 0
    for k in range(count + 1):
        keep |= sums << (k * stride)
    reached = 1  # k = 0, s = 0: no tile adds up to 0
    for tile in candidates:
        reached |= (reached << (stride + tile.low + tile.high)) & keep
    return bool(reached >> (count * stride + pips) & 1)


_NO_TILES: frozenset[Tile] = frozenset()

_PASSES = tuple(Pass(seat) for seat in range(SEATS))
"""The five possible passes: moves are immutable values, so a round reuses them."""

_PLAYS: dict[tuple[int, int, int | None], Play] = {}
"""Plays made so far, by (seat, tile bit, on): at most 5 × 28 × 8 immutable values, reused
rather than built at every move (a frozen dataclass costs more to build than to look up)."""


def _play_of(seat: int, tile: Tile, on: int | None) -> Play:
    """``Play(seat, tile, on)``, the same object every time (plays are immutable values)."""
    key = (seat, tile.bit, on)
    play = _PLAYS.get(key)
    if play is None:
        play = _PLAYS[key] = Play(seat, tile, on)
    return play


_WRITTEN: tuple[dict[int | None, dict[str, Play]], ...] = tuple(
    {
        on: {
            text: _play_of(seat, tile, on)
            for text, tile in TILE_SPELLINGS.items()
            if on is None or tile.carries(on)
        }
        for on in (None, *range(HIGHEST_VALUE + 1))
    }
    for seat in range(SEATS)
)
"""``_WRITTEN[seat][on][text]``: the play of the tile written ``text`` by ``seat`` on the
end showing ``on`` (``None`` when not said), for each tile that carries ``on``, for
``Round.run``: 5 seats × (168 + 7 × 39) spellings, 385 distinct plays."""

_PLAYS_ON: tuple[tuple[dict[int, Play], ...], ...] = tuple(
    tuple(
        {tile.bit: _play_of(seat, tile, on) for tile in ALL_TILES if tile.carries(on)}
        for on in range(HIGHEST_VALUE + 1)
    )
    for seat in range(SEATS)
)
"""``_PLAYS_ON[seat][on][tile.bit]``: the play of that tile by ``seat`` on the end showing
``on``, for each tile that carries ``on`` (``legal_moves``)."""

_NEXT_SEAT = tuple(next_seat(seat) for seat in range(SEATS))
"""``_NEXT_SEAT[seat]``: the seat after it, clockwise (R8)."""

_CAPPU: tuple[dict[Finish, RoundOutcome], ...] = tuple(
    {
        finish: RoundOutcome(
            ending=Ending.CAPPU,
            finish=finish,
            first_cappu=seat,
            cucuq=seat_before(seat),
            winner=seat,  # R21
        )
        for finish in Finish
    }
    for seat in range(SEATS)
)
"""The outcome of a FIRST CAPPU by each seat with each finish (outcomes are immutable)."""

_BLOCKED = tuple(RoundOutcome(ending=Ending.BLOCKED, manguno=seat) for seat in range(SEATS))
"""The outcome of a round blocked by each seat's closing pass, before the reveals (R17)."""


def _first_cappu(seat: int, tile: Tile, left: int, right: int) -> RoundOutcome:
    """The round's outcome when ``seat`` played its last tile, ``tile``, leaving the open
    ends ``left`` and ``right``: FIRST CAPPU (R14), CEKI (R15) or POLLO (R16)."""
    finish = Finish.PLAIN
    if left == right:  # R13 MAPPAKULING: a double only if both ends showed it
        finish = Finish.POLLO if tile.low == tile.high else Finish.CEKI
    return _CAPPU[seat][finish]


def _get(data: object, key: str) -> object:
    if type(data) is not dict and not isinstance(data, Mapping):
        raise RecordInvalid(gettext_noop("a move must be an object"), rule="R3")
    return data.get(key)


def move_parts(raw: Move | Mapping[str, Any]) -> tuple[str, object, int | None]:
    """Split a move into (``"play"``/``"pass"``, raw tile, on), or raise ``record_invalid``."""
    if type(raw) is not dict:
        if isinstance(raw, Play):
            return "play", raw.tile, raw.on
        if isinstance(raw, Pass):
            return "pass", None, None
    if not _MOVE_KEYS.issuperset(raw):
        unknown = sorted(set(raw) - _MOVE_KEYS)
        raise RecordInvalid(gettext_noop("a move has no field %(key)s"), key=unknown[0])
    if "pass" in raw:
        if raw["pass"] is not True or "tile" in raw or "on" in raw:
            raise RecordInvalid(
                gettext_noop('a pass is {"seat": s, "pass": true} with no tile or on')
            )
        return "pass", None, None
    if "tile" not in raw:
        raise RecordInvalid(gettext_noop("a move is either a play (with a tile) or a pass"))
    on = raw.get("on")
    if on is not None and type(on) is not int:
        raise RecordInvalid(
            gettext_noop("on must be the whole-number value of an open end"), rule="R11"
        )
    return "play", raw["tile"], on
