"""A cycle's last seat-rounds name who the ratings credit with it (``cycle_player``).

Rows stored before it keep what the ratings read then: the player of the cycle's last
round. A game's next correction or ruling brings its rows in line (``seat_rounds_rebuild``).
"""

from __future__ import annotations

from typing import Any

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F


def fill(apps: Any, schema_editor: Any) -> None:
    SeatRound = apps.get_model("scoring", "SeatRound")
    SeatRound.objects.filter(cycle_ended=True).update(cycle_player=F("player"))


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0007_club_time_zone"),
    ]

    operations = [
        migrations.AddField(
            model_name="seatround",
            name="cycle_player",
            field=models.ForeignKey(
                blank=True,
                help_text="On a cycle's last round (cycle_ended): the player the cycle is "
                "rated for, who sat most of its rounds at this seat (R38; a tie: the later "
                "of them).",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="cycles_rated",
                to="scoring.player",
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
