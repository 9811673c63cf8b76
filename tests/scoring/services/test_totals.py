"""The stored totals and ratings always equal what the seat-rounds give, whatever wrote them.

``PlayerTotals`` (read by the standings) must equal the aggregate over the
``SeatRound`` rows, and ``PlayerRating`` (read by the ratings) the fold of the
completed CAMAT cycles (R24, R25) over them, in every scope (each season and
the club's lifetime), after every service path that writes rows: a round
settled live, a correction (R37), an undo, a void (R35), an adjustment (R36),
a substitute (R38), a re-seating, a game replaced by a corrected record, an
older paper game imported, a game deleted, a player merge, a seat linked, a
game moved to another season. Checked by a parametrised test over the paths
and a Hypothesis property over random sequences of them.
"""

from __future__ import annotations

import datetime as dt
import importlib
import random
from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import ProtectedError
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from referee import services as referee_services
from referee.engine import RefereeError
from referee.engine.records import Record
from referee.engine.simulation import random_record
from referee.exceptions import ServiceError
from referee.folding import record_entries
from referee.models import Event, Game
from referee.services import corrections
from scoring import selectors, services
from scoring.models import (
    TOTAL_FIELDS,
    Club,
    Player,
    PlayerRating,
    PlayerTotals,
    RatingFold,
    RatingStep,
    Season,
    SeatRound,
)
from tests.factories import UserFactory
from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory, SeasonFactory

pytestmark = pytest.mark.django_db

CYCLE = "14_camat_election_reset_25"  # round 3 elects Besse CAMAT: one completed cycle


def assert_kept(club: Club) -> None:
    """Stored totals == the aggregate over the rows, stored ratings == the fold over them,
    in the club's lifetime scope and in each of its seasons; a total fallen to no round
    is all zero."""
    for season in [None, *Season.objects.filter(club=club)]:
        stored = sorted(
            map(dict, selectors.standings_totals(club=club, season=season)),
            key=lambda line: line["player"],
        )
        aggregate = sorted(
            map(dict, selectors.standings(selectors.league_rows(club=club, season=season))),
            key=lambda line: line["player"],
        )
        assert stored == aggregate, f"season {season}"
        assert selectors.club_ratings(club=club, season=season) == (
            selectors.club_ratings_folded(club=club, season=season)
        ), f"season {season}"
    for empty in PlayerTotals.objects.filter(club=club, rounds_played=0):
        assert all(getattr(empty, name) == 0 for name in TOTAL_FIELDS)


def _live(organiser: Any, club: Club, season: Season | None, seats: list[Any], record: Any) -> Game:
    """Play ``record`` live through ``event_submit``: each round settles as the table plays."""
    game = referee_services.game_create(
        players=[seat.pk if isinstance(seat, Player) else seat for seat in seats],
        created_by=organiser,
        club=club,
        season=season,
    )
    actor = referee_services.Actor(user=organiser)
    for entry in record_entries(Record.parse(record).rounds):
        referee_services.event_submit(
            game_id=game.pk, kind=entry.kind, payload=dict(entry.payload), actor=actor
        )
    return game


class League:
    """A club with two seasons, seven players, and games imported and played live."""

    def __init__(self, load_scenario: Callable[[str], dict[str, Any]]) -> None:
        self.organiser = UserFactory()
        self.club = ClubFactory()
        OrganiserFactory(club=self.club, user=self.organiser)
        self.actor = referee_services.Actor(user=self.organiser)
        self.first = SeasonFactory(club=self.club, name="first")
        self.second = SeasonFactory(club=self.club, name="second")
        self.players = [PlayerFactory(club=self.club) for _ in range(7)]
        self.cycle = load_scenario(CYCLE)["record"]

    def import_(
        self, record: Any, seats: list[Any], season: Season | None, played_at: Any = None
    ) -> Game:
        return referee_services.game_import(
            record=record,
            created_by=self.organiser,
            club=self.club,
            season=season,
            players=[seat.pk if isinstance(seat, Player) else seat for seat in seats],
            played_at=played_at,
        )


@pytest.fixture
def league(load_scenario: Callable[[str], dict[str, Any]]) -> League:
    return League(load_scenario)


@pytest.fixture
def base(league: League) -> dict[str, Game]:
    """Two cycles in the first season (one with a guest), a game in no season."""
    p = league.players
    games = {
        "cycle": league.import_(league.cycle, p[:5], league.first),
        "guest": league.import_(league.cycle, [p[1], p[0], p[2], p[3], "Guest"], league.first),
        "loose": league.import_(
            random_record(random.Random(3), rounds=3), [p[2], p[3], p[4], p[5], "Ida"], None
        ),
    }
    assert_kept(league.club)
    assert selectors.club_ratings(club=league.club, season=league.first).cycles == 2
    return games


# -- one test per service path ---------------------------------------------------------------


def _settled_live(league: League, games: dict[str, Game]) -> None:
    p = league.players
    _live(league.organiser, league.club, league.second, [p[6], *p[1:5]], league.cycle)


def _correction(league: League, games: dict[str, Game]) -> None:
    game = games["cycle"]
    last = game.events.filter(revoked_by__isnull=True).order_by("position").last()
    assert last is not None
    corrections.events_correct(
        game_id=game.pk, changes=[corrections.Change("remove", last.position)], actor=league.actor
    )


def _undo(league: League, games: dict[str, Game]) -> None:
    referee_services.event_undo(game_id=games["cycle"].pk, actor=league.actor)


def _void(league: League, games: dict[str, Game]) -> None:
    corrections.round_void(
        game_id=games["guest"].pk, round=1, reason="tiles shown", actor=league.actor
    )


def _adjust(league: League, games: dict[str, Game]) -> None:
    corrections.round_adjust(
        game_id=games["cycle"].pk,
        round=1,
        source=0,
        to=3,
        stones=1,
        reason="a stone found under the table",
        actor=league.actor,
    )


def _substitute(league: League, games: dict[str, Game]) -> None:
    corrections.seat_substitute(
        game_id=games["cycle"].pk,
        seat=0,
        round=2,
        player=league.players[6].pk,
        actor=league.actor,
        reason="Andi left",
    )


def _reseat(league: League, games: dict[str, Game]) -> None:
    corrections.seat_rename(
        game_id=games["guest"].pk, seat=4, player=league.players[6].pk, actor=league.actor
    )


def _replace(league: League, games: dict[str, Game]) -> None:
    game = games["cycle"]
    record = referee_services.game_export(game)
    record["rounds"] = record["rounds"][:2]  # the sheet had two rounds: no cycle completed
    corrections.game_replace(game_id=game.pk, record=record, actor=league.actor)


def _older_import(league: League, games: dict[str, Game]) -> None:
    p = league.players
    old = dt.datetime(2020, 1, 5, 20, tzinfo=dt.UTC)
    league.import_(league.cycle, [p[4], p[3], p[2], p[1], p[0]], league.first, played_at=old)


def _delete(league: League, games: dict[str, Game]) -> None:
    games["cycle"].delete()


def _merge(league: League, games: dict[str, Game]) -> None:
    # Player 5 sat only the loose game; player 0 did not: a duplicate of them.
    services.player_merge(
        survivor=league.players[0], duplicate=league.players[5], by=league.organiser
    )


def _link(league: League, games: dict[str, Game]) -> None:
    services.seat_link(
        game=games["guest"], seat_number=4, player=league.players[6], by=league.organiser
    )
    services.seat_link(game=games["cycle"], seat_number=1, player=None, by=league.organiser)


def _assign(league: League, games: dict[str, Game]) -> None:
    services.game_league_assign(game=games["guest"], club=league.club, season=league.second)
    services.game_league_assign(game=games["loose"], club=league.club, season=league.first)


PATHS = {
    "round settled live": _settled_live,
    "correction R37": _correction,
    "undo": _undo,
    "void R35": _void,
    "adjustment R36": _adjust,
    "substitute R38": _substitute,
    "re-seated R38": _reseat,
    "replaced by a corrected record R37": _replace,
    "older game imported": _older_import,
    "game deleted": _delete,
    "player merge": _merge,
    "seat linked": _link,
    "game moved to another season": _assign,
}


@pytest.mark.parametrize("path", list(PATHS))
def test_totals_and_ratings_stay_equal_to_the_rows_after_each_service_path(
    league: League, base: dict[str, Game], path: str
) -> None:
    before = list(PlayerTotals.objects.values_list(*TOTAL_FIELDS).order_by("pk"))
    ratings_before = list(PlayerRating.objects.values_list("mu", "sigma").order_by("pk"))

    PATHS[path](league, base)

    assert_kept(league.club)
    changed = (
        list(PlayerTotals.objects.values_list(*TOTAL_FIELDS).order_by("pk")) != before
        or list(PlayerRating.objects.values_list("mu", "sigma").order_by("pk")) != ratings_before
    )
    assert changed, "the path changed nothing: it tests nothing"


def test_a_cycle_settled_live_is_folded_alone_and_a_changed_one_from_itself_on(
    league: League, base: dict[str, Game], monkeypatch: pytest.MonkeyPatch
) -> None:
    """R24: a cycle completed at the table after the stored ones is folded onto them alone;
    a changed cycle is folded again from itself on, never the whole scope."""
    starts: list[Any] = []
    real = services._fold_from
    monkeypatch.setattr(
        services, "_fold_from", lambda fold, start: starts.append(start) or real(fold, start)
    )
    p = league.players
    first_cycle = SeatRound.objects.get(game=base["cycle"], cycle_ended=True, seat=0)

    live = _live(league.organiser, league.club, league.first, [p[6], *p[1:5]], league.cycle)

    live_cycle = SeatRound.objects.get(game=live, cycle_ended=True, seat=0)
    key = (live_cycle.played_at, live.pk, live_cycle.round_number)
    assert starts == [key, key]  # the club's scope and the season's, from the new cycle
    ratings = selectors.club_ratings(club=league.club, season=league.first)
    assert ratings.cycles == 3
    assert {r.player for r in ratings.ratings} >= {p[6].pk}
    assert_kept(league.club)
    starts.clear()

    _undo(league, base)  # the first game's cycle (R24) is undone: fold again from it on

    undone = (first_cycle.played_at, base["cycle"].pk, first_cycle.round_number)
    assert starts == [undone, undone]
    assert selectors.club_ratings(club=league.club, season=league.first).cycles == 2
    assert_kept(league.club)


def test_a_player_substituted_into_a_second_seat_is_folded_as_the_rows_say_R38(
    league: League, base: dict[str, Game]
) -> None:
    """A substitute the organiser allowed although the player already sits the table: the
    cycle counts them twice, and a later fold resumes from their one step after it."""
    p = league.players
    corrections.seat_substitute(
        game_id=base["cycle"].pk,
        seat=0,
        round=2,
        player=p[1].pk,
        allow_elsewhere=True,
        actor=league.actor,
    )
    assert_kept(league.club)

    _live(league.organiser, league.club, league.first, [p[6], *p[1:5]], league.cycle)

    assert_kept(league.club)
    besse = selectors.club_ratings(club=league.club, season=league.first).ratings
    assert {r.player: r.cycles for r in besse}[p[1].pk] == 4  # 2 seats once, 2 cycles more


def test_the_totals_of_a_voided_round_go_R35(league: League, base: dict[str, Game]) -> None:
    andi = league.players[0]
    before = PlayerTotals.objects.get(club=league.club, season=None, player=andi)

    _void(league, base)  # Andi sat seat 1 of the "guest" game's round 1

    after = PlayerTotals.objects.get(club=league.club, season=None, player=andi)
    assert after.rounds_played == before.rounds_played - 1
    assert_kept(league.club)


def test_league_recount_rebuilds_what_the_services_keep(league: League, base: dict[str, Game]):
    totals = sorted(map(dict, selectors.standings_totals(club=league.club)), key=str)
    ratings = selectors.club_ratings(club=league.club, season=league.first)
    PlayerTotals.objects.filter(club=league.club).update(rounds_won=99)
    PlayerRating.objects.filter(club=league.club).update(mu=1.0)

    services.league_recount(club=league.club)

    assert sorted(map(dict, selectors.standings_totals(club=league.club)), key=str) == totals
    assert selectors.club_ratings(club=league.club, season=league.first) == ratings


# -- a property over random sequences of service paths ----------------------------------------


def _random_step(league: League, games: dict[str, Game], rng: random.Random) -> None:
    """One random write through the services; refusals (the rules, the league) are allowed."""
    p = league.players
    live = [g for g in games.values() if Game.objects.filter(pk=g.pk).exists()]
    which = rng.choice(
        [
            "import",
            "live",
            "undo",
            "void",
            "adjust",
            "substitute",
            "replace",
            "delete",
            "link",
            "assign",
            "merge",
        ]
    )
    season = rng.choice([league.first, league.second, None])
    seats: list[Any] = rng.sample(p, 5)
    if rng.random() < 0.3:
        seats[rng.randrange(5)] = "Guest"
    record = random_record(rng, rounds=rng.randint(1, 5), finish_last_round=rng.random() < 0.7)
    event(which if live else "import")
    note(f"{which if live else 'import'}")
    if which == "import" or not live:
        days = rng.randint(0, 400)
        at = dt.datetime(2025, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=days)
        games[f"g{len(games)}"] = league.import_(
            rng.choice([record, league.cycle]), seats, season, played_at=at
        )
        return
    if which == "live":
        games[f"g{len(games)}"] = _live(league.organiser, league.club, season, seats, record)
        return
    game = rng.choice(live)
    rounds = max(
        1,
        game.events.filter(revoked_by__isnull=True).count()
        and max(game.events.values_list("round_number", flat=True)),
    )
    if which == "undo":
        referee_services.event_undo(game_id=game.pk, actor=league.actor)
    elif which == "void":
        corrections.round_void(
            game_id=game.pk, round=rng.randint(1, rounds), reason="void", actor=league.actor
        )
    elif which == "adjust":
        corrections.round_adjust(
            game_id=game.pk,
            round=rng.randint(1, rounds),
            source=rng.choice(["table", 0, 1]),
            to=rng.choice([2, 3, 4]),
            stones=1,
            reason="adjusted",
            actor=league.actor,
        )
    elif which == "substitute":
        corrections.seat_substitute(
            game_id=game.pk,
            seat=rng.randrange(5),
            round=rng.randint(1, rounds),
            player=rng.choice(p).pk,
            allow_elsewhere=True,
            actor=league.actor,
        )
    elif which == "replace":
        exported = referee_services.game_export(game)
        exported["rounds"] = exported["rounds"][: rng.randint(1, len(exported["rounds"]) or 1)]
        corrections.game_replace(game_id=game.pk, record=exported, actor=league.actor)
    elif which == "delete":
        game.delete()
    elif which == "link":
        services.seat_link(
            game=game,
            seat_number=rng.randrange(5),
            player=rng.choice([*p, None]),
            by=league.organiser,
        )
    elif which == "assign":
        services.game_league_assign(game=game, club=league.club, season=season)
    else:
        a, b = rng.sample(p, 2)
        services.player_merge(survivor=a, duplicate=b, by=league.organiser)
        league.players = [x for x in p if x.pk != b.pk]


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), steps=st.integers(2, 6))
def test_any_sequence_of_writes_keeps_totals_and_ratings_equal_to_the_rows(
    load_scenario: Callable[[str], dict[str, Any]], seed: int, steps: int
) -> None:
    note(f"seed={seed} steps={steps}")
    rng = random.Random(seed)
    league = League(load_scenario)
    games: dict[str, Game] = {}
    for _ in range(steps):
        try:
            _random_step(league, games, rng)
        except (RefereeError, ServiceError, ProtectedError):
            event("refused")  # (a game with corrections is never deleted): nothing changed
        assert_kept(league.club)
    assert Event.objects.exists()


def test_the_data_migration_fills_what_the_services_keep(league: League, base: dict[str, Game]):
    """Migration 0004 fills the totals, ratings and steps of rows stored before it exactly as
    the services keep them (here: after the services wrote them, all emptied, filled)."""
    from django.apps import apps

    fill = importlib.import_module("scoring.migrations.0004_fill_player_totals_and_ratings").fill
    _substitute(league, base)

    def stored(model: Any) -> list[tuple[Any, ...]]:
        rows = model.objects.all()
        if model is PlayerTotals:  # a total fallen to zero is left by the services
            rows = rows.filter(rounds_played__gt=0)
        if model is RatingFold:
            rows = rows.filter(cycles__gt=0)
        fields = [f.attname for f in model._meta.fields if f.name != "id"]
        return sorted(rows.values_list(*fields), key=str)

    kept = {model: stored(model) for model in (PlayerTotals, PlayerRating, RatingStep, RatingFold)}
    assert all(kept.values())
    for model in kept:
        model.objects.all().delete()

    fill(apps, None)

    for model, rows in kept.items():
        assert stored(model) == rows, model.__name__
