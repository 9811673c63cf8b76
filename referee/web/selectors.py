"""What the phone page shows: a stored game's state laid out for a phone (reads only).

``table_page`` takes ``referee.selectors.game_state_for`` — the state every
table sees — and turns it into drawable pieces: the chain as dominoes with its
two open ends marked, the 28-tile picker (tiles already played and tiles that
cannot be played now are disabled, from the state's ``playable``), the seats,
the last events with their named outcomes and the banner of a finished round
(``referee.web.panels``, with the seat's own hand and the round's verification),
the tiles drawn by ``referee.web.pieces``. Seats are 0–4, tiles ``a-b``, stones whole
numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from referee import selectors
from referee.engine import Tile
from referee.models import Game, TableToken
from referee.store import CorrectionNotice, rule_set, rules_of, state_of
from referee.web.panels import (
    HandPanel,
    event_view,
    hand_panel,
    narrow_to_hand,
    round_banner,
    round_summary,
    seat_view,
)
from referee.web.pieces import TILE_NAMES, Domino, PickerTile


@dataclass
class TablePage:
    """Everything the table partial draws; ``state`` is ``game_state_for``'s dict."""

    game: Game
    state: dict[str, Any]
    my_seat: int | None
    seats: list[dict[str, Any]]
    chain: list[Domino]
    picker: list[PickerTile]
    events: list[dict[str, Any]]
    banner: dict[str, Any] | None
    can_move: bool
    can_pass: bool
    move_seat: int | None
    reveal_seats: list[dict[str, Any]]
    undo_event: dict[str, Any] | None
    pick: PickerTile | None = None
    reveal: dict[str, Any] | None = None
    confirm_undo: bool = False
    computer_move: dict[str, Any] | None = None
    hand: HandPanel | None = None  # this seat's own hand (R31)
    # Until the next lead, the finished round's chain stays for the table to check: the
    # number of that round (``chain`` is then its chain), else ``None`` (issue 28).
    ended_chain_of: int | None = None
    # The organiser's corrections of a round every phone is told of until the next round
    # begins or this phone dismisses them (``correction_notices``, issue 28), newest first.
    notices: list[dict[str, Any]] = field(default_factory=list)

    @property
    def notices_seen(self) -> int:
        """The newest correction the notices shown tell of: what "Dismiss" dismisses."""
        return max((n["correction"] for n in self.notices), default=0)

    @property
    def mode_query(self) -> str:
        """The mode this page is in, as the poll's query (``&pick=1-5&seat=2``…): a live
        update re-checks it at the new version instead of dropping it."""
        if self.pick is not None:
            seat = "" if self.move_seat is None else f"&seat={self.move_seat}"
            return f"&pick={self.pick.domino.name}{seat}"
        if self.confirm_undo:
            return "&confirm=undo"
        if self.reveal is not None:
            return f"&reveal={self.reveal['seat']['seat']}"
        if self.hand is not None and self.hand.declaring:
            return "&declare=1"
        return ""

    @property
    def move_name(self) -> str:
        """The name of the seat a tap enters a move for ("" before the game's first lead)."""
        return str(self.seats[self.move_seat]["name"]) if self.move_seat is not None else ""

    @property
    def entry_signature(self) -> str:
        """What a tap in the entry section means now: which mode, for which seat, which tiles.

        The page's script compares it before and after a live update: when it changed,
        taps are held for a moment, so nothing under a finger changes meaning unseen.
        """
        if self.pick is not None:
            mode = f"pick:{self.pick.domino.name}:{self.pick.ends}"
        elif self.confirm_undo and self.undo_event is not None:
            mode = f"undo:{self.undo_event['position']}"
        elif self.reveal is not None:
            mode = f"reveal:{self.reveal['seat']['seat']}"
        elif self.hand is not None and self.hand.declaring:
            mode = "declare"
        else:
            mode = "reveal-seats" if self.reveal_seats else "picker"
        tiles = ",".join(f"{t.domino.name}={t.state}" for t in self.picker if t.enabled)
        # A correction's notice comes or goes above the tiles: what is under a finger moves.
        notices = ",".join(str(n["correction"]) for n in self.notices)
        return f"{mode}|{self.move_seat}|{self.can_pass}|{tiles}|{notices}"

    @property
    def round_summary(self) -> dict[str, Any] | None:
        """The last settled round's verification on this phone (issue 11)."""
        return round_summary(self)

    @property
    def me(self) -> dict[str, Any] | None:
        """This phone's seat, or ``None`` for the scorekeeper of the whole table."""
        return self.seats[self.my_seat] if self.my_seat is not None else None

    @property
    def first_lead(self) -> tuple[str, str]:
        """The game's first-lead double and, joined, the ones that lead if it sleeps (R5, R40)."""
        doubles = [str(tile) for tile in rules_of(self.game).first_lead_doubles]
        return doubles[0], ", ".join(doubles[1:])

    @property
    def status(self) -> str:
        return str(self.state["round"]["status"])

    @property
    def turn_seat(self) -> dict[str, Any] | None:
        turn = self.state["turn"]
        return self.seats[turn] if turn is not None else None

    @property
    def ends(self) -> list[int] | None:
        ends = self.state["round"]["ends"]
        return list(ends) if ends is not None else None


def table_page(
    token: TableToken,
    *,
    pick: str | None = None,
    reveal: int | None = None,
    confirm_undo: bool = False,
    ticked: frozenset[str] = frozenset(),
    pips: str = "",
    state: dict[str, Any] | None = None,
    declare: bool = False,
) -> TablePage:
    """The page of ``token``'s game as that phone sees it (its seat, or the scorekeeper).

    ``pick`` is a tile tapped once that needs a second tap (an end or the
    leading seat); ``reveal`` the seat whose remaining tiles are being entered
    at a blocked round, with the tiles already ``ticked`` on its form (kept when
    a live update or a refusal redraws it, like the typed ``pips``); ``confirm_undo``
    asks before undoing; ``declare`` opens this seat's hand picker (R31, with the
    ``ticked`` tiles).
    A ``pick`` or ``reveal`` that the state no longer allows is dropped.
    ``state``: the game's state as this phone sees it, when the caller has it already (a
    tap's answer from ``services.event_submit``): then the page costs no query or fold.
    Without it the page shows the game as of the row ``token.game`` holds (a request
    reads it afresh; a caller that wrote since refreshes it first).
    """
    game = token.game
    if state is None:
        state = selectors.game_state_for(game, viewer=token.seat, viewer_label=token.actor)
    rnd = state["round"]
    my_seat = token.seat
    is_open = state["status"] == Game.Status.OPEN
    status = rnd["status"]
    turn = state["turn"]
    seats = [seat_view(seat, state, my_seat) for seat in state["seats"]]

    first_lead = status == "awaiting_lead" and turn is None
    mine = my_seat is None or turn == my_seat or (first_lead and my_seat is not None)
    can_move = is_open and status in {"awaiting_lead", "in_play"} and mine
    move_seat = turn if turn is not None else my_seat
    # The game's first lead names its seat with a second tap, unless this phone is a seat's.
    picker_tiles = _picker(
        state,
        game.rules,
        can_move=can_move,
        choose_seat=first_lead and my_seat is None,
        seats=seats,
    )
    picked = next(
        (t for t in picker_tiles if t.domino.name == pick and t.state.startswith("choose_")),
        None,
    )

    reveal_seats = []
    if is_open and status == "awaiting_reveals":
        reveal_seats = [s for s in rnd["awaiting_reveal"] if my_seat is None or s == my_seat]
    reveal_view = None
    if reveal is not None and reveal in reveal_seats:
        reveal_view = _reveal_view(state, reveal, seats, ticked)
        reveal_view["pips"] = pips if pips.isdigit() else ""
    reveal_seat_views = [seats[s] for s in reveal_seats]

    last = state["last_events"][-1] if state["last_events"] else None
    undo_event = None
    if is_open and last is not None and (my_seat is None or last.get("seat") == my_seat):
        undo_event = event_view(last, seats)

    hand = hand_panel(game, state, my_seat, declare=declare, ticked=ticked)
    may_pass = narrow_to_hand(picker_tiles, hand, move_seat=move_seat)  # R31
    chain, ended_chain_of = rnd["chain"], None
    previous = rnd.get("previous") or {}
    if not chain and status == "awaiting_lead" and previous.get("chain"):
        chain, ended_chain_of = previous["chain"], previous["number"]
    return TablePage(
        game=game,
        state=state,
        my_seat=my_seat,
        seats=seats,
        chain=_chain(chain),
        ended_chain_of=ended_chain_of,
        picker=picker_tiles,
        events=[event_view(event, seats) for event in reversed(state["last_events"])],
        banner=round_banner(state, seats, rules_of(game)),
        can_move=can_move,
        can_pass=can_move and status == "in_play" and may_pass,
        move_seat=move_seat,
        reveal_seats=reveal_seat_views,
        undo_event=undo_event,
        pick=picked,
        reveal=reveal_view,
        confirm_undo=confirm_undo and undo_event is not None,
        computer_move=_computer_move(last, state),
        hand=hand,
        notices=correction_notices(game, state, seats, seen=token.notice_seen),
    )


def correction_notices(
    game: Game, state: dict[str, Any], seats: list[dict[str, Any]], *, seen: int = 0
) -> list[dict[str, Any]]:
    """The organiser's corrections of a round (R35–R37) a phone is told of, newest first:
    each shown until the lead of the next round to begin after it, or until this phone
    dismissed it (``seen``: the newest correction dismissed). Each is ``{"correction",
    "round", "kind", "text", "changes": [{"seat", "name", "before", "after"}]}`` with the
    seats whose stones changed, in the table's words ("Round 2 corrected: Daeng 3 → 5.")."""
    rnd = state["round"]
    number, led = int(rnd["number"]), rnd["status"] != "awaiting_lead"
    shown = []
    for data in reversed(state_of(game).notices):
        notice = CorrectionNotice.from_json(data)
        if notice.correction <= seen or not notice.is_shown(number, led=led):
            continue
        changes = [
            {"seat": seat, "name": seats[seat]["name"], "before": old, "after": new}
            for seat, (old, new) in enumerate(zip(notice.before, notice.after, strict=True))
            if old != new and seat < len(seats)
        ]
        shown.append(
            {
                "correction": notice.correction,
                "round": notice.round,
                "kind": notice.kind,
                "changes": changes,
                "text": _notice_text(notice.kind, notice.round, changes),
            }
        )
    return shown


def _notice_text(kind: str, number: int, changes: list[dict[str, Any]]) -> str:
    """ "Round 2 corrected: Daeng 3 → 5, Evi 7 → 5." in the page's language."""
    stones = ", ".join(f"{c['name']} {c['before']} → {c['after']}" for c in changes)
    if kind == "voided":
        text = (
            gettext("Round %(number)s voided: %(stones)s.")
            if changes
            else gettext("Round %(number)s voided: no seat's stones changed.")
        )
    elif kind == "adjusted":
        text = (
            gettext("Round %(number)s adjusted: %(stones)s.")
            if changes
            else gettext("Round %(number)s adjusted: no seat's stones changed.")
        )
    else:
        text = (
            gettext("Round %(number)s corrected: %(stones)s.")
            if changes
            else gettext("Round %(number)s corrected: no seat's stones changed.")
        )
    return text % {"number": number, "stones": stones}


def _computer_move(last: dict[str, Any] | None, state: dict[str, Any]) -> dict[str, Any] | None:
    """The move a computer seat just made, for a person to place (R39): the latest event
    when it is a play or pass of a seat the computer plays; else ``None``."""
    if last is None or last["kind"] != "move":
        return None
    seat = last.get("seat")
    computers = [s["seat"] for s in state["seats"] if s.get("computer")]
    if seat not in computers:
        return None
    return {"seat": seat, "tile": last.get("tile"), "on": last.get("on"), "pass": last.get("pass")}


def _chain(chain: list[str]) -> list[Domino]:
    dominoes = []
    for index, laid in enumerate(chain):
        first, second = (int(v) for v in laid.split("-"))
        dominoes.append(
            Domino(
                name=str(Tile.parse(laid)),
                first=first,
                second=second,
                first_is_end=index == 0,
                second_is_end=index == len(chain) - 1,
            )
        )
    return dominoes


def _sleeping(state: dict[str, Any], rules: dict[str, Any]) -> set[str]:
    """The tiles the game's first lead asserted sleeping (R5): the first-lead doubles
    listed before the one led, which is the first of them on the chain."""
    rnd = state["round"]
    if rnd["number"] != 1 or not rnd["chain"]:
        return set()
    chain = {str(Tile.parse(t)) for t in rnd["chain"]}
    doubles = [str(t) for t in rule_set(rules).first_lead_doubles]
    led = next((index for index, name in enumerate(doubles) if name in chain), 0)
    return set(doubles[:led])


def _why_not(
    name: str,
    state_: str,
    *,
    sleeping: set[str],
    passed_on: set[int],
    turn_seat: dict[str, Any] | None,
) -> str:
    """Why a greyed-out tile cannot be tapped now, in the table's words (shown on a tap)."""
    low, high = (int(v) for v in name.split("-"))
    if state_ == "played":
        return gettext("%(tile)s is already on the table this round.") % {"tile": name}
    if name in sleeping:
        return gettext("%(tile)s sleeps: the first lead asserted it was not dealt (R5).") % {
            "tile": name
        }
    if turn_seat is not None and ({low, high} & passed_on):
        values = ", ".join(str(v) for v in sorted({low, high} & passed_on))
        return gettext(
            "%(name)s passed when %(values)s was open, so cannot hold %(tile)s (R32)."
        ) % {"name": turn_seat["name"], "values": values, "tile": name}
    return ""


def _picker(
    state: dict[str, Any],
    rules: dict[str, Any],
    *,
    can_move: bool,
    choose_seat: bool,
    seats: list[dict[str, Any]] | None = None,
) -> list[PickerTile]:
    """The 28 tiles with what a tap does now (``playable`` for plays; R5/R6 for a lead).

    A tile that cannot be tapped says why when it can (``why``): already played,
    asserted sleeping by the first lead (R5), or carrying a value the seat to
    play passed on earlier in the round (R32).
    """
    rnd = state["round"]
    played = {str(Tile.parse(t)) for t in rnd["chain"]}
    turn = state["turn"]
    turn_seat = seats[turn] if seats is not None and turn is not None else None
    passed_on = set(state["seats"][turn]["passed_on"]) if turn is not None else set()
    sleeping = _sleeping(state, rules)
    fits: dict[str, list[int]] = {}
    for value, tiles in rnd["playable"].items():
        for name in tiles:
            fits.setdefault(name, []).append(int(value))
    leads: set[str] = set()
    if rnd["status"] == "awaiting_lead":
        if rnd["number"] == 1:  # the game's first lead: a first-lead double (R5, R40)
            leads = {str(t) for t in rule_set(rules).first_lead_doubles}
        else:  # a later lead: any tile (R6)
            leads = set(TILE_NAMES)
    tiles = []
    for name in TILE_NAMES:
        low, high = (int(v) for v in name.split("-"))
        domino = Domino(name=name, first=low, second=high)
        ends = sorted(fits.get(name, []))
        if name in played:
            state_ = "played"
        elif not can_move:
            state_ = "blocked"
        elif rnd["status"] == "awaiting_lead":
            if name not in leads:
                state_ = "blocked"
            else:
                state_ = "choose_seat" if choose_seat else "play"
        elif not ends:
            state_ = "blocked"
        elif len(ends) > 1:  # fits two open ends of different values: say which (R11)
            state_ = "choose_end"
        else:
            state_ = "play"
        why = ""
        if state_ in {"played", "blocked"} and rnd["status"] == "in_play":
            why = _why_not(
                name, state_, sleeping=sleeping, passed_on=passed_on, turn_seat=turn_seat
            )
        tiles.append(PickerTile(domino=domino, state=state_, ends=ends, why=why))
    return tiles


def _reveal_view(
    state: dict[str, Any],
    seat: int,
    seats: list[dict[str, Any]],
    ticked: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The reveal screen of one seat at a blocked round (R18, R33).

    Tiles played this round (``played``) and tiles carrying a final open end's
    value or a value the seat passed on (``impossible``: everyone passed on the
    ends, R33/R32) are disabled; the referee checks the rest. ``ticked`` tiles that may still be
    revealed are drawn ticked.
    """
    rnd = state["round"]
    played = {str(Tile.parse(t)) for t in rnd["chain"]}
    excluded_values = set(rnd["ends"] or []) | set(state["seats"][seat]["passed_on"])
    tiles = []
    for name in TILE_NAMES:
        low, high = (int(v) for v in name.split("-"))
        possible = name not in played and not ({low, high} & excluded_values)
        domino = Domino(name=name, first=low, second=high)
        tiles.append(
            PickerTile(
                domino=domino,
                state="play" if possible else "played" if name in played else "impossible",
                checked=possible and name in ticked,
            )
        )
    return {
        "seat": seats[seat],
        "count": state["seats"][seat]["tiles_left"],
        "tiles": tiles,
    }
