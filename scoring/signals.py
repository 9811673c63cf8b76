"""The league's receivers of model signals: a game deleted takes its rows out of the totals."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import pre_delete
from django.dispatch import receiver

from referee.models import Game
from scoring import services


@receiver(pre_delete, sender=Game, dispatch_uid="scoring.game_deleting")
def game_deleting(sender: Any, instance: Game, **kwargs: Any) -> None:
    """Before ``instance`` and its seat-rounds go (``CASCADE``): ``services.game_deleting``."""
    services.game_deleting(game=instance)
