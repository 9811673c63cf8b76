from django.apps import AppConfig


class RefereeConfig(AppConfig):
    """The referee: replays game records under the rules (engine) and serves the API."""

    name = "referee"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from referee.services import computer  # noqa: F401  (registers the computer seats' turn, R39)
