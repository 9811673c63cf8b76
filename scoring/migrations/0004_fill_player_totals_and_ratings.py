"""Fill the players' totals and the stored ratings from the seat-rounds already stored.

The totals are one aggregate per scope (season, lifetime); the ratings a fold
of each scope's completed CAMAT cycles in the order ``club_ratings`` folds
them (``scoring.ratings``), with each player's step after each cycle. From then
on ``scoring.services`` keeps them.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations
from django.db.models import Count, Q, Sum

from scoring import ratings as ratings_core

COUNTED = ("first_cappu", "ceki", "pollo", "manguno", "mattikkeng", "cucuq", "camat_elected")
SUMMED = ("passes", "passebunge", "stones_received", "stones_given")


def fill(apps: Any, schema_editor: Any) -> None:
    SeatRound = apps.get_model("scoring", "SeatRound")
    PlayerTotals = apps.get_model("scoring", "PlayerTotals")
    PlayerRating = apps.get_model("scoring", "PlayerRating")
    RatingFold = apps.get_model("scoring", "RatingFold")
    RatingStep = apps.get_model("scoring", "RatingStep")
    aggregates: dict[str, Any] = {
        "t_rounds_played": Count("id"),
        "t_rounds_won": Count("id", filter=Q(won=True)),
        **{f"t_{name}": Count("id", filter=Q(**{name: True})) for name in COUNTED},
        **{f"t_{name}": Sum(name) for name in SUMMED},
    }
    rows = SeatRound.objects.filter(club__isnull=False, player__isnull=False).order_by()
    totals = []
    for grouping, seasoned in (
        (("club_id", "season_id", "player_id"), True),
        (("club_id", "player_id"), False),
    ):
        for line in rows.values(*grouping).annotate(**aggregates):
            if seasoned and line["season_id"] is None:
                continue
            totals.append(
                PlayerTotals(
                    club_id=line["club_id"],
                    season_id=line["season_id"] if seasoned else None,
                    player_id=line["player_id"],
                    **{key[2:]: value for key, value in line.items() if key.startswith("t_")},
                )
            )
    PlayerTotals.objects.bulk_create(totals, batch_size=1000)

    ends = SeatRound.objects.filter(club__isnull=False, cycle_ended=True).order_by()
    scopes = {(club, None) for club in ends.values_list("club_id", flat=True).distinct()}
    scopes |= set(ends.filter(season__isnull=False).values_list("club_id", "season_id").distinct())
    model = ratings_core.rating_model()
    for club_id, season_id in sorted(scopes, key=lambda scope: (scope[0], scope[1] or 0)):
        scoped = ends.filter(club_id=club_id)
        if season_id is not None:
            scoped = scoped.filter(season_id=season_id)
        lines = scoped.order_by("played_at", "game_id", "round_number", "seat").values_list(
            "game_id", "round_number", "player_id", "camat_elected", "stones_held", "played_at"
        )
        ratings: dict[int, Any] = {}
        cycles: dict[int, int] = {}
        last: dict[int, Any] = {}
        tables: list[list[tuple[Any, ...]]] = []
        for line in lines:
            if not tables or tables[-1][0][:2] != line[:2]:
                tables.append([])
            tables[-1].append(line)
        steps = []
        for table in tables:
            seats = [ratings_core.CycleSeat(row[2], row[3], row[4]) for row in table]
            ratings_core.rate_cycle(model, ratings, seats)
            game, number, _, _, _, played_at = table[0]
            seated = [row[2] for row in table if row[2] is not None]
            for player in seated:
                cycles[player] = cycles.get(player, 0) + 1
                last[player] = played_at
            steps += [  # one step per player and cycle
                RatingStep(
                    club_id=club_id,
                    season_id=season_id,
                    player_id=player,
                    played_at=played_at,
                    game=game,
                    round_number=number,
                    mu=ratings[player].mu,
                    sigma=ratings[player].sigma,
                    cycles=cycles[player],
                )
                for player in dict.fromkeys(seated)
            ]
        RatingStep.objects.bulk_create(steps, batch_size=1000)
        game, number, _, _, _, played_at = tables[-1][0]
        RatingFold.objects.create(
            club_id=club_id,
            season_id=season_id,
            cycles=len(tables),
            last_played_at=played_at,
            last_game=game,
            last_round=number,
        )
        PlayerRating.objects.bulk_create(
            PlayerRating(
                club_id=club_id,
                season_id=season_id,
                player_id=player,
                mu=rating.mu,
                sigma=rating.sigma,
                cycles=cycles[player],
                last_played_at=last[player],
            )
            for player, rating in ratings.items()
        )


def empty(apps: Any, schema_editor: Any) -> None:
    for name in ("PlayerTotals", "PlayerRating", "RatingStep", "RatingFold"):
        apps.get_model("scoring", name).objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("scoring", "0003_player_totals_and_ratings")]

    operations = [migrations.RunPython(fill, empty)]
