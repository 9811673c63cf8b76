from django.apps import AppConfig


class ScoringConfig(AppConfig):
    """The scorekeeper: stones and CAMAT arithmetic (the pure part lives in scoring.core)."""

    name = "scoring"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from scoring import signals  # noqa: F401  (connects the receivers)
