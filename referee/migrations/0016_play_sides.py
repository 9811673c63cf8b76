"""Each stored play keeps the side of the chain it lies on (R11): derive it for the
plays stored before, by folding each game's live events once as ``folding.fold`` does
(a game whose events do not fold is left as it is: its plays are inferred, as before)."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def derive_sides(apps: Any, schema_editor: Any) -> None:
    from referee import folding
    from referee.engine import RefereeError, RuleSet

    game_model = apps.get_model("referee", "Game")
    event_model = apps.get_model("referee", "Event")
    for game in game_model.objects.iterator():
        live = list(
            event_model.objects.filter(game=game, revoked_by__isnull=True).order_by("position")
        )
        if not any(
            e.kind == "move" and "tile" in e.payload and "side" not in e.payload for e in live
        ):
            continue
        entries = [folding.Entry(e.kind, e.payload, e.round_number) for e in live]
        try:
            engine, _ = folding.fold(
                RuleSet.from_dict(game.rules), [(e.kind, e.payload) for e in entries]
            )
        except RefereeError:
            continue
        for event, entry in zip(live, folding.with_sides(engine, entries), strict=True):
            if entry.payload is not event.payload:
                event.payload = entry.payload
                event.save(update_fields=["payload"])


class Migration(migrations.Migration):
    dependencies = [("referee", "0015_table_alert_shared_hands")]

    operations = [migrations.RunPython(derive_sides, migrations.RunPython.noop)]
