"""The seat-round stats follow every write to a game, in the same transaction."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from referee import services, signals
from referee.engine.records import replay_record
from referee.models import Event, Game
from scoring import receivers
from scoring import services as scoring_services
from scoring.models import PlayerTotals, SeatRound
from scoring.services import seat_rounds_rebuild
from tests.scoring.conftest import expected_lines
from tests.scoring.services.test_totals import assert_kept

pytestmark = pytest.mark.django_db

FIELDS = (
    "round_number",
    "seat",
    "player_id",
    "won",
    "first_cappu",
    "ceki",
    "pollo",
    "manguno",
    "mattikkeng",
    "cucuq",
    "passes",
    "passebunge",
    "stones_received",
    "stones_given",
    "stones_held",
    "camat_elected",
    "cycle_ended",
)


def _events(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """One record round as events: moves, then reveals seat 0 to 4 (R34)."""
    events: list[tuple[str, dict[str, Any]]] = [("move", move) for move in data["moves"]]
    for seat in range(5):
        if str(seat) in (data.get("reveal") or {}):
            events.append(("reveal", {"seat": seat, "tiles": data["reveal"][str(seat)]}))
        elif str(seat) in (data.get("pips") or {}):
            events.append(("reveal", {"seat": seat, "pips": data["pips"][str(seat)]}))
    return events


def _play(game: Game, events: list[tuple[str, dict[str, Any]]], actor: services.Actor) -> None:
    for kind, payload in events:
        services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=actor)


def _rows(game: Game) -> list[tuple[Any, ...]]:
    return list(
        SeatRound.objects.filter(game=game).order_by("round_number", "seat").values_list(*FIELDS)
    )


@pytest.fixture
def actor(organiser: Any) -> services.Actor:
    return services.Actor(user=organiser)


@pytest.fixture
def league_game(organiser: Any, club: Any, season: Any, players: list[Any]) -> Game:
    return services.game_create(
        players=[p.pk for p in players[:5]], created_by=organiser, club=club, season=season
    )


def test_the_move_that_settles_a_round_stores_its_five_seat_rounds(
    league_game, actor, load_scenario
):
    events = _events(load_scenario("01_plain_finish")["record"]["rounds"][0])

    _play(league_game, events[:-1], actor)
    assert not SeatRound.objects.filter(game=league_game).exists()
    _play(league_game, events[-1:], actor)

    rows = SeatRound.objects.filter(game=league_game).order_by("seat")
    assert [row.seat for row in rows] == [0, 1, 2, 3, 4]
    assert [row.player_id for row in rows] == list(
        league_game.seats.values_list("registered__player", flat=True)
    )
    assert {row.club_id for row in rows} == {league_game.league.club_id}
    assert {row.season_id for row in rows} == {league_game.league.season_id}
    assert rows[0].first_cappu
    assert rows[0].won
    assert not rows[0].ceki
    assert rows[4].cucuq
    assert rows[4].stones_received == 1
    settling = Event.objects.filter(game=league_game).order_by("-position").first()
    assert {row.played_at for row in rows} == {settling.created_at}


def test_seat_rounds_stored_event_by_event_equal_a_rebuild_from_the_events(
    league_game, actor, load_scenario
):
    record = load_scenario("14_camat_election_reset_25")["record"]
    for data in record["rounds"]:
        _play(league_game, _events(data), actor)
    stored = _rows(league_game)

    seat_rounds_rebuild(game=league_game)

    assert _rows(league_game) == stored
    assert len(stored) == 15
    # Blocked rounds are settled by their last reveal (R18): three rounds, all stored.
    assert [row[0] for row in stored[::5]] == [1, 2, 3]


def test_undoing_the_settling_move_removes_that_rounds_seat_rounds(
    league_game, actor, load_scenario
):
    events = _events(load_scenario("01_plain_finish")["record"]["rounds"][0])
    _play(league_game, events, actor)
    assert SeatRound.objects.filter(game=league_game).count() == 5

    services.event_undo(game_id=league_game.pk, actor=actor)

    assert not SeatRound.objects.filter(game=league_game).exists()
    _play(league_game, events[-1:], actor)
    assert SeatRound.objects.filter(game=league_game).count() == 5


def test_amending_the_last_play_into_a_ceki_rewrites_the_rounds_outcome_R15(
    league_game, actor, load_scenario
):
    events = _events(load_scenario("01_plain_finish")["record"]["rounds"][0])
    _play(league_game, events, actor)
    last = Event.objects.filter(game=league_game, revoked_by__isnull=True).order_by("-position")[0]

    services.event_amend(
        game_id=league_game.pk,
        position=last.position,
        payload={"seat": 0, "tile": "1-6", "on": 1},
        actor=actor,
        reason="the scorer wrote the wrong tile",
    )

    seat0 = SeatRound.objects.get(game=league_game, seat=0)
    cucuq = SeatRound.objects.get(game=league_game, seat=4)
    assert seat0.first_cappu
    assert seat0.ceki
    assert cucuq.cucuq
    assert cucuq.stones_received == 3
    replacement = Event.objects.get(game=league_game, position=last.position, revoked_by=None)
    assert seat0.played_at == replacement.created_at


def test_importing_a_record_stores_every_settled_round(import_game, players, season, load_scenario):
    record = load_scenario("g101_generated_40_rounds")["record"]

    game = import_game(record, players[:5], season)

    expected = expected_lines(record, replay_record(record))
    rows = SeatRound.objects.filter(game=game).order_by("round_number", "seat")
    assert rows.count() == len(expected) == 200
    for row, want in zip(rows, expected, strict=True):
        assert (row.round_number, row.seat) == (want["round"], want["seat"])
        assert row.player_id == players[want["seat"]].pk
        assert row.stones_received == want["stones_received"]
        assert row.stones_given == want["stones_given"]
        assert row.passes == want["passes"]
        assert row.passebunge == want["passebunge"]


def test_a_game_without_a_club_keeps_its_seat_rounds_as_guests(organiser, load_scenario):
    game = services.game_import(
        record=load_scenario("01_plain_finish")["record"], created_by=organiser
    )

    rows = SeatRound.objects.filter(game=game)
    assert rows.count() == 5
    assert set(rows.values_list("player_id", "club_id", "season_id")) == {(None, None, None)}


def _settling_queries(game: Game, actor: services.Actor, events: list[Any]) -> int:
    _play(game, events[:-1], actor)
    kind, payload = events[-1]
    with CaptureQueriesContext(connection) as queries:
        services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=actor)
    return len(queries)


def test_settling_round_40_costs_the_same_queries_as_settling_round_1(
    organiser, club, season, players, actor, load_scenario
):
    record = load_scenario("g101_generated_40_rounds")["record"]
    first = services.game_create(
        players=[p.pk for p in players[:5]], created_by=organiser, club=club, season=season
    )
    early = _settling_queries(first, actor, _events(record["rounds"][0]))
    long = services.game_import(
        record={**record, "rounds": record["rounds"][:39]},
        created_by=organiser,
        club=club,
        season=season,
        players=[p.pk for p in players[:5]],
    )

    late = _settling_queries(long, actor, _events(record["rounds"][39]))

    assert SeatRound.objects.filter(game=long).count() == 200
    assert late == early


@pytest.fixture
def settles() -> Iterator[list[dict[str, Any]]]:
    """The league's settles as the referee asks them: each one's signal arguments and the
    SQL it ran (``sql``), the league's own receiver doing the work."""
    seen: list[dict[str, Any]] = []

    def settle(sender: Any, **kwargs: Any) -> None:
        with CaptureQueriesContext(connection) as queries:
            receivers.round_settled(sender, **kwargs)
        kwargs.pop("signal", None)
        seen.append({**kwargs, "sql": [query["sql"] for query in queries]})

    signals.round_settled.disconnect(receivers.round_settled, dispatch_uid="scoring.settled")
    signals.round_settled.connect(settle, dispatch_uid="test.settles")
    yield seen
    signals.round_settled.disconnect(dispatch_uid="test.settles")
    signals.round_settled.connect(receivers.round_settled, dispatch_uid="scoring.settled")


def test_settling_a_guests_round_costs_the_league_two_statements(
    organiser, actor, load_scenario, settles
):
    game = services.game_create(players=["A", "B", "C", "D", "E"], created_by=organiser)

    _play(game, _events(load_scenario("01_plain_finish")["record"]["rounds"][0]), actor)

    (settle,) = settles
    assert len(settle["sql"]) == 2  # the seats' players, the five rows' INSERT
    assert [sql.split()[0] for sql in settle["sql"]] == ["SELECT", "INSERT"]
    assert SeatRound.objects.filter(game=game).count() == 5


def test_settling_a_club_round_costs_the_league_four_statements(
    league_game, actor, club, load_scenario, settles
):
    _play(league_game, _events(load_scenario("01_plain_finish")["record"]["rounds"][0]), actor)

    (settle,) = settles
    # The seats' players, the five rows' INSERT, the season's and the lifetime totals.
    assert len(settle["sql"]) == 4
    totals = PlayerTotals._meta.db_table
    assert sum(f'INTO "{totals}"' in sql for sql in settle["sql"]) == 2
    assert SeatRound.objects.filter(game=league_game).count() == 5
    assert PlayerTotals.objects.filter(club=club, rounds_played=1).count() == 10
    assert_kept(club)


def _stored(game: Game) -> list[dict[str, Any]]:
    return list(
        SeatRound.objects.filter(game=game)
        .order_by("round_number", "seat")
        .values(*FIELDS, "club_id", "season_id", "played_at")
    )


def test_a_round_settled_again_over_its_rows_replaces_them_and_the_totals_stay_exact(
    league_game, actor, club, load_scenario, settles
):
    record = load_scenario("14_camat_election_reset_25")["record"]  # round 3 ends a cycle
    for data in record["rounds"]:
        _play(league_game, _events(data), actor)
    settled = _stored(league_game)
    assert len(settled) == 15
    again = {key: value for key, value in settles[-1].items() if key != "sql"}

    # All five rows of the cycle's round already there (as the settle left them).
    scoring_services.seat_rounds_settle(**again)
    assert _stored(league_game) == settled
    assert_kept(club)

    # Two rows gone and one stale, the totals kept with them (as any other path would).
    rows = SeatRound.objects.filter(game=league_game, round_number=3)
    old = list(rows.filter(seat__in=[0, 3, 4]).values(*scoring_services.ROW_FIELDS))
    rows.filter(seat__in=[3, 4]).delete()
    rows.filter(seat=0).update(stones_received=99, won=True, camat_elected=False)
    scoring_services._rows_replace(
        old, list(rows.filter(seat=0).values(*scoring_services.ROW_FIELDS))
    )
    assert_kept(club)
    assert _stored(league_game) != settled

    with CaptureQueriesContext(connection) as queries:
        scoring_services.seat_rounds_settle(**again)

    assert _stored(league_game) == settled
    assert_kept(club)
    assert [sql.split()[0] for sql in [q["sql"] for q in queries][:6]] == [
        "SELECT",  # the seats' players
        "SELECT",  # the cycle's earlier rounds: who it is rated for (R38)
        "INSERT",  # seats 3 and 4 (the rows of seats 0 to 2 are there: skipped)
        "SELECT",  # the stored rows of seats 0 to 2, as they were
        "DELETE",
        "INSERT",  # seats 0 to 2 again
    ]


def test_without_returning_a_settle_reads_the_rounds_rows_first_and_stays_exact(
    league_game, actor, club, load_scenario, settles, monkeypatch
):
    """SQLite before 3.35 has no ``RETURNING`` (Django's ``can_return_columns_from_insert``,
    which only the settle's own question is made to deny here)."""
    record = load_scenario("14_camat_election_reset_25")["record"]
    for data in record["rounds"]:
        _play(league_game, _events(data), actor)
    settled = _stored(league_game)
    again = {key: value for key, value in settles[-1].items() if key != "sql"}
    rows = SeatRound.objects.filter(game=league_game, round_number=3)
    old = list(rows.values(*scoring_services.ROW_FIELDS))
    rows.delete()
    scoring_services._rows_replace(old, [])
    monkeypatch.setattr(scoring_services, "_returning", lambda: False)

    with CaptureQueriesContext(connection) as fresh:
        scoring_services.seat_rounds_settle(**again)  # no row of round 3 there
    assert _stored(league_game) == settled
    assert_kept(club)
    scoring_services.seat_rounds_settle(**again)  # all five there
    assert _stored(league_game) == settled
    assert_kept(club)

    # The seats' players, the cycle's earlier rounds (R38), the round's rows, the insert.
    assert [q["sql"].split()[0] for q in fresh][:4] == ["SELECT", "SELECT", "SELECT", "INSERT"]
    assert "RETURNING" not in fresh[3]["sql"]
