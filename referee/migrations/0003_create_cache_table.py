"""The database cache's table (``CACHES["default"]``): throttles and lockouts shared by
every worker and kept across restarts. ``createcachetable`` does nothing for a cache that
is not on the database, or whose table exists."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("referee", "0002_game_club_game_season_seat_player")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
