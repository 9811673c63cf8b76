from typing import Any

from django.apps import AppConfig


class RefereeConfig(AppConfig):
    """The referee: replays game records under the rules (engine) and serves the API."""

    name = "referee"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from referee import settled, signals
        from referee.services import computer  # noqa: F401  (registers the computer seats' turn, R39)

        # Each settled round is stored in the transaction that settled or judged it (issue 29).
        signals.round_settled.connect(_keep_settled, dispatch_uid="referee.settled")
        signals.rounds_changed.connect(_keep_settled, dispatch_uid="referee.changed")
        del settled


def _keep_settled(sender: Any, *, game: Any, engine: Any = None, **kwargs: Any) -> None:
    """A round was settled, or rounds changed (import, correction, ruling): store the closed
    rounds of the fold that judged them that have no row yet (``referee.settled.keep``)."""
    from referee import settled

    if engine is not None:
        settled.keep(game, engine)
