"""Routes of the referee's API: games, moves, corrections, tokens. ``config.api_urls``
mounts them at ``/api/v1/`` beside the league's (``scoring.api.urls``)."""

from django.urls import path

from referee.api import computer, games, rulings, tables, verification
from referee.api.views import RecordScoreView

urlpatterns = [
    path("records/score/", RecordScoreView.as_view(), name="records-score"),
    path("games/", games.GameListCreateView.as_view(), name="games"),
    path("games/import/", games.GameImportView.as_view(), name="games-import"),
    path("join/", tables.JoinView.as_view(), name="join"),
    path("join/lockouts/lift/", tables.JoinLockoutLiftView.as_view(), name="join-lockouts-lift"),
    path("games/<uuid:game_id>/", games.GameDetailView.as_view(), name="game"),
    path("games/<uuid:game_id>/moves/", games.MoveView.as_view(), name="game-moves"),
    path("games/<uuid:game_id>/hands/", games.HandView.as_view(), name="game-hands"),
    path("games/<uuid:game_id>/reveals/", games.RevealView.as_view(), name="game-reveals"),
    path("games/<uuid:game_id>/undo/", games.UndoView.as_view(), name="game-undo"),
    path("games/<uuid:game_id>/events/", games.EventLogView.as_view(), name="game-events"),
    path(
        "games/<uuid:game_id>/events/<int:position>/",
        games.EventAmendView.as_view(),
        name="game-event",
    ),
    path(
        "games/<uuid:game_id>/corrections/",
        rulings.CorrectionsView.as_view(),
        name="game-corrections",
    ),
    path(
        "games/<uuid:game_id>/rounds/<int:number>/void/",
        rulings.RoundVoidView.as_view(),
        name="game-round-void",
    ),
    path(
        "games/<uuid:game_id>/rounds/<int:number>/adjustments/",
        rulings.RoundAdjustmentView.as_view(),
        name="game-round-adjustments",
    ),
    path(
        "games/<uuid:game_id>/rounds/<int:number>/confirm/",
        verification.RoundConfirmView.as_view(),
        name="game-round-confirm",
    ),
    path(
        "games/<uuid:game_id>/rounds/<int:number>/dispute/",
        verification.RoundDisputeView.as_view(),
        name="game-round-dispute",
    ),
    path(
        "games/<uuid:game_id>/rounds/<int:number>/resolve/",
        verification.RoundResolveView.as_view(),
        name="game-round-resolve",
    ),
    path("games/<uuid:game_id>/seats/<int:seat>/", rulings.SeatView.as_view(), name="game-seat"),
    path(
        "games/<uuid:game_id>/seats/<int:seat>/substitutes/",
        rulings.SeatSubstituteView.as_view(),
        name="game-seat-substitutes",
    ),
    path("games/<uuid:game_id>/sessions/", games.SessionStartView.as_view(), name="game-sessions"),
    path(
        "games/<uuid:game_id>/sessions/end/",
        games.SessionEndView.as_view(),
        name="game-session-end",
    ),
    path("games/<uuid:game_id>/close/", games.GameCloseView.as_view(), name="game-close"),
    path("games/<uuid:game_id>/tokens/", tables.GameTokensView.as_view(), name="game-tokens"),
    path(
        "games/<uuid:game_id>/tokens/<int:token_id>/revoke/",
        tables.TokenRevokeView.as_view(),
        name="game-token-revoke",
    ),
    path(
        "games/<uuid:game_id>/seats/<int:seat>/release/",
        tables.SeatReleaseView.as_view(),
        name="game-seat-release",
    ),
    path("games/<uuid:game_id>/leave/", tables.LeaveView.as_view(), name="game-leave"),
    path("games/<uuid:game_id>/record/", games.GameRecordView.as_view(), name="game-record"),
    path("games/<uuid:game_id>/result/", games.GameResultView.as_view(), name="game-result"),
    path(
        "games/<uuid:game_id>/seats/<int:seat>/computer/",
        computer.SeatComputerView.as_view(),
        name="game-seat-computer",
    ),
    path(
        "games/<uuid:game_id>/seats/<int:seat>/computer/hand/",
        computer.ComputerHandView.as_view(),
        name="game-seat-computer-hand",
    ),
    path(
        "games/<uuid:game_id>/computer/move/",
        computer.ComputerMoveView.as_view(),
        name="game-computer-move",
    ),
]
