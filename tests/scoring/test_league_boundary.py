"""The league depends on the referee, never the reverse, down to the tables (issue 14).

No referee model holds a relation into the league (``scoring``): a game's club and season
and a seat's registered player are the league's rows (``GameLeague``, ``SeatPlayer``),
and no referee migration after ``0007`` (which dropped those columns) depends on
``scoring``. The migrations that moved them copy the rows both ways, on SQLite (``make
run``) and on PostgreSQL.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from django.apps import apps
from django.conf import settings
from django.db.migrations.loader import MigrationLoader

from tests.config.test_settings import run_python

DROPPED = ("referee", "0007_game_league_and_seat_player_to_scoring")
BEFORE = [
    ("referee", "0006_round_verification"),
    ("scoring", "0004_fill_player_totals_and_ratings"),
]


def test_no_field_of_a_referee_model_is_a_relation_to_a_league_model():
    forward = [
        f"{model.__name__}.{field.name}"
        for model in apps.get_app_config("referee").get_models()
        for field in model._meta.get_fields()
        if field.is_relation
        and not field.auto_created  # a reverse relation is the league's own field
        and field.related_model is not None
        and field.related_model._meta.app_label == "scoring"
    ]

    assert forward == []


def test_the_league_relation_test_would_see_a_foreign_key_into_the_league():
    """The test above can fail: the league's own models do hold such fields."""
    seat_player = apps.get_model("scoring", "SeatPlayer")
    fields = [f for f in seat_player._meta.get_fields() if f.is_relation and not f.auto_created]

    assert {f.related_model._meta.app_label for f in fields} == {"referee", "scoring"}


def test_no_referee_migration_after_the_move_depends_on_the_league():
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    later = [
        node
        for node in graph.nodes
        if node[0] == "referee" and node != DROPPED and DROPPED in graph.forwards_plan(node)
    ]
    leaning = {
        node: [dep for dep in graph.nodes[node].dependencies if dep[0] == "scoring"]
        for node in later
    }

    assert {node: deps for node, deps in leaning.items() if deps} == {}
    assert [d[0] for d in graph.nodes[DROPPED].dependencies] == ["referee", "scoring"]


MIGRATE = """
import json
import django
django.setup()
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = %(before)r


def old_models():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    return executor.loader.project_state(BEFORE).apps


def leagues_before(old):
    Game, Seat = old.get_model("referee", "Game"), old.get_model("referee", "Seat")
    return {
        "games": sorted(
            [str(pk), club, season]
            for pk, club, season in Game.objects.values_list("pk", "club_id", "season_id")
        ),
        "seats": sorted(
            [str(g), n, p] for g, n, p in Seat.objects.values_list("game_id", "number", "player_id")
        ),
    }


old = old_models()
Club, Season = old.get_model("scoring", "Club"), old.get_model("scoring", "Season")
Player = old.get_model("scoring", "Player")
Game, Seat = old.get_model("referee", "Game"), old.get_model("referee", "Seat")
club = Club.objects.create(name="Makassar", slug="makassar")
season = Season.objects.create(club=club, name="2026")
andi = Player.objects.create(club=club, display_name="Andi")
besse = Player.objects.create(club=club, display_name="Besse")
in_season = Game.objects.create(rules={}, club=club, season=season)
in_club = Game.objects.create(rules={}, club=club)
friendly = Game.objects.create(rules={}, state={})
sitting = {in_season: [andi, None, besse, None, None], in_club: [None, None, None, None, andi]}
for game in (in_season, in_club, friendly):
    for number in range(5):
        player = sitting.get(game, [None] * 5)[number]
        Seat.objects.create(game=game, number=number, name=f"seat {number}", player=player)
before = leagues_before(old)

executor = MigrationExecutor(connection)
executor.migrate(executor.loader.graph.leaf_nodes())
from scoring.models import GameLeague, SeatPlayer
moved = {
    "leagues": sorted(
        [str(g), c, s] for g, c, s in GameLeague.objects.values_list("game", "club", "season")
    ),
    "seats": sorted(
        [str(g), n, p]
        for g, n, p in SeatPlayer.objects.values_list("seat__game", "seat__number", "player")
    ),
}
back = leagues_before(old_models())
ids = {"in_season": str(in_season.pk), "in_club": str(in_club.pk), "friendly": str(friendly.pk)}
people = {"club": club.pk, "season": season.pk, "andi": andi.pk, "besse": besse.pk}
print(json.dumps({"before": before, "moved": moved, "back": back, "ids": ids, **people}))
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request, tmp_path) -> Any:
    """A database of its own, empty, for a migration from zero (SQLite: ``make run``'s)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'db.sqlite3'}"
        return
    db = settings.DATABASES["default"]
    name = f"{db['NAME']}_league_move"[:63]
    server = f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} user={db['USER']}"
    with psycopg.connect(f"{server} dbname=postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
        yield f"postgres://{db['USER']}@{host}:{port}/{name}"
    finally:
        with psycopg.connect(f"{server} dbname=postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_the_move_copies_clubs_seasons_and_seat_players_to_the_league_and_back(empty_database):
    run = run_python(
        MIGRATE % {"before": BEFORE},
        DATABASE_URL=empty_database,
        DJANGO_SETTINGS_MODULE="config.settings.local",
    )

    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    ids, club, season, andi, besse = (out[k] for k in ("ids", "club", "season", "andi", "besse"))
    assert out["moved"]["leagues"] == sorted(
        [[ids["in_season"], club, season], [ids["in_club"], club, None]]
    )
    assert out["moved"]["seats"] == sorted(
        [[ids["in_season"], 0, andi], [ids["in_season"], 2, besse], [ids["in_club"], 4, andi]]
    )
    assert out["back"] == out["before"]  # reversed: the referee's columns as they were
    assert [ids["friendly"], None, None] in out["before"]["games"]
