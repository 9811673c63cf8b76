from django.apps import AppConfig


class ScoringConfig(AppConfig):
    """The league: clubs, players, seasons and their records (the stones and CAMAT
    arithmetic of the rules core lives in scoring.core).

    The league depends on the referee, never the reverse: here it registers
    itself as the referee's ``League`` (``referee.league``) and listens to the
    referee's signals (``referee.signals``) to keep its rows in step.
    """

    name = "scoring"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_delete

        from referee import league, signals
        from referee.models import Game
        from scoring import receivers
        from scoring.league import ClubLeague

        signals.game_created.connect(receivers.game_created, dispatch_uid="scoring.created")
        signals.seat_reseated.connect(receivers.seat_reseated, dispatch_uid="scoring.reseated")
        signals.round_settled.connect(receivers.round_settled, dispatch_uid="scoring.settled")
        signals.rounds_changed.connect(receivers.rounds_changed, dispatch_uid="scoring.changed")
        pre_delete.connect(receivers.game_deleting, sender=Game, dispatch_uid="scoring.deleting")
        pre_delete.connect(
            receivers.user_deleting, sender=get_user_model(), dispatch_uid="scoring.user_deleting"
        )
        league.register(ClubLeague())
