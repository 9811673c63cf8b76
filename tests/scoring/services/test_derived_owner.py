"""Every value derived from a round has one owner told of every change (issue 32, point 2):
the seat-rounds (``scoring.services.seat_rounds_rebuild``, on ``rounds_changed``, and the
merge), and from them, in the same transaction (``_rows_replace``), the standings' totals
and the ratings. Each upstream change × each derived value: the rows equal a fresh import
of the exported record's, the totals and ratings equal an aggregate and a fold over the
rows, and a round still settled keeps the time it was settled at."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from referee import services as referee_services
from referee.models import Game
from referee.services import corrections
from referee.services.guard import Actor
from scoring import selectors
from scoring import services as league
from scoring.models import SeatRound
from tests.scoring.factories import PlayerFactory
from tests.scoring.services.test_totals import assert_kept

pytestmark = pytest.mark.django_db

SCENARIO = "14_camat_election_reset_25"  # three rounds; round 3 elects a CAMAT (R24)
PLAYED_AT = dt.datetime(2026, 11, 20, 19, 0, tzinfo=dt.UTC)
FIELDS = (
    "round_number",
    "seat",
    "player_id",
    "cycle_player_id",
    "won",
    "first_cappu",
    "passes",
    "passebunge",
    "stones_received",
    "stones_given",
    "stones_held",
    "camat_elected",
    "cycle_ended",
)


def _rows(game: Game) -> list[tuple[Any, ...]]:
    return list(
        SeatRound.objects.filter(game=game).order_by("round_number", "seat").values_list(*FIELDS)
    )


def _seats(game: Game) -> list[Any]:
    registered = selectors.seat_players(game=game)
    return [registered.get(seat.number, seat.name) for seat in game.seats.order_by("number")]


def _kept(club: Any) -> tuple[Any, ...]:
    """The standings' stored totals and the stored ratings of the club, as read."""
    totals = sorted(map(tuple, map(dict.items, selectors.standings_totals(club=club, season=None))))
    return totals, selectors.club_ratings(club=club)


def _change(which: str, game: Game, organiser: Any, club: Any, players: list[Any]) -> None:
    actor = Actor(user=organiser)
    if which == "correction":  # the last event removed: round 3 no longer settled (R37)
        last = game.events.filter(revoked_by__isnull=True).order_by("-position").first()
        corrections.events_correct(
            game_id=game.pk, changes=[corrections.Change("remove", last.position)], actor=actor
        )
    elif which == "void":  # round 1 voided: it counts in no statistic (R35)
        corrections.round_void(game_id=game.pk, round=1, reason="tiles shown", actor=actor)
    elif which == "adjustment":  # after round 1: seat 2 no longer ties seat 3 at 7 (R36)
        corrections.round_adjust(
            game_id=game.pk,
            round=1,
            source="table",
            to=2,
            stones=2,
            reason="a stone found",
            actor=actor,
        )
    elif which == "substitute":  # the club's Fajar for seat 2 from round 2 (R38)
        corrections.seat_substitute(
            game_id=game.pk, seat=2, round=2, player=players[5].pk, actor=actor
        )
    elif which == "reseat":  # seat 0 was a guest all along (R38)
        corrections.seat_rename(game_id=game.pk, seat=0, name="Hasan", actor=actor)
    elif which == "merge":  # Andi was a duplicate of a player registered again
        survivor = PlayerFactory(club=club, display_name="Andi Makassar")
        league.player_merge(survivor=survivor, duplicate=players[0], by=organiser)
    else:  # pragma: no cover - the parameters name every change
        raise AssertionError(which)


@pytest.mark.parametrize(
    "which", ["correction", "void", "adjustment", "substitute", "reseat", "merge"]
)
def test_each_upstream_change_reaches_every_value_derived_from_its_rounds_R35_R36_R37_R38(
    organiser, club, players, load_scenario, which
):
    record = load_scenario(SCENARIO)["record"]
    game = referee_services.game_import(
        record=record,
        created_by=organiser,
        club=club,
        players=[p.pk for p in players[:5]],
        played_at=PLAYED_AT,
    )
    before = _rows(game)
    kept_before = _kept(club)
    settled = set(SeatRound.objects.filter(game=game).values_list("played_at", flat=True))

    _change(which, Game.objects.get(pk=game.pk), organiser, club, players)

    game = Game.objects.get(pk=game.pk)
    after = _rows(game)
    assert after != before  # the change reached the rows ...
    assert_kept(club)  # ... and the totals and ratings kept from them
    assert _kept(club) != kept_before  # the standings or the ratings moved with them
    # Settled times: a round still settled keeps the time it was settled at.
    assert set(SeatRound.objects.filter(game=game).values_list("played_at", flat=True)) <= settled
    assert all(PLAYED_AT <= at < PLAYED_AT + dt.timedelta(seconds=1) for at in settled)
    # The same rows as a fresh import of the game's record (with its seats as they are).
    fresh = referee_services.game_import(
        record=referee_services.game_export(game),
        created_by=organiser,
        club=club,
        players=_seats(game),
        played_at=PLAYED_AT,
    )
    assert _rows(fresh) == after
    assert_kept(club)
