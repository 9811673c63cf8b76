"""The table's phones: a join code exchanged for a table token, tokens revoked, seats freed.

A phone joins a game with its join code (``table_join``): bound to one seat 0–4, or a
scorekeeper for the whole table. Wrong codes are counted against the one guessing
(``referee.lockouts``: ``join_locked_out`` 429). The organiser revokes tokens; a seat is
released by the organiser or the table's scorekeeper; a phone leaves. A revoked token's
writes stop at once: revoking takes the game's lock (``guard.lock``), and
``Game.revocations`` moves on so the fast path's compare-and-set fails (``referee.store``).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction

from referee import lockouts, store
from referee.exceptions import (
    JoinCodeInvalid,
    SeatIsComputer,
    SeatNotAllowed,
    SeatTaken,
    TokenNotFound,
)
from referee.lockouts import JoinClient
from referee.models import JOIN_CLIENT_MAX_LENGTH, Game, TableToken, hash_token
from referee.services import guard, probes
from referee.services.guard import Actor
from referee.store import state_of


def normalise_join_code(text: str) -> str:
    """``k7qh-2mxp 9r`` → ``K7QH2MXP9R``: a join code as typed, read aloud or scanned."""
    return "".join(ch for ch in text.upper() if ch.isalnum())


def join_code_check(*, join_code: str, client: str | JoinClient) -> Game:
    """The open game named by ``join_code``; every join (API and web form) goes through here.

    ``client`` is who tries it (``referee.lockouts.JoinClient``: its address as DRF's
    throttle ident gives it, honouring ``NUM_PROXIES``, and its device cookie; a bare
    address is a client without a cookie). Only a wrong code counts against it; after
    ``settings.JOIN_LOCKOUT_FAILURES`` of them from one phone (a newcomer while its
    address is being guessed from: ``JOIN_LOCKOUT_NEW_DEVICE_FAILURES``; the whole
    address: ``JOIN_LOCKOUT_ADDRESS_FAILURES``) within
    ``settings.JOIN_LOCKOUT_SECONDS`` of the first, every attempt is refused with
    ``join_locked_out`` (429, ``retry_after``: the seconds left) until that window ends
    or an organiser lifts it. Raises ``join_code_invalid`` (404) for a wrong code.
    """
    if isinstance(client, str):
        client = JoinClient(address=client)
    with transaction.atomic():
        # One attempt of an address at a time, from its check to its count: parallel
        # guesses are judged one after the other (``lockouts.serialise_attempts``).
        lockouts.serialise_attempts(client.address)
        lockouts.join_lockout_check(client)
        game = Game.objects.filter(
            join_code=normalise_join_code(join_code), status=Game.Status.OPEN
        ).first()
        if game is None:
            lockouts.join_failure_record(client)
    if game is None:
        raise JoinCodeInvalid()
    return game


def table_join(
    *, join_code: str, seat: int | None = None, label: str = "", client: str | JoinClient = ""
) -> tuple[str, TableToken]:
    """Exchange a game's join code for a table token (the key is returned once, never stored).

    ``seat`` 0–4 binds the phone to one seat, which no other phone may then claim;
    ``None`` is a scorekeeper for the whole table. Raises ``join_code_invalid`` (404) and
    ``join_locked_out`` (429) as ``join_code_check`` does, and ``seat_taken`` (409) for a
    seat another phone holds (until it is released or that phone leaves), and
    ``seat_is_computer`` (409) for a computer seat (R39).

    The new token starts with the probe window (R31) of the game's tokens that the same
    client joined before, live or not (``probes.probe_siblings``): joining again, joining a
    second token, leaving or being released and joining again keeps the count, and a
    ``probe_limited`` client is still limited on its new token until that window ends.
    """
    if isinstance(client, str):
        client = JoinClient(address=client)
    game = join_code_check(join_code=join_code, client=client)
    if seat is not None and str(seat) in state_of(game).computer_seats:
        raise SeatIsComputer()  # R39: no phone reads the computer's hand
    key = secrets.token_urlsafe(32)
    with transaction.atomic():
        guard.lock(game.pk)  # two phones claiming one seat at once: one of them gets it
        if seat is not None and game.tokens.filter(seat=seat, revoked_at__isnull=True).exists():
            raise SeatTaken()
        token = TableToken(
            game=game,
            seat=seat,
            key_hash=hash_token(key),
            label=label,
            client_device=client.device,
            client_issued=client.issued[:JOIN_CLIENT_MAX_LENGTH],
            client_address=client.address[:JOIN_CLIENT_MAX_LENGTH],
        )
        probes.inherit_probes(game, token)
        token.save()
    return key, token


def table_tokens(*, game: Game, actor: Actor) -> list[TableToken]:
    """The game's table tokens, live and revoked, oldest first (the organiser's only)."""
    guard.check_organiser(actor)
    return list(game.tokens.order_by("created_at", "id"))


@transaction.atomic
def token_revoke(*, game_id: Any, token_id: int, actor: Actor) -> TableToken:
    """Revoke one of the game's table tokens (the organiser's only): the phone loses the game
    at once and its seat is free. Raises ``organiser_only`` (403), ``token_not_found`` (404)."""
    guard.check_organiser(actor)
    game = guard.lock(game_id, actor)
    token = game.tokens.filter(pk=token_id, revoked_at__isnull=True).first()
    if token is None:
        raise TokenNotFound()
    store.revoke_tokens(game, [token])
    return token


@transaction.atomic
def seat_release(*, game_id: Any, seat: int, actor: Actor) -> TableToken:
    """Free ``seat`` for another phone: its token is revoked.

    A claimed seat is the claimer's (R31): only the organiser or the seat's own phone (its
    own token) releases it. Any other table token — the table's scorekeeper or another
    seat's phone — could otherwise revoke the seat's phone and claim its declared hand's
    seat; it gets ``seat_not_allowed`` (403) and the seat's phone keeps its token. Raises
    ``token_not_found`` (404) when no phone holds the seat.
    """
    if actor.token is not None and actor.seat != seat:
        raise SeatNotAllowed(guard.release_detail())
    game = guard.lock(game_id, actor)
    token = game.tokens.filter(seat=seat, revoked_at__isnull=True).first()
    if token is None:
        raise TokenNotFound()
    store.revoke_tokens(game, [token])
    return token


@transaction.atomic
def table_leave(*, token: TableToken) -> None:
    """A phone leaves its table: its token is revoked and its seat, if any, is free."""
    game = guard.lock(token.game_id)
    live = game.tokens.filter(pk=token.pk, revoked_at__isnull=True).first()
    if live is not None:
        store.revoke_tokens(game, [live])


def notice_dismiss(*, token: TableToken, seen: int) -> int:
    """This phone dismisses the notices of the organiser's corrections up to correction
    ``seen`` (issue 28): only those the game tells of now (a larger id is taken as the
    newest of them, so a later correction is still told). Returns the id kept; other
    phones keep their notices."""
    told = [int(n["correction"]) for n in state_of(token.game).notices]
    seen = min(seen, max(told, default=0))
    if seen > token.notice_seen:
        TableToken.objects.filter(pk=token.pk, notice_seen__lt=seen).update(notice_seen=seen)
        token.notice_seen = seen
    return token.notice_seen
