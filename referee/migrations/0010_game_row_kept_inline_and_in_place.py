"""Keep a game row's cached state inline, uncompressed, and updated in place (PostgreSQL).

A game's ``state`` (jsonb, the round's events and the standing, ≈ 2–5 KB) is written by
every move and read by every request of a phone:

- past PostgreSQL's default ``toast_tuple_target`` (≈ 2 KB) each write tried to compress
  it (pglz); ``toast_tuple_target = 8160`` keeps a row of up to a page as it is (a larger
  state is still compressed or moved out of line, as before);
- with pages filled to the brim, a third of the moves' updates found no room on the row's
  page and wrote a new entry into each of the game's four indexes; ``fillfactor = 50``
  leaves room for the next version beside it (a HOT update: no index is touched). The
  games table is small (one row a game), so half-full pages cost little.

Nothing on SQLite.
"""

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        table = schema_editor.quote_name(apps.get_model("referee", "Game")._meta.db_table)
        schema_editor.execute(f"ALTER TABLE {table} SET (toast_tuple_target = 8160, fillfactor = 50)")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        table = schema_editor.quote_name(apps.get_model("referee", "Game")._meta.db_table)
        schema_editor.execute(f"ALTER TABLE {table} RESET (toast_tuple_target, fillfactor)")


class Migration(migrations.Migration):
    dependencies = [("referee", "0009_game_revocations")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
