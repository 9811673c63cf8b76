"""Probes of declared hands (R31): refusals and undos whose answer depends on hidden tiles.

A declared hand (R31) is read by no one but its seat's phone before its round is over.
A refused event whose answer depended on another seat's declared hand — the same event
with those hands left out would have been judged otherwise (``depends_on_hands``) — or
an undo of another seat's accepted move while that seat's hand is declared, tells the
phone that sent it something about that hand: a probe. Nothing else is: a refusal of a
duplicate, of a stale view, of the wrong turn, of a tile already played answers the same
whoever declared what, and an identical refusal sent again within the window counts
once (``is_repeat``). A declaration that shares tiles with another seat's hand is
accepted like any other (``Round.declare``'s ``shared``), so it answers no question:
the round's first such hand raises one ``shared`` alert to the organiser and to the
seats it shares tiles with (``note_shared_hand``), and the organiser resolves it.

Each probe is counted (``count_probe``) on the phone's table token and on the rows of
every token its client joined (``probe_siblings``); a client new to the game inherits
the window of its address (``inherit_probes``), so a fresh device cookie buys no fresh
count. At ``TABLE_PROBE_LIMIT`` probes within ``TABLE_PROBE_SECONDS`` the organiser and
the seats concerned get a ``TableAlert``, and every further write of that client is
``probe_limited`` (429, ``retry_after``) until the window ends (``check_probe_limit``).
The organiser (a signed-in user) is never counted: the table's arbiter is shown the
tiles a shared hand shares and the hands of a blocked round, and repairs a game with
undos and corrections whose refusals must never stop it (docs/threat-model.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from referee import folding, store
from referee.engine import RefereeError, RuleSet
from referee.engine.tiles import Tile
from referee.exceptions import ProbeLimited
from referee.models import Event, Game, RefusedEvent, TableAlert, TableToken
from referee.services.guard import Actor, bounded_payload


def check_probe_limit(actor: Actor) -> None:
    """Raise ``probe_limited`` (429, ``retry_after``) for a token whose client probed declared
    hands ``TABLE_PROBE_LIMIT`` times within ``TABLE_PROBE_SECONDS``, from this token or
    another it joined (R31; read from the token's row, which authenticating it loaded: no
    query, since ``count_probe`` and ``table_join`` keep the client's window on each
    row). The organiser is never limited (R31, see the module's docstring)."""
    token = actor.token
    if token is None or token.probes < settings.TABLE_PROBE_LIMIT:
        return
    now = timezone.now()
    if token.probes_until is not None and token.probes_until > now:
        left = (token.probes_until - now).total_seconds()
        raise ProbeLimited(retry_after=max(1, math.ceil(left)))


def probe_siblings(token: TableToken) -> QuerySet[TableToken]:
    """The tokens of ``token``'s game that share its probe window (R31): joined by the same
    client, live or revoked, ``token`` included once saved.

    The same client is the same device, wherever it joins from (a phone moving from the
    club's Wi-Fi to mobile data keeps its count): the signed device cookie a join sent, or
    the one its answer gave a join that sent none (``client_issued``), so a phone whose
    first join had no cookie and whose next one sends the cookie it got is one client
    (QA). A join without a device cookie (a script) is also told apart by its address,
    among the other joins without one. A device new to the game starts from its
    address's window instead (``inherit_probes``).
    A token with none of these (made without a join) keeps a window of its own.
    """
    device = token.client_device or token.client_issued
    same = Q(pk=token.pk) if token.pk is not None else Q(pk__in=[])
    if device:
        same |= Q(client_device=device) | Q(client_issued=device)
    if not token.client_device and token.client_address:
        same |= Q(client_device="", client_address=token.client_address)
    return TableToken.objects.filter(same, game_id=token.game_id)


def inherit_probes(game: Game, token: TableToken) -> None:
    """Give a joining ``token`` (not saved yet, ``game``'s lock held) the live probe window
    of the tokens its client joined before (R31), if any; a client that joined none of
    ``game``'s tokens yet (a device cookie new to the game: a fresh one is one request
    away) the fullest live window of the game's tokens joined from its address, so that
    throwing cookies away buys no fresh count. Two queries, at the join only.

    The price: a phone that joins the game for the first time from the address of a
    client that probed starts with that client's count until its window ends; a phone
    that had joined before keeps its own. An honest phone's count stays at zero (no
    refusal of an honest table depends on another seat's hand), so it is limited only
    if the prober beside it reached the limit in the last ``TABLE_PROBE_SECONDS``.
    """
    live = Q(probes_until__gt=timezone.now())
    siblings = probe_siblings(token)
    if not siblings.exists() and token.client_address:
        siblings = TableToken.objects.filter(
            game_id=token.game_id, client_address=token.client_address
        )
    window = siblings.filter(live).order_by("-probes").values_list("probes", "probes_until").first()
    if window is not None:
        token.probes, token.probes_until = window


def count_probe(
    game: Game, actor: Actor, kind: str, seats: list[int], *, round_number: int | None = None
) -> None:
    """Count a probe of ``seats``' declared hands by ``actor``'s table token (the game's lock
    is held); at the limit, alert the organiser and the seats concerned. A phone counts on
    its token's row and on the rows of every token its client joined
    (``probe_siblings``), so a second token or a new one joined later is limited with
    it. The organiser's acts are never counted (R31). ``round_number``: the round probed,
    which the alert names."""
    token = actor.token
    if not seats or token is None:
        return
    token.refresh_from_db(fields=["probes", "probes_until"])
    now = timezone.now()
    if token.probes_until is None or token.probes_until <= now:
        token.probes = 0
        token.probes_until = now + timedelta(seconds=settings.TABLE_PROBE_SECONDS)
    token.probes += 1
    # The same window on every token of the client (R31): the move path keeps reading
    # its own token's row only.
    probe_siblings(token).update(probes=token.probes, probes_until=token.probes_until)
    if token.probes == settings.TABLE_PROBE_LIMIT:
        TableAlert.objects.create(
            game=game,
            kind=kind,
            entered_by=actor.label,
            seats=sorted(set(seats)),
            count=token.probes,
            round_number=round_number,
        )


def declared_seats(events: Sequence[Any], *, besides: int | None) -> list[int]:
    """The seats with a live declared hand among ``events``, other than ``besides``."""
    return [
        e.payload["seat"]
        for e in events
        if e.kind == Event.Kind.HAND and e.payload.get("seat") != besides
    ]


def without_others_hands(events: Sequence[Any], seat: int | None) -> list[Any]:
    """``events`` less the declared hands of seats other than ``seat`` (R31): what the one
    who sent an event for ``seat`` may know of the round."""
    return [e for e in events if e.kind != Event.Kind.HAND or e.payload.get("seat") == seat]


def same_refusal(error: RefereeError, other: RefereeError) -> bool:
    """Whether two refusals answer the same: code, rule, message and its parameters."""
    return (error.code, error.rule, error.template, error.params) == (
        other.code,
        other.rule,
        other.template,
        other.params,
    )


def depends_on_hands(
    rules: RuleSet,
    current: store.CurrentRound,
    kind: str,
    payload: dict[str, Any],
    seat: int | None,
    error: RefereeError,
) -> bool:
    """Whether ``error``, the refusal of ``(kind, payload)`` entered for ``seat`` in
    ``current``'s round, depended on another seat's declared hand (R31): the same event,
    judged with those hands left out, is accepted or refused otherwise. A round that
    cannot be folded without them counts as depending on them."""
    kept = without_others_hands(current.events, seat)
    if len(kept) == len(current.events):
        return False  # no other seat's hand: nothing hidden to learn
    try:
        pairs = [(e.kind, e.payload) for e in kept]
        engine, _ = folding.fold(rules, pairs, snapshot=current.snapshot)
    except RefereeError:
        return True
    try:
        folding.apply_event(engine, kind, payload)
    except RefereeError as other:
        return not same_refusal(error, other)
    return True


def is_repeat(game: Game, kind: str, payload: Any, actor: Actor, code: str) -> bool:
    """Whether ``actor`` had the same event refused with the same code within the last
    ``TABLE_PROBE_SECONDS`` (a phone resending without an ``Idempotency-Key``): the
    answer is the one it already got, so it is never a second probe (R31). Call it
    before the refusal is logged."""
    since = timezone.now() - timedelta(seconds=settings.TABLE_PROBE_SECONDS)
    return RefusedEvent.objects.filter(
        game=game,
        kind=kind,
        payload=bounded_payload(payload),
        code=code,
        entered_by=actor.label,
        created_at__gte=since,
    ).exists()


def note_shared_hand(game_id: Any, round_number: int) -> TableAlert | None:
    """Raise the round's one ``shared`` alert (R31) if two of its live declared hands share
    tiles and none was raised for it yet: ``entered_by`` the later hand's phone,
    ``seats`` the seats whose earlier hands it shares tiles with, ``tiles`` the tiles
    shared (shown to the organiser alone). Locks the game; a transaction of its own,
    after the declaration's or the correction's (its answer is the same either way). The
    alert, or ``None``."""
    with transaction.atomic():
        game = store.lock(game_id)
        if TableAlert.objects.filter(
            game=game, kind=TableAlert.Kind.SHARED, round_number=round_number
        ).exists():
            return None
        hands = list(
            game.events.filter(
                kind=Event.Kind.HAND, round_number=round_number, revoked_by__isnull=True
            ).order_by("-position")
        )
        for index, later in enumerate(hands):
            tiles = _tiles_of(later)
            seats, shared = set(), set()
            for earlier in hands[index + 1 :]:
                common = tiles & _tiles_of(earlier)
                if common and earlier.payload.get("seat") != later.payload.get("seat"):
                    seats.add(earlier.payload["seat"])
                    shared |= common
            if seats:
                return TableAlert.objects.create(
                    game=game,
                    kind=TableAlert.Kind.SHARED,
                    entered_by=later.entered_by,
                    seats=sorted(seats),
                    count=1,
                    round_number=round_number,
                    tiles=sorted(shared),
                )
    return None


def _tiles_of(hand: Event) -> set[str]:
    """A stored hand's tiles as ``a-b`` (the live fold accepted them: each parses)."""
    return {str(Tile.parse(t)) for t in hand.payload.get("tiles") or []}


def may_correct_hand(actor: Actor, hand: Event) -> bool:
    """A declared hand is undone or amended by the phone that declared it, or by the
    organiser through a logged correction (how a shared hand is resolved, R31)."""
    if actor.token is not None:
        return hand.entered_by == actor.label
    return actor.user is not None and actor.user.is_authenticated
