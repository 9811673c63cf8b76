"""The league keeps a game's club and season and each seat's registered player (issue 14).

Until now the referee's own rows held them (``referee.Game.club``/``season``,
``referee.Seat.player``): here the league's ``GameLeague`` and ``SeatPlayer``
take them over, copied from those columns; ``referee`` 0007 then drops them,
so the referee's tables no longer point into the league's. Reversed, the rows
are copied back (``referee`` 0007 reversed first puts the columns back).
"""

import django.db.models.deletion
from django.db import migrations, models


def copy_from_referee(apps, schema_editor):
    Game = apps.get_model("referee", "Game")
    Seat = apps.get_model("referee", "Seat")
    Season = apps.get_model("scoring", "Season")
    GameLeague = apps.get_model("scoring", "GameLeague")
    SeatPlayer = apps.get_model("scoring", "SeatPlayer")
    season_club = dict(Season.objects.values_list("pk", "club_id"))
    rows = (
        Game.objects.filter(models.Q(club__isnull=False) | models.Q(season__isnull=False))
        .order_by("pk")
        .values_list("pk", "club_id", "season_id")
    )
    GameLeague.objects.bulk_create(
        (
            GameLeague(game_id=pk, club_id=club or season_club[season], season_id=season)
            for pk, club, season in rows.iterator()
        ),
        batch_size=1000,
    )
    seats = Seat.objects.filter(player__isnull=False).order_by("pk").values_list("pk", "player_id")
    SeatPlayer.objects.bulk_create(
        (SeatPlayer(seat_id=pk, player_id=player) for pk, player in seats.iterator()),
        batch_size=1000,
    )


def copy_to_referee(apps, schema_editor):
    Game = apps.get_model("referee", "Game")
    Seat = apps.get_model("referee", "Seat")
    GameLeague = apps.get_model("scoring", "GameLeague")
    SeatPlayer = apps.get_model("scoring", "SeatPlayer")
    for row in GameLeague.objects.order_by("pk").iterator():
        Game.objects.filter(pk=row.game_id).update(club_id=row.club_id, season_id=row.season_id)
    for row in SeatPlayer.objects.order_by("pk").iterator():
        Seat.objects.filter(pk=row.seat_id).update(player_id=row.player_id)


class Migration(migrations.Migration):
    dependencies = [
        ("referee", "0006_round_verification"),
        ("scoring", "0004_fill_player_totals_and_ratings"),
    ]

    operations = [
        migrations.CreateModel(
            name="GameLeague",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="league",
                        serialize=False,
                        to="referee.game",
                    ),
                ),
                (
                    "club",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="games",
                        to="scoring.club",
                    ),
                ),
                (
                    "season",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="games",
                        to="scoring.season",
                    ),
                ),
            ],
            options={"verbose_name": "game's league"},
        ),
        migrations.CreateModel(
            name="SeatPlayer",
            fields=[
                (
                    "seat",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="registered",
                        serialize=False,
                        to="referee.seat",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="seats",
                        to="scoring.player",
                    ),
                ),
            ],
        ),
        migrations.RunPython(copy_from_referee, copy_to_referee),
    ]
