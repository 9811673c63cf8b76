"""Routes of the phone web form, mounted at ``/``."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

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
    path("table/notice/", views.notice, name="notice"),
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
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="web:login"), name="logout"),
    # A forgotten password: Django's reset pages; the e-mail goes to the terminal of
    # ``make run`` (the console backend) unless EMAIL_BACKEND says otherwise.
    path(
        "accounts/password-reset/",
        auth_views.PasswordResetView.as_view(
            template_name="referee/password_reset.html",
            email_template_name="referee/password_reset_email.txt",
            subject_template_name="referee/password_reset_subject.txt",
            success_url=reverse_lazy("web:password_reset_done"),
        ),
        name="password_reset",
    ),
    path(
        "accounts/password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="referee/password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "accounts/password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="referee/password_set.html",
            success_url=reverse_lazy("web:password_reset_complete"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="referee/password_set_done.html"
        ),
        name="password_reset_complete",
    ),
]
