"""Round verification at the table: a second seat confirms or disputes each round (issue 11).

When a round is settled every phone shows its summary (ending, named outcomes,
stones moved). A phone joined to another seat than the one that entered the
round's last event confirms it, or disputes it with a short reason
(``VERIFICATION_REASON_MAX`` characters). A dispute stands until the organiser
resolves it: by correcting the round (R37), voiding it (R35) or marking it
confirmed (``round_resolve``).

A round's verification, as the state, the result and the API give it::

    {"status": "unverified" | "confirmed" | "disputed" | "resolved",
     "seat": 0–4 | null,        # who confirmed or disputed it
     "reason": str | null,      # the dispute's reason
     "resolution": "confirmed" | "corrected" | "voided" | null,
     "note": str | null,        # the organiser's note when resolving
     "updated_at": ISO 8601 | null}

Decisions: confirming or disputing moves the game's version on (every phone's
poll redraws, ``ETag``/``If-None-Match`` stay true) and needs no ``If-Match``
(it changes no event). When a round's live events change afterwards (the
table's undo, an organiser's correction or void), or its outcome does (the
stones it moved and where they stand after it: an adjustment after an earlier
round, R36, issue 32), a confirmation no longer stands: the round is
``unverified`` again; a dispute is ``resolved`` (``corrected`` or ``voided``)
when the organiser made the change, and ``unverified`` again when the table
re-entered the round itself. A round is verified when ``confirmed`` or
``resolved`` (the league's ``?verified=true``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from referee import folding, store
from referee.engine import Game as EngineGame
from referee.engine.names import reorders_text
from referee.exceptions import GameClosed, ServiceError
from referee.idempotency import (
    Idempotency,
    Replay,
    outcome,
    remember,
    replay_of,
    row_from_stored,
    row_to_stored,
)
from referee.models import Event, Game, RoundVerification
from referee.selectors import UNVERIFIED, game_state_for, load_current_round
from referee.services import guard
from referee.services.guard import Actor
from referee.store import state_of

VERIFICATION_REASON_MAX = 200
"""A dispute's reason and the organiser's note: at most this many characters."""

# The verifications of the latest rounds, as the state shows them, are cached on the game
# row (``referee.store.GameState.verification``), so that reading the state costs no query.

VERIFIED = (RoundVerification.Status.CONFIRMED, RoundVerification.Status.RESOLVED)

_SEAT_OF_TOKEN = re.compile(r"\(seat ([0-4])\)$")


class RoundNotEnded(ServiceError):
    status = 409
    code = "round_not_ended"
    title = _("Round not ended")
    default_detail = _("This round is not settled yet: there is nothing to verify.")


class RoundVoided(ServiceError):
    status = 409
    code = "round_voided"
    title = _("Round voided")
    default_detail = _("This round was voided by the organiser (R35): it is not verified.")


class VerificationOwnEntry(ServiceError):
    status = 403
    code = "verification_own_entry"
    title = _("Verified by the wrong seat")
    default_detail = _(
        "This round's last event was entered from this seat: another seat's phone verifies it."
    )


class VerificationSeatRequired(ServiceError):
    status = 403
    code = "verification_seat_required"
    title = _("A seat's phone verifies")
    default_detail = _(
        "A round is confirmed or disputed from a phone joined to one seat; the organiser "
        "resolves a dispute."
    )


class RoundDisputed(ServiceError):
    status = 409
    code = "round_disputed"
    title = _("Round disputed")
    default_detail = _(
        "This round is disputed: the organiser resolves it (correct it, void it or mark it "
        "confirmed)."
    )


class VerificationReasonInvalid(ServiceError):
    status = 400
    code = "verification_reason_invalid"
    title = _("Reason needed")
    default_detail = _("Say in a few words what is wrong (at most 200 characters).")


@outcome
@dataclass(frozen=True)
class Verified:
    """A round's verification after ``round_confirm``, ``round_dispute`` or ``round_resolve``.

    ``game``: the game row (at a new version when the verification changed); ``round``:
    the round's number; ``verification``: its ``RoundVerification`` row, ``None`` for an
    unverified round with none (see ``verification_dict`` for its public form);
    ``state``: the game's state as the one who verified it sees it.
    """

    outcome_kind: ClassVar[str] = "verified"

    game: Game
    round: int
    verification: RoundVerification | None
    state: dict[str, Any]

    def to_stored(self) -> dict[str, Any]:
        row = row_to_stored(self.verification) if self.verification is not None else None
        return {"round": self.round, "verification": row, "state": self.state}

    @classmethod
    def from_stored(cls, game: Game, data: dict[str, Any]) -> Verified:
        row = data["verification"]
        verification = (
            row_from_stored(RoundVerification, row, game=game) if row is not None else None
        )
        return cls(game, data["round"], verification, data["state"])


# -- reading ---------------------------------------------------------------------------------


def verification_dict(row: RoundVerification | None) -> dict[str, Any]:
    """The public form of a round's verification (``UNVERIFIED`` without a row)."""
    if row is None or row.status == RoundVerification.Status.UNVERIFIED:
        return dict(UNVERIFIED)
    return {
        "status": row.status,
        "seat": row.seat,
        "reason": row.reason or None,
        "resolution": row.resolution or None,
        "note": row.note or None,
        "updated_at": row.updated_at.isoformat() if row.updated_at else None,
    }


def round_verifications(game: Game) -> dict[int, dict[str, Any]]:
    """Every round's verification that is not ``unverified``, by round number (one query)."""
    return {row.round_number: verification_dict(row) for row in game.verifications.all()}


def annotate_result(result: dict[str, Any], game: Game) -> dict[str, Any]:
    """``result`` (``domeng-result/1`` of ``game``) with ``verification`` on each round."""
    known = round_verifications(game)
    for index, rnd in enumerate(result.get("rounds") or [], start=1):
        rnd["verification"] = round_verification(known, index)
    return result


def round_verification(known: dict[int, dict[str, Any]], number: int) -> dict[str, Any]:
    """Round ``number``'s ``verification`` in a result, of ``round_verifications``'s."""
    return known.get(number, dict(UNVERIFIED))


# -- writing ---------------------------------------------------------------------------------


def round_confirm(
    *, game_id: Any, round: int, actor: Actor, idempotency: Idempotency | None = None
) -> Verified | Replay[Verified]:
    """Confirm settled round ``round`` from a phone of another seat than the one that entered
    its last event. Repeating it, or confirming a round already confirmed or resolved,
    changes nothing (200). Raises ``verification_seat_required`` (403: not a seat's phone),
    ``verification_own_entry`` (403), ``round_not_ended`` (409), ``round_voided`` (409),
    ``round_disputed`` (409: only the organiser resolves a dispute), ``game_closed`` (409).
    """
    return _verify(game_id, round, actor, idempotency, dispute=None)


def round_dispute(
    *,
    game_id: Any,
    round: int,
    actor: Actor,
    reason: str,
    idempotency: Idempotency | None = None,
) -> Verified | Replay[Verified]:
    """Dispute settled round ``round`` with a short ``reason`` (1–200 characters), from a
    phone of another seat than the one that entered its last event; it stays disputed
    until the organiser resolves it. The same dispute again changes nothing; the disputing
    seat may reword it, another seat gets ``round_disputed`` (409: the first reason is never
    overwritten). Raises as ``round_confirm`` (but a dispute may follow a confirmation) and
    ``verification_reason_invalid`` (400).
    """
    reason = (reason or "").strip()
    if not reason or len(reason) > VERIFICATION_REASON_MAX or reorders_text(reason):
        raise VerificationReasonInvalid()  # shown on every phone: it must read as typed
    return _verify(game_id, round, actor, idempotency, dispute=reason)


def round_resolve(
    *,
    game_id: Any,
    round: int,
    actor: Actor,
    note: str = "",
    idempotency: Idempotency | None = None,
) -> Verified | Replay[Verified]:
    """The organiser marks settled round ``round`` confirmed (``resolved``, resolution
    ``confirmed``), disputed or not, with an optional ``note`` (≤ 200 characters). A round
    already resolved or confirmed stays as it is (200). A closed game may still be
    resolved. Raises ``organiser_only`` (403), ``round_not_ended``, ``round_voided`` (409).
    """
    guard.check_organiser(actor)
    note = (note or "").strip()
    if len(note) > VERIFICATION_REASON_MAX or reorders_text(note):
        raise VerificationReasonInvalid()
    with transaction.atomic():
        game = guard.lock(game_id, actor)
        if (replayed := replay_of(game, idempotency)) is not None:
            return replayed
        digests, _ = _check_settled(game, round)
        row = _current_row(game, round, digests, actor)
        digest = digests[0]
        if row is None or row.status in {
            RoundVerification.Status.UNVERIFIED,
            RoundVerification.Status.DISPUTED,
        }:
            row = row or RoundVerification(game=game, round_number=round, entered_by="")
            row.status = RoundVerification.Status.RESOLVED
            row.resolution = RoundVerification.Resolution.CONFIRMED
            row.resolved_by = actor.label
            row.note = note
            row.digest = digest
            row.save()
            _changed(game)
        return _answer(game, round, row, actor, idempotency)


def _verify(
    game_id: Any,
    number: int,
    actor: Actor,
    idempotency: Idempotency | None,
    *,
    dispute: str | None,
) -> Verified | Replay[Verified]:
    if actor.token is None or actor.seat is None:
        raise VerificationSeatRequired()
    with transaction.atomic():
        game = guard.lock(game_id, actor)
        if (replayed := replay_of(game, idempotency)) is not None:
            return replayed
        if game.status != Game.Status.OPEN:
            raise GameClosed()
        digests, entered_by = _check_settled(game, number)
        if entered_by == actor.label or _seat_of(entered_by) == actor.seat:
            raise VerificationOwnEntry()
        row = _current_row(game, number, digests, actor)
        digest = digests[0]
        status = row.status if row is not None else RoundVerification.Status.UNVERIFIED
        if dispute is None:
            if status == RoundVerification.Status.DISPUTED:
                raise RoundDisputed()
            if status == RoundVerification.Status.UNVERIFIED:
                row = _write(game, number, row, actor, digest, RoundVerification.Status.CONFIRMED)
        elif (
            status == RoundVerification.Status.DISPUTED
            and row is not None
            and row.seat != actor.seat
        ):
            raise RoundDisputed()  # another seat's dispute (and its reason) stands
        elif not (
            status == RoundVerification.Status.DISPUTED
            and row is not None
            and row.seat == actor.seat
            and row.reason == dispute
        ):
            row = _write(
                game, number, row, actor, digest, RoundVerification.Status.DISPUTED, dispute
            )
        return _answer(game, number, row, actor, idempotency)


def _write(
    game: Game,
    number: int,
    row: RoundVerification | None,
    actor: Actor,
    digest: str,
    status: str,
    reason: str = "",
) -> RoundVerification:
    row = row or RoundVerification(game=game, round_number=number)
    row.status = status
    row.seat = actor.seat
    row.reason = reason
    row.entered_by = actor.label
    row.resolution = ""
    row.resolved_by = ""
    row.note = ""
    row.digest = digest
    row.save()
    _changed(game)
    return row


def _answer(
    game: Game,
    number: int,
    row: RoundVerification | None,
    actor: Actor,
    idempotency: Idempotency | None,
) -> Verified:
    state = game_state_for(
        game, viewer=actor.seat, viewer_label=actor.label, organiser=actor.is_organiser
    )
    verified = Verified(game, number, row, state)
    remember(game, idempotency, verified)
    return verified


def _changed(game: Game) -> None:
    """A new version (every phone redraws) with the state's cache of the latest rounds."""
    store.commit(
        game, store.replace(state_of(game), verification=shown(game, state_of(game).snapshot))
    )


def shown(game: Game, snapshot: dict[str, Any]) -> dict[str, Any]:
    """The verifications the state shows, as the game row caches them
    (``GameState.verification``): ``{"<round>": verification}`` of the rounds from the one
    before the last round begun (``snapshot["round"]``, the game's snapshot) on."""
    first = int(snapshot.get("round") or 1) - 1
    rows = game.verifications.filter(round_number__gte=first)
    return {str(row.round_number): verification_dict(row) for row in rows}


def _seat_of(entered_by: str) -> int | None:
    """The seat of the table token that entered an event (``table token 7 (seat 2)``)."""
    match = _SEAT_OF_TOKEN.search(entered_by or "")
    return int(match.group(1)) if match else None


def _played(events: Iterable[tuple[str, Any]]) -> list[list[Any]]:
    return [[kind, payload] for kind, payload in events if kind != Event.Kind.SUBSTITUTE]


def _digest(events: Iterable[tuple[str, Any]], result: Any) -> str:
    """What a verification vouches for: the round's play (its events in order) and its
    outcome (``result``: ``_results``' entry, the stones it moved and where they stand
    after it), so that a change before it (an adjustment after an earlier round, R36)
    that alters what the round gave stands as a change of the round. Who sat a seat (a
    substitute, R38) is not part of it: naming a substitute from a verified or disputed
    round on leaves its verification as it is."""
    raw = json.dumps({"events": _played(events), "result": result}, sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()


def _events_digest(events: Iterable[tuple[str, Any]]) -> str:
    """The digest of a verification written before outcomes were digested (its events
    alone): such a row still stands while its events do, and takes ``_digest`` then."""
    raw = json.dumps(_played(events), sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()


def _results(game: Game, engine: EngineGame | None = None) -> dict[int, Any]:
    """Each round's outcome as the fold of the game's live events gives it, by number:
    its transfers, the CAMAT it elected and the standing after it (stones held, on the
    table). ``engine``: that fold, when the caller has it."""
    if engine is None:
        events = game.events.filter(revoked_by__isnull=True).order_by("position")
        engine = folding.replay(store.rules_of(game), [(e.kind, e.payload) for e in events])
    return {
        r.round.number: {
            "transfers": [t.to_dict() for t in r.transfers],
            "camat_elected": r.camat_elected,
            "after": r.after.to_dict() if r.after is not None else None,
        }
        for r in engine.rounds
        if not r.voided
    }


def _check_settled(game: Game, number: int) -> tuple[tuple[str, str], str]:
    """The digests of settled round ``number`` (``_digest``, ``_events_digest``) and who
    entered its last play, pass or reveal. Raises ``round_not_ended`` or ``round_voided``
    (409)."""
    if number < 1:
        raise RoundNotEnded()
    current = load_current_round(game)
    first = current.snapshot["round"]
    if number > first:
        raise RoundNotEnded()
    if number == first:
        engine, _ = current.fold(store.rules_of(game))
        game_round = next((r for r in engine.rounds if r.round.number == number), None)
        if game_round is None:
            raise RoundNotEnded()
        if game_round.voided:
            raise RoundVoided()
        if not game_round.round.is_settled():
            raise RoundNotEnded()
        events = [e for e in current.events if e.round_number == number]
    else:
        events = list(
            Event.objects.filter(game=game, round_number=number, revoked_by__isnull=True).order_by(
                "position"
            )
        )
        if any(e.kind == Event.Kind.VOID for e in events):
            raise RoundVoided()
    entries = [e for e in events if e.kind in {Event.Kind.MOVE, Event.Kind.REVEAL}]
    if not entries:
        raise RoundNotEnded()
    played = [(e.kind, e.payload) for e in events]
    result = _results(game).get(number)
    return (_digest(played, result), _events_digest(played)), entries[-1].entered_by


def _current_row(
    game: Game, number: int, digests: tuple[str, str], actor: Actor
) -> RoundVerification | None:
    """Round ``number``'s row, brought up to date if its play or outcome changed since."""
    row = game.verifications.filter(round_number=number).first()
    if row is not None:
        _follow(row, digests, voided=False, by=None)
    return row


def _follow(
    row: RoundVerification, digests: tuple[str, str], *, voided: bool, by: Actor | None
) -> None:
    """``row`` against its round's digests now: unchanged, an older row whose events
    stand (it takes the new digest), or stale (``_stale``)."""
    digest, events_only = digests
    if row.digest == digest:
        return
    if row.digest == events_only:
        row.digest = digest
        row.save(update_fields=["digest"])
        return
    _stale(row, digest, voided=voided, by=by)


def _stale(row: RoundVerification, digest: str, *, voided: bool, by: Actor | None) -> None:
    """The round's events changed since ``row`` was written: a confirmation no longer
    stands; a dispute is resolved when the organiser (``by``) corrected or voided it."""
    organiser = by is not None and by.token is None
    if row.status == RoundVerification.Status.DISPUTED and organiser:
        row.status = RoundVerification.Status.RESOLVED
        row.resolution = (
            RoundVerification.Resolution.VOIDED
            if voided
            else RoundVerification.Resolution.CORRECTED
        )
        row.resolved_by = by.label if by is not None else ""
    elif row.status == RoundVerification.Status.RESOLVED and organiser:
        if voided:
            row.resolution = RoundVerification.Resolution.VOIDED
    else:
        row.status = RoundVerification.Status.UNVERIFIED
        row.seat = None
        row.reason = ""
        row.resolution = ""
        row.resolved_by = ""
        row.note = ""
    row.digest = digest
    row.save()


def verifications_refresh(
    *, game: Game, actor: Actor, engine: EngineGame | None = None, since: int = 1
) -> None:
    """After a correction, an undo or a void (the game's lock held): every verified or
    disputed round whose live events or outcome changed (``_digest``) is reset or
    resolved (see the module's decisions). ``engine``: the fold of the game's live
    events, if the caller has it; ``since``: the first round that may have changed (a
    correction of round k, issue 29): the rounds before it are left as they are, and
    ``engine`` may be resumed there (``rounds_before`` = ``since`` - 1). The caller
    commits the new version with the cache of what the state shows (``shown``). No row:
    one query and nothing else."""
    if engine is not None and engine.rounds_before >= since:
        raise ValueError("the fold begins after the first round to refresh")
    rows = list(game.verifications.filter(round_number__gte=since))
    if not rows:
        return
    results = _results(game, engine)
    events: dict[int, list[tuple[str, Any]]] = {row.round_number: [] for row in rows}
    for kind, payload, number in (
        Event.objects.filter(game=game, revoked_by__isnull=True, round_number__in=list(events))
        .order_by("position")
        .values_list("kind", "payload", "round_number")
    ):
        events[number].append((kind, payload))
    for row in rows:
        played = events[row.round_number]
        digests = (_digest(played, results.get(row.round_number)), _events_digest(played))
        voided = any(kind == Event.Kind.VOID for kind, _ in played)
        _follow(row, digests, voided=voided, by=actor)


def without_verification(result: dict[str, Any]) -> dict[str, Any]:
    """A stored game's ``GET …/result/`` as the rules alone give it (what
    ``replay_record`` of its record returns): each round's ``verification`` left out."""
    rounds = [{k: v for k, v in r.items() if k != "verification"} for r in result["rounds"]]
    return {**result, "rounds": rounds}
