"""The referee's rows stop pointing at the league (issue 14): a game's club and season and
a seat's registered player are the league's now (``scoring`` 0005, ``GameLeague`` and
``SeatPlayer``, copied there first). No later referee migration depends on ``scoring``."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("referee", "0006_round_verification"),
        ("scoring", "0005_game_league_and_seat_players"),
    ]

    operations = [
        migrations.RemoveField(model_name="game", name="club"),
        migrations.RemoveField(model_name="game", name="season"),
        migrations.RemoveField(model_name="seat", name="player"),
    ]
