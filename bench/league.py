"""League reads at size: standings and a player's history for seasons of 1k, 10k, 100k rounds.

Each size is its own club with one season, ``PLAYERS`` registered players
and games of ``ROUNDS_PER_GAME`` rounds, each seating five of them. The rows
are written directly, as ``tests/scoring/factories.py`` does for query tests:
games and seats with ``bulk_create``, the five ``SeatRound`` rows of every
round with PostgreSQL's ``COPY`` (playing 100k rounds through the API would
take an hour). The numbers in them are random but shaped like real rounds
(one winner, a FIRST CAPPU or a block, passes, stones). Then the club's stored
totals and ratings are counted from those rows (``scoring.services.league_recount``,
what the services keep as they write rows; timed apart) and ``ANALYZE``.

Each endpoint is requested as a club member with a DRF token through
Django's test ``Client`` (the whole middleware and DRF stack, no HTTP
server): the median time of ``repeat`` requests, and the queries of one
(``CaptureQueriesContext``), which must not change with the size.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
import time
import uuid
from dataclasses import dataclass
from typing import Any

PLAYERS = 30
ROUNDS_PER_GAME = 40

ENDPOINTS = (
    ("season standings (JSON page)", "seasons/{season}/standings/"),
    ("season standings (CSV, every row)", "seasons/{season}/standings/?format=csv"),
    ("lifetime standings (JSON page)", "standings/"),
    ("player's rounds (history page)", "players/{player}/rounds/"),
    ("player's games (history page)", "players/{player}/games/"),
    ("season ratings", "ratings/?season={season}"),
    ("lifetime ratings", "ratings/"),
)

SEAT_ROUND_COLUMNS = (
    "game_id",
    "round_number",
    "seat",
    "player_id",
    "club_id",
    "season_id",
    "played_at",
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
    "cycle_player_id",
)


@dataclass
class League:
    rounds: int
    slug: str
    season: int
    player: int
    player_rows: int
    build_seconds: float
    recount_seconds: float


def build(rounds: int, *, rng: random.Random) -> League:
    """A club whose one season has ``rounds`` settled rounds (five seat-rounds each)."""
    from django.db import connection
    from django.utils import timezone

    from referee.engine import DEFAULT_RULES
    from referee.models import Game, Seat, new_join_code
    from scoring import services
    from scoring.models import Club, GameLeague, Player, Season, SeatPlayer, SeatRound

    start = time.perf_counter()
    slug = f"bench-{rounds}"
    club = Club.objects.create(name=f"Bench club {rounds}", slug=slug)
    season = Season.objects.create(club=club, name=f"{rounds} rounds")
    players = Player.objects.bulk_create(
        Player(club=club, display_name=f"Player {i:02d}") for i in range(PLAYERS)
    )
    games_count = -(-rounds // ROUNDS_PER_GAME)
    rules = DEFAULT_RULES.to_dict()
    began = timezone.now() - dt.timedelta(days=365)
    games = Game.objects.bulk_create(
        Game(
            id=uuid.uuid4(),
            join_code=new_join_code(),
            rules=rules,
            status=Game.Status.CLOSED,
            state={},
        )
        for _ in range(games_count)
    )
    GameLeague.objects.bulk_create(
        GameLeague(game=game, club=club, season=season) for game in games
    )
    seating = [rng.sample(players, 5) for _ in games]
    seats = Seat.objects.bulk_create(
        Seat(game=game, number=n, name=player.display_name)
        for game, seated in zip(games, seating, strict=True)
        for n, player in enumerate(seated)
    )
    SeatPlayer.objects.bulk_create(
        SeatPlayer(seat=seat, player=player)
        for seat, player in zip(seats, (p for seated in seating for p in seated), strict=True)
    )
    table = SeatRound._meta.db_table
    copy_sql = f"COPY {table} ({', '.join(SEAT_ROUND_COLUMNS)}) FROM STDIN"
    left = rounds
    with connection.cursor() as cursor, cursor.cursor.copy(copy_sql) as copy:
        for g, (game, seated) in enumerate(zip(games, seating, strict=True)):
            for number in range(1, min(ROUNDS_PER_GAME, left) + 1):
                played_at = began + dt.timedelta(minutes=g * ROUNDS_PER_GAME + number)
                for row in _round_rows(rng, number):
                    seat = row["seat"]
                    copy.write_row(
                        (game.pk, number, seat, seated[seat].pk, club.pk, season.pk, played_at)
                        + tuple(row[c] for c in SEAT_ROUND_COLUMNS[7:-1])
                        + ((seated[seat].pk if row["cycle_ended"] else None),)  # one sitter
                    )
            left -= ROUNDS_PER_GAME
    recount_seconds = 0.0
    recount = getattr(services, "league_recount", None)  # absent before stored totals
    if recount is not None:
        began_recount = time.perf_counter()
        recount(club=club)
        recount_seconds = time.perf_counter() - began_recount
    with connection.cursor() as cursor:
        for model in (SeatRound, Game, Seat, Player, *_stored_models()):
            cursor.execute(f"ANALYZE {model._meta.db_table}")
    player = players[0]
    return League(
        rounds=rounds,
        slug=slug,
        season=season.pk,
        player=player.pk,
        player_rows=SeatRound.objects.filter(player=player).count(),
        build_seconds=time.perf_counter() - start,
        recount_seconds=recount_seconds,
    )


def _stored_models() -> list[Any]:
    """The stored totals and ratings, if this tree has them."""
    from scoring import models

    names = ("PlayerTotals", "PlayerRating", "RatingFold")
    return [getattr(models, name) for name in names if hasattr(models, name)]


def _round_rows(rng: random.Random, number: int) -> list[dict[str, Any]]:
    """The five seat-rounds of one plausible settled round."""
    winner = rng.randrange(5)
    blocked = rng.random() < 0.2
    finish = rng.random()
    camat = winner if rng.random() < 0.03 else None
    cucuq = rng.choice([s for s in range(5) if s != winner])
    rows = []
    for seat in range(5):
        won = seat == winner
        received = rng.randint(1, 6) if won else 0
        rows.append(
            {
                "seat": seat,
                "won": won,
                "first_cappu": won and not blocked,
                "ceki": won and not blocked and finish < 0.1,
                "pollo": won and not blocked and 0.1 <= finish < 0.15,
                "manguno": won and blocked,
                "mattikkeng": blocked and not won and rng.random() < 0.2,
                "cucuq": seat == cucuq,
                "passes": rng.randint(0, 3),
                "passebunge": int(rng.random() < 0.15),
                "stones_received": received,
                "stones_given": 0 if won else rng.randint(0, 2),
                "stones_held": rng.randint(0, 12),
                "camat_elected": seat == camat,
                "cycle_ended": camat is not None,
            }
        )
    return rows


def measure(league: League, *, repeat: int, token: str) -> list[dict[str, Any]]:
    """Median time and query count of each endpoint for this league."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    rows = []
    for label, pattern in ENDPOINTS:
        url = f"/api/v1/clubs/{league.slug}/" + pattern.format(
            season=league.season, player=league.player
        )
        _get(client, url)  # warm: plans, caches
        with CaptureQueriesContext(connection) as queries:
            _get(client, url)
        count = len(queries)  # now: the next request's request_started resets the log
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            _get(client, url)
            times.append(time.perf_counter() - start)
        rows.append(
            {
                "endpoint": label,
                "url": url,
                "rounds": league.rounds,
                "ms_median": statistics.median(times) * 1e3,
                "ms_min": min(times) * 1e3,
                "queries": count,
            }
        )
    return rows


def refolds(league: League, *, repeat: int) -> list[dict[str, Any]]:
    """What a change to a CAMAT cycle costs the stored ratings of the season (R24): folded
    again from its latest cycle (a correction at the table tonight) and from its first
    (a correction of the season's first evening, an old paper game imported): the median
    time of ``repeat`` runs, each in a transaction rolled back."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from scoring import services
    from scoring.models import SeatRound

    fold_from = getattr(services, "_fold_from", None)
    if fold_from is None:  # a tree without stored ratings
        return []
    ends = SeatRound.objects.filter(season_id=league.season, cycle_ended=True, seat=0)
    order = ("played_at", "game_id", "round_number")
    rows = []
    for label, row in (
        ("ratings folded again from the latest cycle", ends.order_by(*order).last()),
        ("ratings folded again from the first cycle", ends.order_by(*order).first()),
    ):
        assert row is not None
        start = (row.played_at, row.game_id, row.round_number)
        times = []
        count = 0
        for _ in range(repeat):
            with transaction.atomic(), CaptureQueriesContext(connection) as queries:
                fold = services._fold_locked(row.club_id, row.season_id)
                began = time.perf_counter()
                fold_from(fold, start)
                times.append(time.perf_counter() - began)
                count = len(queries)
                transaction.set_rollback(True)
        rows.append(
            {
                "endpoint": label,
                "url": "",
                "rounds": league.rounds,
                "ms_median": statistics.median(times) * 1e3,
                "ms_min": min(times) * 1e3,
                "queries": count,
            }
        )
    return rows


def _get(client: Any, url: str) -> None:
    response = client.get(url, secure=True)
    if response.status_code != 200:
        raise RuntimeError(
            f"league: GET {url} → {response.status_code}: {response.content[:300]!r}"
        )


def run(*, sizes: tuple[int, ...], repeat: int, seed: int = 5) -> dict[str, Any]:
    """Build a league of each size and measure it; check the query counts stay constant."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from scoring.models import Club, Membership

    member = get_user_model().objects.create_user("bench-member")
    token = Token.objects.create(user=member).key
    rng = random.Random(seed)
    leagues = []
    measurements: list[dict[str, Any]] = []
    writes: list[dict[str, Any]] = []
    for size in sizes:
        league = build(size, rng=rng)
        Membership.objects.create(
            club=Club.objects.get(slug=league.slug), user=member, role=Membership.Role.MEMBER
        )
        leagues.append(league)
        measurements += measure(league, repeat=repeat, token=token)
        writes += refolds(league, repeat=max(1, repeat // 3))
    constant = all(m["queries"] > 0 for m in measurements) and all(
        len({m["queries"] for m in measurements if m["endpoint"] == label}) == 1
        for label, _ in ENDPOINTS
    )
    return {
        "sizes": list(sizes),
        "leagues": [vars(league) for league in leagues],
        "measurements": measurements,
        "refolds": writes,
        "queries_constant": constant,
        "players": PLAYERS,
        "rounds_per_game": ROUNDS_PER_GAME,
    }
