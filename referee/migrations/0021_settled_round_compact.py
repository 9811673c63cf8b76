"""``SettledRound.compact`` (issue 29): the rows stored before it written again as orjson's
compact text, the bytes an answer gives for their round, and marked so. The text's JSON is
unchanged (parsed by ``json.loads`` and written again); a row orjson cannot write (an
integer beyond 64 bits) is left as it is, not compact, and is read as before."""

import json

import orjson
from django.db import migrations, models

BATCH = 2000


def compact_rows(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return  # elsewhere the ORM writes the rows: none is compact
    table = connection.ops.quote_name(apps.get_model("referee", "SettledRound")._meta.db_table)
    last = 0
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                f"SELECT id, record::text, result::text FROM {table} "
                "WHERE id > %s AND NOT compact ORDER BY id LIMIT %s",
                [last, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            last = rows[-1][0]
            updates = []
            for pk, record, result in rows:
                try:
                    texts = [
                        orjson.dumps(json.loads(text), option=orjson.OPT_NON_STR_KEYS).decode()
                        for text in (record, result)
                    ]
                except (TypeError, ValueError, orjson.JSONEncodeError):
                    continue
                updates.append((*texts, pk))
            if updates:
                cursor.executemany(
                    f"UPDATE {table} SET record = %s::json, result = %s::json, compact = true "
                    "WHERE id = %s",
                    updates,
                )


class Migration(migrations.Migration):
    dependencies = [
        ("referee", "0020_table_token_notice_seen"),
    ]

    operations = [
        migrations.AddField(
            model_name="settledround",
            name="compact",
            field=models.BooleanField(
                default=False, help_text="Whether record and result hold orjson's compact text."
            ),
        ),
        migrations.RunPython(compact_rows, migrations.RunPython.noop),
    ]
