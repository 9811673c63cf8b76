"""Routes of the phone web form, mounted at ``/``."""

from django.contrib.auth import views as auth_views
from django.urls import path

from referee.web import computer, hands, organiser, rulings, verification, views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("join/<str:code>/", views.join, name="join"),
    path("leave/", views.leave, name="leave"),
    path("table/", views.table, name="table"),
    path("table/live/", views.live, name="live"),
    path("table/move/", views.move, name="move"),
    path("table/reveal/", views.reveal, name="reveal"),
    path("table/undo/", views.undo, name="undo"),
    path("table/hand/", hands.declare, name="hand"),
    path("table/verify/", verification.verify, name="verify"),
    path("games/", views.organiser_games, name="organiser-games"),
    path("games/<uuid:game_id>/", views.organiser_game, name="organiser-game"),
    path("games/<uuid:game_id>/computer/", computer.organiser_computer, name="organiser-computer"),
    *organiser.urlpatterns,  # seats, sittings, phones, closing
    *rulings.urlpatterns,  # a round's corrections and rulings
    path(
        "games/<uuid:game_id>/rounds/<int:number>/resolve/",
        verification.organiser_resolve,
        name="organiser-resolve",
    ),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            template_name="referee/login.html", next_page="web:organiser-games"
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="web:home"), name="logout"),
]
