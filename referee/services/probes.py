"""Probes of declared hands (R31): refusals and undos whose answer depends on hidden tiles.

A declared hand (R31) is read by no one but its seat's phone before its round is over.
A refused event or an undone move whose answer depends on another seat's declared hand
tells the one who sent it something about that hand: a probe. Each is counted
(``count_probe``): a phone on its table token's row and on the rows of every token its
client joined (``probe_siblings``), an organiser in Django's cache (the fixed window of
``referee.lockouts``). At ``TABLE_PROBE_LIMIT`` probes within ``TABLE_PROBE_SECONDS``
the organiser and the seats concerned get a ``TableAlert``, and every further write of
that client is ``probe_limited`` (429, ``retry_after``) until the window ends
(``check_probe_limit``).
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from referee import lockouts
from referee.exceptions import ProbeLimited
from referee.models import Event, Game, TableAlert, TableToken
from referee.services.guard import Actor


def check_probe_limit(actor: Actor, game_id: Any = None) -> None:
    """Raise ``probe_limited`` (429, ``retry_after``) for a token whose client probed declared
    hands ``TABLE_PROBE_LIMIT`` times within ``TABLE_PROBE_SECONDS``, from this token or
    another it joined (R31; read from the token's row, which authenticating it loaded: no
    query, since ``count_probe`` and ``table_join`` keep the client's window on each
    row). An organiser (a signed-in user, who may not read a declared hand either, R31) is
    counted per game in Django's cache: ``game_id``."""
    token = actor.token
    if token is None:
        if game_id is None or actor.user is None or not actor.user.is_authenticated:
            return
        seconds = lockouts.window_left(
            _organiser_probe_key(game_id, actor.user), settings.TABLE_PROBE_LIMIT
        )
        if seconds is not None:
            raise ProbeLimited(
                gettext(
                    "Too many refused or undone moves against declared hands from this "
                    "organiser: try again later. The seats concerned have been told."
                ),
                retry_after=seconds,
            )
        return
    if token.probes < settings.TABLE_PROBE_LIMIT:
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
    among the other joins without one. The address is deliberately not shared with the
    joins that sent a cookie: at a club every phone may reach the referee through one
    address (the Wi-Fi's NAT, a proxy), and a phone joining there must not start limited
    because another phone probed. The price: a client that throws away every cookie it
    is given and joins from new addresses starts a fresh count each time; it still stops
    at ``TABLE_PROBE_LIMIT`` per identity, and each time the organiser and the probed
    seats get an alert naming its token.
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
    of the tokens its client joined before (R31), if any: one query, at the join only."""
    window = (
        probe_siblings(token)
        .filter(probes_until__gt=timezone.now())
        .order_by("-probes")
        .values_list("probes", "probes_until")
        .first()
    )
    if window is not None:
        token.probes, token.probes_until = window


def _organiser_probe_key(game_id: Any, user: Any) -> str:
    return f"referee-probes:{game_id}:{user.pk}"


def _count_organiser_probe(game: Game, actor: Actor) -> int:
    """Count an organiser's probe of ``game``'s declared hands (R31) in Django's cache, over
    a window of ``TABLE_PROBE_SECONDS`` from the first; the count so far."""
    key = _organiser_probe_key(game.pk, actor.user)
    return lockouts.window_add(key, settings.TABLE_PROBE_SECONDS)


def count_probe(game: Game, actor: Actor, kind: str, seats: list[int]) -> None:
    """Count a refusal against declared hands or an undo of another seat's move while that
    seat's hand is declared (the game's lock is held); at the limit, alert the organiser
    and the seats concerned. A phone counts on its token's row and on the rows of every
    token its client joined (``probe_siblings``), so a second token or a new one joined
    later is limited with it; an organiser counts in the cache."""
    token = actor.token
    if not seats:
        return
    if token is None:
        if actor.user is None or not actor.user.is_authenticated:
            return
        count = _count_organiser_probe(game, actor)
    else:
        token.refresh_from_db(fields=["probes", "probes_until"])
        now = timezone.now()
        if token.probes_until is None or token.probes_until <= now:
            token.probes = 0
            token.probes_until = now + timedelta(seconds=settings.TABLE_PROBE_SECONDS)
        token.probes += 1
        # The same window on every token of the client (R31): the move path keeps reading
        # its own token's row only.
        probe_siblings(token).update(probes=token.probes, probes_until=token.probes_until)
        count = token.probes
    if count == settings.TABLE_PROBE_LIMIT:
        TableAlert.objects.create(
            game=game,
            kind=kind,
            entered_by=actor.label,
            seats=sorted(set(seats)),
            count=count,
        )


def declared_seats(events: list[Event], *, besides: int | None) -> list[int]:
    """The seats with a live declared hand among ``events``, other than ``besides``."""
    return [
        e.payload["seat"]
        for e in events
        if e.kind == Event.Kind.HAND and e.payload.get("seat") != besides
    ]


def may_correct_hand(actor: Actor, hand: Event) -> bool:
    """A declared hand is undone or amended by the phone that declared it, or by the
    organiser through a logged correction (who never reads it before the round ends, R31)."""
    if actor.token is not None:
        return hand.entered_by == actor.label
    return actor.user is not None and actor.user.is_authenticated
