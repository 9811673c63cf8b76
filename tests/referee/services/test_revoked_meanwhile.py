"""A phone's request that authenticated before its token was revoked stores nothing after.

QA (2026-11-30): a move already past authentication landed up to 137 ms after the organiser's
revocation had returned, because the token was checked once, before the write. Now every
write of a phone reads its token again under the game's lock, and revoking (by the
organiser, by releasing the seat, by leaving) takes that lock and moves the game's count
of revocations on (``Game.revocations``), so a move read before — the fast path's
compare-and-set — cannot land after either; the version stays, so the other phones' taps
made on it still apply.
The same re-read makes the R31 probe limit exact when probes arrive at once.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from referee import services
from referee.engine import RefereeError
from referee.exceptions import ProbeLimited, TokenRevoked
from referee.models import Event, Game, RefusedEvent, TableToken, hash_token
from referee.store import live_token

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]
LEAD = {"seat": 2, "tile": "6-6"}
SECOND = {"seat": 3, "tile": "5-6"}


@pytest.fixture
def organiser() -> services.Actor:
    user = get_user_model().objects.create_user("organiser", password="x")
    return services.Actor(user=user)


@pytest.fixture
def game(db, organiser) -> Game:
    return services.game_create(players=PLAYERS, created_by=organiser.user)


def joined(game: Game, seat: int | None = None) -> TableToken:
    key, _ = services.table_join(join_code=game.join_code, seat=seat)
    token = live_token(hash_token(key))
    assert token is not None
    return token


def submit(token: TableToken, move: dict[str, Any]) -> Any:
    """As the API does: the actor and the game row the token's read gave (``seen``)."""
    return services.event_submit(
        game_id=token.game_id,
        kind="move",
        payload=move,
        actor=services.Actor(token=token),
        seen=token.game,
    )


def prober_of(game: Game) -> TableToken:
    """Seat 1 declares its hand (R31), 6-6 is led; a scorekeeper's token to probe it with."""
    seat_1 = joined(game, seat=1)
    services.event_submit(
        game_id=game.pk,
        kind="hand",
        payload={"seat": 1, "tiles": ["3-6", "5-6", "0-0", "0-1", "0-2"]},
        actor=services.Actor(token=seat_1),
    )
    prober = joined(game)
    submit(prober, {"seat": 0, "tile": "6-6"})
    return prober


def revoke(how: str, game: Game, token: TableToken, organiser: services.Actor) -> None:
    if how == "organiser":
        services.token_revoke(game_id=game.pk, token_id=token.pk, actor=organiser)
    elif how == "release":
        services.seat_release(game_id=game.pk, seat=token.seat, actor=organiser)
    else:
        services.table_leave(token=token)


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["organiser", "release", "leave"])
@pytest.mark.parametrize("when", ["first event (locked path)", "mid-round (fast path)"])
def test_a_move_read_before_the_revocation_stores_nothing_after(game, organiser, how, when):
    scorekeeper = joined(game)
    if when.startswith("mid-round"):
        submit(scorekeeper, LEAD)  # opens the sitting: the next move takes the fast path
    phone = joined(game, seat=3 if when.startswith("mid-round") else 2)
    stored = Event.objects.filter(game=game).count()

    revoke(how, game, phone, organiser)  # returns before the phone's request writes

    with pytest.raises(TokenRevoked) as refused:
        submit(phone, SECOND if when.startswith("mid-round") else LEAD)
    assert (refused.value.status, refused.value.code) == (401, "authentication_failed")
    assert Event.objects.filter(game=game).count() == stored
    assert not RefusedEvent.objects.filter(game=game).exists()


@pytest.mark.django_db
def test_revoking_counts_a_revocation_and_keeps_the_other_phones_taps(game, organiser):
    """QA: moving the version on made every other phone's pending tap stale (409)."""
    scorekeeper = joined(game)
    submit(scorekeeper, LEAD)
    seen = Game.objects.get(pk=game.pk)
    joined(game, seat=1)

    services.seat_release(game_id=game.pk, seat=1, actor=organiser)

    after = Game.objects.get(pk=game.pk)
    assert (after.version, after.revocations) == (seen.version, seen.revocations + 1)
    tap = services.event_submit(
        game_id=game.pk,
        kind="move",
        payload=SECOND,
        actor=services.Actor(token=scorekeeper),
        precondition=services.Precondition(seen.version),  # the tap's version, still good
        seen=seen,  # read before the release: its compare-and-set fails, the lock decides
    )
    assert isinstance(tap, services.Submitted)
    assert tap.event.position == 1


@pytest.mark.django_db
def test_an_undo_read_before_the_revocation_changes_nothing(game, organiser):
    scorekeeper = joined(game)
    submit(scorekeeper, LEAD)
    stale = live_token(scorekeeper.key_hash)
    services.token_revoke(game_id=game.pk, token_id=scorekeeper.pk, actor=organiser)

    with pytest.raises(TokenRevoked):
        services.event_undo(game_id=game.pk, actor=services.Actor(token=stale))
    assert Event.objects.filter(game=game, revoked_by__isnull=True).count() == 1


@pytest.mark.django_db
def test_the_probe_limit_counts_what_is_stored_not_what_the_request_read_R31(game, settings):
    """The token's count as read at authentication was 0; probes counted meanwhile put it at
    the limit: the next refusal against a declared hand is 429, not another answer."""
    settings.TABLE_PROBE_LIMIT = 2
    settings.TABLE_PROBE_SECONDS = 600
    prober = prober_of(game)
    stale = live_token(prober.key_hash)
    for tile in ("4-6", "2-6"):  # the prober's own refusals, counted under the lock
        with pytest.raises(RefereeError):
            submit(live_token(prober.key_hash), {"seat": 1, "tile": tile})
    assert stale is not None
    assert stale.probes == 0

    with pytest.raises(ProbeLimited):
        submit(stale, {"seat": 1, "tile": "1-6"})
    assert RefusedEvent.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_probes_sent_at_once_get_no_more_answers_than_the_limit_R31(settings):
    """Real threads on PostgreSQL, as QA sent them: 12 probes at once from one token."""
    settings.TABLE_PROBE_LIMIT = 3
    settings.TABLE_PROBE_SECONDS = 600
    game = services.game_create(players=PLAYERS)
    prober = prober_of(game)
    tokens = [live_token(prober.key_hash) for _ in range(12)]  # each request's own read
    barrier = threading.Barrier(len(tokens))
    outcomes: list[str] = []

    def probe(token: TableToken, move: dict[str, object]) -> None:
        try:
            barrier.wait(timeout=30)
            submit(token, move)
            outcomes.append("stored")
        except ProbeLimited:
            outcomes.append("limited")
        except RefereeError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    # Twelve distinct probes (an identical one sent again counts once, R31): tiles with a 6
    # that seat 1's hand does not hold, each written two ways, with and without ``on``.
    moves = [
        {"seat": 1, "tile": tile, **({"on": 6} if on else {})}
        for tile in ("0-6", "6-0", "1-6", "6-1", "2-6", "6-2")
        for on in (False, True)
    ]
    threads = [
        threading.Thread(target=probe, args=(t, m)) for t, m in zip(tokens, moves, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert len(outcomes) == len(tokens)
    assert outcomes.count("limited") == len(tokens) - 3, outcomes
    assert RefusedEvent.objects.filter(game=game).count() == 3
