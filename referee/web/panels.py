"""The read panels the pages share: a seat, an event and a finished round's banner as the
table, the organiser's pages and the room view draw them; a seat's own hand (R31); the
last settled round's verification on a phone and the game's verifications on the
organiser's page (issue 11). Reads only; the table page (``referee.web.selectors``) is
built from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext, pgettext

from referee.engine import RuleSet, Tile
from referee.engine.outcome import Ending, Finish, RoundOutcome, award_terms
from referee.models import Event, Game, RoundVerification, TableAlert
from referee.selectors import cached_verification
from referee.services import verification
from referee.store import rules_of
from referee.web.pieces import TILE_NAMES, Domino, PickerTile, domino

# The table's words for why stones moved (a transfer's ``reason``): never translated.
REASON_WORDS = {
    "pass": "PASS",
    "passebunge": "PASSEBUNGE",
    "cappu": "FIRST CAPPU",  # shown like the badge: pgettext("named outcome", …)
    "ceki": "CEKI",
    "pollo": "POLLO",
    "manguno": "MANGUNO",
    "mattikkeng": "MATTIKKENG",
}
# Named outcomes called out loud at the table: shown with an exclamation mark.
SHOUTED = frozenset({"CEKI", "POLLO", "MANGUNO", "MATTIKKENG", "CAMAT"})
_SEAT_OF_TOKEN = re.compile(r"\(seat ([0-4])\)$")


# -- seats, events, banners -----------------------------------------------------------------


def seat_view(seat: dict[str, Any], state: dict[str, Any], my_seat: int | None) -> dict[str, Any]:
    """A seat of the state as a page draws it: its tiles left, whether it is to move and
    whether it is this phone's."""
    # Before a round's lead every seat holds a new hand of 5 (R4); the state still counts
    # the finished round's tiles, which its banner shows.
    tiles_left = 5 if state["round"]["status"] == "awaiting_lead" else seat["tiles_left"]
    return {
        **seat,
        "tiles_left": tiles_left,
        "is_turn": state["turn"] == seat["seat"] and state["round"]["status"] != "awaiting_reveals",
        "is_me": my_seat == seat["seat"],
        "left_range": range(tiles_left),
    }


def _who(seat: int | None, seats: list[dict[str, Any]]) -> dict[str, Any] | None:
    return seats[seat] if seat is not None and 0 <= seat < len(seats) else None


def _transfers(transfers: list[dict[str, Any]], seats: list[dict[str, Any]]) -> list[dict]:
    # An adjustment (R36) may give stones back to the table.
    table = {"name": pgettext("stones given back", "the table")}
    return [
        {
            "to": table if t["to"] == "table" else _who(t["to"], seats),
            "source": None if t["from"] == "table" else _who(t["from"], seats),
            "stones": t["stones"],
            "reason": reason_text(t["reason"]),
        }
        for t in transfers
    ]


def reason_text(reason: str) -> str:
    """Why stones moved (a transfer's ``reason``, R23/R36) in the page's words: the game's
    own names as they are, PASS, FIRST CAPPU and an adjustment translated."""
    if reason == "adjustment":
        return gettext("adjustment")
    return str(_named(REASON_WORDS.get(reason, reason.upper()))["text"])


def event_view(event: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, Any]:
    """An event of the state's ``last_events`` as a page lists it, with who and named words."""
    if event["kind"] == "move":
        kind = "pass" if event.get("pass") else "play"
    elif event["kind"] == "reveal":
        kind = "reveal_pips" if "pips" in event else "reveal_tiles"
    else:
        kind = event["kind"]
    return {
        **event,
        "what": kind,
        "who": _who(event.get("seat"), seats),
        "named_words": [_named(word) for word in event["named"]],
        "transfer_views": _transfers(event["transfers"], seats),
        "tiles_text": ", ".join(event.get("tiles") or []),
    }


def _named(word: str) -> dict[str, Any]:
    """A named outcome: the game's own words stay as they are; PASS and FIRST are English."""
    text = {
        "PASS": pgettext("named outcome", "PASS"),
        "FIRST CAPPU": pgettext("named outcome", "FIRST CAPPU"),
    }.get(word, word)
    return {"word": word, "text": text, "shout": word in SHOUTED}


def round_banner(
    state: dict[str, Any], seats: list[dict[str, Any]], rules: RuleSet
) -> dict[str, Any] | None:
    """A finished round's named outcomes, or the MANGUNO of a round waiting for reveals.

    ``rules``: the game's stakes (R40), to tell an award unpaid (``unpaid``) or paid only
    in part (``short``, R23)."""
    rnd = state["round"]
    outcome = rnd.get("previous") if rnd["status"] == "awaiting_lead" else rnd.get("outcome")
    if not outcome:
        return None
    named = list(outcome["named"])
    paid = _award_paid(outcome, rules)
    if outcome.get("camat_elected") is not None:
        named.append("CAMAT")
    return {
        "settled": outcome["winner"] is not None,
        "number": outcome["number"],
        "named": [_named(word) for word in named],
        "winner": _who(outcome["winner"], seats),
        "first_cappu": _who(outcome["first_cappu"], seats),
        "manguno": _who(outcome["manguno"], seats),
        "cucuq": _who(outcome["cucuq"], seats),
        "mattikkeng": [_who(s, seats) for s in outcome["mattikkeng"]],
        "camat_elected": _who(outcome["camat_elected"], seats),
        "remaining_pips": [
            {"seat": seats[seat], "pips": pips}
            for seat, pips in enumerate(outcome["remaining_pips"] or [])
        ],
        # The round's end award; the passes' stones are with their events.
        "transfers": _transfers([t for t in outcome["transfers"] if t["move"] is None], seats),
        "unpaid": _unpaid(paid, seats),
        "short": _short(paid, seats),
    }


@dataclass(frozen=True)
class _Settled:
    """A settled round's outcome as the state gives it, read as the awards read one."""

    named: tuple[str, ...]
    first_cappu: int | None
    manguno: int | None
    mattikkeng: tuple[int, ...]
    cucuq: int | None
    remaining_pips: tuple[int, ...] | None

    def is_settled(self) -> bool:
        return True


@dataclass(frozen=True)
class AwardPaid:
    """A settled round's end award as paid (R23b–R23d): seat ``to`` (0–4) was owed ``owed``
    whole stones and received ``paid``; what nobody could give lapsed (R23)."""

    to: int
    paid: int
    owed: int

    @property
    def is_unpaid(self) -> bool:
        """Owed but no stone received: the table and every giver had nothing left."""
        return self.paid == 0 < self.owed

    @property
    def is_short(self) -> bool:
        """Some but not all of it received."""
        return 0 < self.paid < self.owed


def award_paid(outcome: Any, transfers: list[dict[str, Any]], rules: RuleSet) -> AwardPaid:
    """How a settled round's end award was paid: its terms from the core (``award_terms``,
    ``outcome`` a settled ``RoundOutcome`` or alike) against the round's ``transfers``
    (record form: ``move`` ``None`` for the end award) under ``rules`` (R40)."""
    award = award_terms(rules, outcome)
    paid = sum(
        t["stones"]
        for t in transfers
        if t["move"] is None and t["reason"] == award.reason and t["to"] == award.to
    )
    return AwardPaid(award.to, paid, award.stones)


def result_award_paid(result: dict[str, Any], rules: RuleSet) -> AwardPaid | None:
    """``award_paid`` of a round as ``domeng-result/1`` gives it (the organiser's round
    page), or ``None`` for a voided round or one not settled."""
    if result.get("void") or result.get("winner") is None or result.get("ending") is None:
        return None
    outcome = RoundOutcome(
        ending=Ending(result["ending"]),
        finish=Finish(result["finish"]) if result.get("finish") else None,
        first_cappu=result.get("first_cappu"),
        manguno=result.get("manguno"),
        mattikkeng=tuple(result.get("mattikkeng") or ()),
        cucuq=result.get("cucuq"),
        winner=result["winner"],
        remaining_pips=tuple(result["remaining_pips"]) if result.get("remaining_pips") else None,
    )
    return award_paid(outcome, result.get("transfers") or [], rules)


def _award_paid(outcome: dict[str, Any], rules: RuleSet) -> AwardPaid | None:
    """The round's end award as paid (R23b–R23d), or ``None`` for a voided round or one
    not settled."""
    if outcome.get("void") or outcome["winner"] is None:
        return None
    settled = _Settled(
        tuple(outcome["named"]),
        outcome["first_cappu"],
        outcome["manguno"],
        tuple(outcome["mattikkeng"]),
        outcome["cucuq"],
        tuple(outcome["remaining_pips"]) if outcome["remaining_pips"] else None,
    )
    return award_paid(settled, outcome["transfers"], rules)


def _unpaid(paid: AwardPaid | None, seats: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Who was owed the round's end award but received no stone (R23: the table and every
    giver had nothing left), or ``None``."""
    if paid is None or not paid.is_unpaid:
        return None
    return _who(paid.to, seats)


def _short(paid: AwardPaid | None, seats: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The round's end award when its receiver got some but not all of it (R23):
    ``{"seat", "paid", "owed"}`` in whole stones, else ``None`` (paid in full, wholly
    unpaid — that is ``_unpaid`` — or a voided round)."""
    if paid is None or not paid.is_short:
        return None
    return {"seat": _who(paid.to, seats), "paid": paid.paid, "owed": paid.owed}


# -- a seat's own hand (R31) ----------------------------------------------------------------


@dataclass(frozen=True)
class HandTile:
    """One tile of the seat's declared hand and what it can do now.

    ``state``: ``playable`` (it may be played now), ``played`` (on the table
    this round) or ``held`` (not playable now: wrong values or not this seat's
    turn). ``label`` says it in words; ``sign`` is a glyph for a glance.
    """

    domino: Domino
    state: str

    @property
    def label(self) -> str:
        return {
            "playable": gettext("playable now"),
            "played": gettext("played"),
            "held": gettext("not playable now"),
        }[self.state]

    @property
    def sign(self) -> str:
        return {"playable": "✓", "played": "●", "held": "–"}[self.state]


@dataclass
class HandPanel:
    """What the hand section of a seat's phone draws.

    ``can_declare``: the round has begun for nobody's hand of this seat yet and this
    phone may declare; ``tiles``: the declared hand (``None`` if not declared);
    ``position``: the stored hand event (to amend it); ``declaring``: the picker is
    open, with ``picker`` its 28 tiles (``ticked`` ones checked).
    """

    seat: int
    can_declare: bool
    tiles: list[HandTile] | None = None
    position: int | None = None
    declaring: bool = False
    picker: list[PickerTile] = field(default_factory=list)
    must_pass: bool = False

    @property
    def playable_count(self) -> int:
        return sum(1 for t in self.tiles or () if t.state == "playable")


def _round_begun(state: dict[str, Any]) -> bool:
    """Whether the state's round is the one in progress (not the next round still to be
    led, whose seats' ``has_declared``/``hand`` still describe the finished round)."""
    return "outcome" in state["round"]


def hand_panel(
    game: Game,
    state: dict[str, Any],
    my_seat: int | None,
    *,
    declare: bool = False,
    ticked: frozenset[str] = frozenset(),
) -> HandPanel | None:
    """The hand section of a phone joined to ``my_seat`` (``None`` for a scorekeeper)."""
    if my_seat is None or state["status"] != Game.Status.OPEN:
        return None
    rnd = state["round"]
    begun = _round_begun(state)
    me = state["seats"][my_seat]
    if me.get("computer"):
        return None  # R39: the organiser declares a computer seat's hand
    declared = begun and me["has_declared"]
    hand = me["hand"] if declared else None
    if rnd["status"] == "awaiting_reveals" or (begun and rnd.get("outcome")):
        return None  # the round is over: its banner shows what happened
    if declared and hand is None:
        return None  # declared by an earlier phone of this seat: this phone reads nothing
    can_declare = not declared and (not begun or not me["tiles_played"])
    panel = HandPanel(seat=my_seat, can_declare=can_declare)
    if hand is not None:
        panel.tiles = _hand_tiles(game, state, my_seat, hand)
        panel.position = _hand_position(game, rnd["number"], my_seat)
        my_turn = state["turn"] == my_seat and rnd["status"] == "in_play"
        panel.must_pass = my_turn and panel.playable_count == 0
    if declare and (can_declare or panel.position is not None):
        panel.declaring = True
        chosen = ticked or frozenset(hand or ())
        panel.picker = [
            PickerTile(domino=domino(name), state="play", checked=name in chosen)
            for name in TILE_NAMES
        ]
    return panel


def narrow_to_hand(
    picker: list[PickerTile], panel: HandPanel | None, *, move_seat: int | None
) -> bool:
    """Grey the picker's tiles outside this seat's declared hand while it enters its own
    move, saying why (R31); returns whether PASS stays possible (not while a tile of the
    hand can be played: the referee would refuse the pass, R31)."""
    if panel is None or panel.tiles is None or move_seat != panel.seat:
        return True
    hand = {t.domino.name for t in panel.tiles}
    for tile in picker:
        name = tile.domino.name
        if name not in hand and tile.state != "played":
            tile.state = "blocked"
            tile.why = gettext("%(tile)s is not in your declared hand (R31).") % {"tile": name}
    return panel.playable_count == 0


def _hand_tiles(game: Game, state: dict[str, Any], seat: int, hand: list[str]) -> list[HandTile]:
    """The five tiles of ``seat``'s declared hand, each playable, played or held now."""
    rnd = state["round"]
    played = {str(Tile.parse(t)) for t in state["seats"][seat]["tiles_played"]}
    playable: set[str] = set()
    turn = state["turn"]
    if rnd["status"] == "in_play" and turn == seat:
        playable = {name for tiles in rnd["playable"].values() for name in tiles}
    elif rnd["status"] == "awaiting_lead":
        if rnd["number"] == 1 and turn is None:
            # The game's first lead (R5): the first of the listed doubles this hand holds.
            doubles = [str(t) for t in rules_of(game).first_lead_doubles]
            held = [d for d in doubles if d in hand]
            playable = set(held[:1])
        elif turn == seat:
            playable = set(hand)  # a later lead: any tile (R6)
    tiles = []
    for name in sorted(hand, key=lambda n: TILE_NAMES.index(n)):
        if name in played:
            state_ = "played"
        elif name in playable:
            state_ = "playable"
        else:
            state_ = "held"
        tiles.append(HandTile(domino=domino(name), state=state_))
    return tiles


def _hand_position(game: Game, number: int, seat: int) -> int | None:
    """The position of ``seat``'s live declared hand in round ``number`` (to amend it)."""
    return (
        Event.objects.filter(
            game=game,
            kind=Event.Kind.HAND,
            round_number=number,
            revoked_by__isnull=True,
            payload__seat=seat,
        )
        .values_list("position", flat=True)
        .first()
    )


# -- round verification (issue 11) ----------------------------------------------------------


def round_summary(page: Any) -> dict[str, Any] | None:
    """What the phone draws about the last settled round: its verification in words and
    whether this phone may confirm or dispute it (``None``: no settled round to show).

    Under the banner while the next round waits for its lead; once the next round has
    begun with declared hands but no lead yet, the same block stands alone (read from
    the stored events: the state no longer carries the finished round).
    """
    rnd = page.state["round"]
    previous = rnd.get("previous")
    if previous is not None and previous.get("verification") is not None:
        number = previous["number"]
        data = previous["verification"]
        voided = previous.get("void") is not None
        entered_seat = _last_entry_seat(page.state, number)
        alone = False
    elif "outcome" in rnd and rnd["status"] == "awaiting_lead" and rnd["number"] > 1:
        number = rnd["number"] - 1
        data = cached_verification(page.game, number)
        events = Event.objects.filter(
            game=page.game, round_number=number, revoked_by__isnull=True
        ).order_by("-position")
        voided = events.filter(kind=Event.Kind.VOID).exists()
        last = events.filter(kind__in=[Event.Kind.MOVE, Event.Kind.REVEAL]).first()
        entered_seat = _seat_of(last.entered_by) if last is not None else None
        alone = True
    else:
        return None
    seats = page.seats
    who = seats[data["seat"]] if data.get("seat") is not None else None
    mine = page.my_seat is not None and entered_seat == page.my_seat
    open_game = page.state["status"] == Game.Status.OPEN
    may_verify = open_game and page.my_seat is not None and not voided and not mine
    return {
        "number": number,
        "alone": alone,
        "status": data["status"],
        "who": who,
        "reason": data.get("reason"),
        "resolution": data.get("resolution"),
        "note": data.get("note"),
        "voided": voided,
        "own_entry": mine,
        "can_confirm": may_verify and data["status"] == "unverified",
        "can_dispute": may_verify and data["status"] in {"unverified", "confirmed", "resolved"},
        "reason_max": verification.VERIFICATION_REASON_MAX,
    }


def _seat_of(entered_by: str | None) -> int | None:
    """The seat of the table token that entered an event (``table token 7 (seat 2)``)."""
    match = _SEAT_OF_TOKEN.search(entered_by or "")
    return int(match.group(1)) if match else None


def _last_entry_seat(state: dict[str, Any], number: int) -> int | None:
    """The seat of the phone that entered round ``number``'s last play, pass or reveal."""
    entries = [
        e for e in state["last_events"] if e["round"] == number and e["kind"] in {"move", "reveal"}
    ]
    return _seat_of(entries[-1].get("entered_by")) if entries else None


def verification_context(game: Game) -> dict[str, Any]:
    """The game's rounds that are disputed, and the others' verifications, for its page
    (the organiser's); and its declared hands that share tiles with another seat's (R31:
    the round, the phone that declared it, the seats hit and the tiles shared)."""
    rows = list(game.verifications.order_by("round_number"))
    names = {seat.number: seat.name for seat in game.seats.all()}
    listed = [
        {
            "number": row.round_number,
            "status": row.status,
            "who": names.get(row.seat) if row.seat is not None else None,
            "seat": row.seat,
            "reason": row.reason,
            "resolution": row.resolution,
        }
        for row in rows
        if row.status != RoundVerification.Status.UNVERIFIED
    ]
    shared = [
        {
            "round": alert.round_number,
            "who": alert.entered_by,
            "seats": ", ".join(str(seat) for seat in alert.seats),
            "tiles": ", ".join(alert.tiles),
        }
        for alert in game.alerts.filter(kind=TableAlert.Kind.SHARED)
    ]
    return {
        "disputes": [r for r in listed if r["status"] == RoundVerification.Status.DISPUTED],
        "verifications": listed,
        "shared_hands": shared,  # R31: the organiser's alone, to resolve
    }
