"""Routes of the league-records API, mounted at ``/api/v1/`` by ``config.api_urls``."""

from django.urls import path

from scoring.api import views

urlpatterns = [
    path("clubs/", views.ClubListCreateView.as_view(), name="clubs"),
    path("clubs/<slug:slug>/", views.ClubDetailView.as_view(), name="club"),
    path(
        "clubs/<slug:slug>/members/",
        views.MembershipListCreateView.as_view(),
        name="club-members",
    ),
    path("clubs/<slug:slug>/players/", views.PlayerListCreateView.as_view(), name="club-players"),
    path(
        "clubs/<slug:slug>/players/<int:pk>/",
        views.PlayerDetailView.as_view(),
        name="club-player",
    ),
    path(
        "clubs/<slug:slug>/players/<int:pk>/merge/",
        views.PlayerMergeView.as_view(),
        name="club-player-merge",
    ),
    path(
        "clubs/<slug:slug>/players/<int:pk>/rounds/",
        views.PlayerRoundsView.as_view(),
        name="club-player-rounds",
    ),
    path(
        "clubs/<slug:slug>/players/<int:pk>/games/",
        views.PlayerGamesView.as_view(),
        name="club-player-games",
    ),
    path("clubs/<slug:slug>/seasons/", views.SeasonListCreateView.as_view(), name="club-seasons"),
    path(
        "clubs/<slug:slug>/seasons/<int:season>/",
        views.SeasonDetailView.as_view(),
        name="club-season",
    ),
    path(
        "clubs/<slug:slug>/seasons/<int:season>/archive/",
        views.SeasonArchiveView.as_view(),
        name="club-season-archive",
    ),
    path(
        "clubs/<slug:slug>/seasons/<int:season>/standings/",
        views.SeasonStandingsView.as_view(),
        name="club-season-standings",
    ),
    path("clubs/<slug:slug>/standings/", views.StandingsView.as_view(), name="club-standings"),
    path(
        "clubs/<slug:slug>/head-to-head/",
        views.HeadToHeadView.as_view(),
        name="club-head-to-head",
    ),
    path("clubs/<slug:slug>/ratings/", views.RatingsView.as_view(), name="club-ratings"),
    path("clubs/<slug:slug>/games/", views.ClubGamesView.as_view(), name="club-games"),
    path(
        "clubs/<slug:slug>/games/<uuid:game_id>/seats/<int:number>/link/",
        views.SeatLinkView.as_view(),
        name="club-game-seat-link",
    ),
]
