"""A seat's own hand on its phone (R31): declare it privately, then see what it can play.

Only a phone joined to one seat declares that seat's five tiles, with the same
28-tile picker as a reveal; the state gives a declared hand to that phone alone
(``referee.selectors.game_state``: its seat *and* its token), so nothing here
can draw another seat's hand, and no other page, poll or API answer carries it.
Once declared, the phone lists its five tiles, each labelled in words and with
a sign — playable now (✓), played (●), not playable now (–) — not by a shade of
grey alone. The hand is changed from the same phone (an amendment judged as a
replay, R37) or taken back with "Undo the last entry" while it is the last one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django import forms as django_forms
from django.http import HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from referee import services
from referee.engine import RefereeError, RuleSet, Tile
from referee.exceptions import SeatNotAllowed, ServiceError
from referee.idempotency import Replay
from referee.middleware import checks_conditions
from referee.models import Event, Game, TableToken
from referee.services import Actor, Submitted
from referee.services.corrections import Corrected
from referee.web import forms, views
from referee.web.selectors import TILE_NAMES, Domino, PickerTile
from referee.web.session import session_token


class HandForm(forms._WriteForm):
    """Five distinct tiles of this phone's seat (R31); ``position`` amends the declared one."""

    tiles = django_forms.MultipleChoiceField(choices=forms.TILE_CHOICES)
    position = django_forms.IntegerField(
        min_value=0, required=False, widget=django_forms.HiddenInput
    )

    def clean_tiles(self) -> list[str]:
        tiles = list(self.cleaned_data["tiles"])
        if len(set(tiles)) != 5:
            raise django_forms.ValidationError(
                gettext("Tick exactly five tiles: your hand for this round (R31)."),
                code="hand_not_five",
            )
        return tiles


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
            PickerTile(domino=_domino(name), state="play", checked=name in chosen)
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


def _domino(name: str) -> Domino:
    low, high = (int(v) for v in name.split("-"))
    return Domino(name=name, first=low, second=high)


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
            doubles = [str(t) for t in RuleSet.from_dict(game.rules).first_lead_doubles]
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
        tiles.append(HandTile(domino=_domino(name), state=state_))
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


# -- the tap ------------------------------------------------------------------------------


@checks_conditions
@require_POST
@views.database_unavailable_as_503
def declare(request: Any) -> HttpResponse:
    """Declare this phone's seat's hand (R31), or amend it (``position``: R37).

    Only a phone joined to a seat: a scorekeeper's page has no such form and its
    post is ``seat_not_allowed``. A refused hand is drawn again with its ticks.
    """
    token = session_token(request)
    if token is None:
        return views._gone(request)
    form = HandForm(request.POST)
    ticked = frozenset(request.POST.getlist("tiles"))
    if not form.is_valid():
        return views._answer(
            request, token, views._form_refusal(form), 400, declare=True, ticked=ticked
        )
    data = form.cleaned_data
    payload = {"seat": token.seat, "tiles": list(data["tiles"])}
    tap = gettext("your hand")
    try:
        if token.seat is None:
            raise SeatNotAllowed(
                gettext("Only a phone joined to this seat may declare its hand (R31).")
            )
        result = _write(request, token, data, payload)
    except (RefereeError, ServiceError) as error:
        flash, status = views._refusal(error, token, tap)
        keep: dict[str, Any] = (
            {"declare": True, "ticked": ticked} if status in {400, 403, 422} else {}
        )
        return views._answer(request, token, flash, status, **keep)
    if (refused := views._replayed_refusal(result)) is not None:
        flash, status = refused
        return views._answer(request, token, flash, status, declare=True, ticked=ticked)
    flash = views._flash("ok", gettext("Your hand is entered. Only this phone shows it."))
    if isinstance(result, Replay):
        flash = views._accepted(result)
    status = 201 if data.get("position") is None else 200
    return views._answer(request, token, flash, status, state=views._fresh_state(result))


def _write(
    request: Any, token: TableToken, data: dict[str, Any], payload: dict[str, Any]
) -> Submitted | Corrected | Replay:
    precondition = views._precondition(request, data)
    position = data.get("position")
    body = {"kind": "hand", "payload": payload, "position": position}
    idempotency = views._idempotency(request, data, body)
    if position is None:
        return services.event_submit(
            game_id=token.game_id,
            kind="hand",
            payload=payload,
            actor=Actor(token=token),
            precondition=precondition,
            idempotency=idempotency,
        )
    return services.event_amend(
        game_id=token.game_id,
        position=position,
        payload=payload,
        actor=Actor(token=token),
        precondition=precondition,
        idempotency=idempotency,
        reason="hand changed on the seat's phone",
    )
