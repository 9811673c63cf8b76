"""The organiser's "New game" form: the club (and season) the game counts for.

The referee asks the registered league (``referee.league.League.new_game_leagues``) for
the clubs the signed-in user organises and their open seasons; a game created for one
shows in that club's room view and counts for its season. A club the user does not
organise is refused with a message saying so, and nothing is created.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from referee import league as referee_league
from referee.models import Game
from scoring import room
from scoring.models import Club
from tests.factories import UserFactory
from tests.scoring.factories import ClubFactory, OrganiserFactory, SeasonFactory

pytestmark = pytest.mark.django_db

NAMES = ["Wulan", "Baso", "Icha", "Upi", "Rahma"]
SEATS = {f"seat_{n}": name for n, name in enumerate(NAMES)}


@pytest.fixture
def director() -> Any:
    return UserFactory(username="director")


@pytest.fixture
def club(director: Any) -> Club:
    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    OrganiserFactory(club=club, user=director)
    return club


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_no_league_offers_no_club() -> None:
    assert referee_league.League().new_game_leagues(user=None) == []


def test_the_form_offers_the_clubs_the_user_organises_and_their_open_seasons(
    director, club
) -> None:
    season = SeasonFactory(club=club, name="Dry season 2026")
    SeasonFactory(club=club, name="Old season", is_archived=True)
    ClubFactory(name="Another club", slug="another")  # organised by someone else

    page = signed_in(director).get("/games/").content.decode()

    assert '<select name="league"' in page
    assert f'<option value="{club.pk}" selected>Makassar Domeng Club</option>' in page
    assert f'value="{club.pk}/{season.pk}">Makassar Domeng Club · Dry season 2026<' in page
    assert "Old season" not in page
    assert "Another club" not in page


def test_a_game_created_for_the_club_counts_for_it_and_shows_in_its_room_view(
    director, club
) -> None:
    response = signed_in(director).post("/games/", {**SEATS, "league": str(club.pk)})

    game = Game.objects.get(created_by=director)
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    assert (game.league.club_id, game.league.season_id) == (club.pk, None)
    tables = Client().get(room.room_url(club)).content.decode()
    assert "Wulan" in tables
    assert "Rahma" in tables


def test_a_game_created_for_a_season_counts_for_that_season(director, club) -> None:
    season = SeasonFactory(club=club)

    signed_in(director).post("/games/", {**SEATS, "league": f"{club.pk}/{season.pk}"})

    game = Game.objects.get(created_by=director)
    assert (game.league.club_id, game.league.season_id) == (club.pk, season.pk)


def test_a_friendly_game_counts_for_no_club(director, club) -> None:
    signed_in(director).post("/games/", {**SEATS, "league": ""})

    assert not hasattr(Game.objects.get(created_by=director), "league")  # a friendly game


def test_a_club_the_user_does_not_organise_is_refused_and_nothing_is_created(
    director, club
) -> None:
    other = ClubFactory(name="Another club", slug="another")
    foreign_season = SeasonFactory(club=other)

    for key in (str(other.pk), f"{other.pk}/{foreign_season.pk}", f"{club.pk}/{foreign_season.pk}"):
        response = signed_in(director).post("/games/", {**SEATS, "league": key})

        assert response.status_code == 400
        assert "You do not organise this club" in response.content.decode()
    assert not Game.objects.exists()


def test_an_archived_season_is_refused(director, club) -> None:
    season = SeasonFactory(club=club, is_archived=True)

    response = signed_in(director).post("/games/", {**SEATS, "league": f"{club.pk}/{season.pk}"})

    assert response.status_code == 400
    assert "its season is archived" in response.content.decode()
    assert not Game.objects.exists()


def test_an_organiser_removed_since_the_form_was_drawn_is_refused_by_the_league(
    director, club, monkeypatch
) -> None:
    """The league itself refuses (``not_club_organiser``, 403) when the form offered a club
    the user no longer organises: the page says so, nothing is created."""
    offered = referee_league.league().new_game_leagues(user=director)
    club.memberships.all().delete()
    monkeypatch.setattr(
        type(referee_league.league()), "new_game_leagues", lambda self, *, user: offered
    )

    response = signed_in(director).post("/games/", {**SEATS, "league": str(club.pk)})

    assert response.status_code == 403
    assert "Only an organiser of this club may do this." in response.content.decode()
    assert not Game.objects.exists()


def test_a_user_who_organises_no_club_gets_no_choice(director) -> None:
    client = signed_in(director)

    assert 'name="league"' not in client.get("/games/").content.decode()
    client.post("/games/", {**SEATS, "league": "1"})  # not a field of this form: ignored
    assert not hasattr(Game.objects.get(created_by=director), "league")  # a friendly game


def test_another_organiser_of_the_club_opens_the_games_join_page(director, club) -> None:
    signed_in(director).post("/games/", {**SEATS, "league": str(club.pk)})
    game = Game.objects.get(created_by=director)
    colleague = UserFactory(username="colleague")
    OrganiserFactory(club=club, user=colleague)

    assert signed_in(colleague).get(f"/games/{game.pk}/").status_code == 200
    assert signed_in(UserFactory(username="stranger")).get(f"/games/{game.pk}/").status_code == 404


def test_names_typed_for_a_club_seat_its_registered_players_and_the_rest_as_guests(
    director, club
) -> None:
    """The form takes names; in a club's game a name that is exactly one registered player's
    (letter case and spaces aside) seats that player, so the standings count them (R3)."""
    from tests.scoring.factories import PlayerFactory

    wulan = PlayerFactory(club=club, display_name="Wulan")
    baso = PlayerFactory(club=club, display_name="Baso")
    PlayerFactory(club=club, display_name="Icha")
    PlayerFactory(club=club, display_name="Icha")  # two of one name: who is meant is unknown
    PlayerFactory(club=ClubFactory(slug="other"), display_name="Upi")  # another club's
    typed = {**SEATS, "seat_0": "  wulan ", "seat_1": "BASO"}

    response = signed_in(director).post("/games/", {**typed, "league": str(club.pk)})

    assert response.status_code == 302
    game = Game.objects.get()
    seats = list(game.seats.order_by("number").values_list("name", "registered__player"))
    assert seats == [
        ("Wulan", wulan.pk),
        ("Baso", baso.pk),
        ("Icha", None),
        ("Upi", None),
        ("Rahma", None),
    ]


def test_names_typed_for_a_friendly_game_stay_guests(director, club) -> None:
    from tests.scoring.factories import PlayerFactory

    PlayerFactory(club=club, display_name="Wulan")

    response = signed_in(director).post("/games/", {**SEATS, "league": ""})

    assert response.status_code == 302
    game = Game.objects.get()
    assert not hasattr(game, "league")  # no GameLeague: a friendly game
    assert list(game.seats.values_list("registered__player", flat=True)) == [None] * 5


def test_each_seat_offers_the_club_players_to_choose_from(director, club) -> None:
    """The form's seat pickers list the players of the clubs the user organises, by club:
    not a merged player, not another club's."""
    from tests.scoring.factories import PlayerFactory

    wulan = PlayerFactory(club=club, display_name="Wulan", member_number="0042")
    merged = PlayerFactory(club=club, display_name="Gone")
    merged.merged_into = wulan
    merged.save()
    PlayerFactory(club=ClubFactory(slug="other"), display_name="Stranger")

    page = signed_in(director).get("/games/").content.decode()

    for seat in range(5):
        assert f'<select name="seat_{seat}_player"' in page
    assert '<optgroup label="Makassar Domeng Club">' in page
    assert f'<option value="{wulan.pk}">Wulan (0042)</option>' in page
    assert "Gone" not in page
    assert "Stranger" not in page


def test_two_players_of_one_name_are_listed_apart(director, club) -> None:
    """Two club players called Icha with no member number would be two identical options:
    each is listed with its id; a player whose name is the club's only one keeps it bare."""
    from tests.scoring.factories import PlayerFactory

    first, second = (PlayerFactory(club=club, display_name="Icha") for _ in range(2))
    numbered = PlayerFactory(club=club, display_name="Icha", member_number="7")
    wulan = PlayerFactory(club=club, display_name="Wulan")

    page = signed_in(director).get("/games/").content.decode()

    assert f'<option value="{first.pk}">Icha (#{first.pk})</option>' in page
    assert f'<option value="{second.pk}">Icha (#{second.pk})</option>' in page
    assert f'<option value="{numbered.pk}">Icha (7)</option>' in page
    assert f'<option value="{wulan.pk}">Wulan</option>' in page


def test_players_chosen_per_seat_are_seated_even_two_of_one_name(director, club) -> None:
    """A seat's chosen player sits it (R3), so the standings credit that player: here the
    second of two players called Icha, whom a typed name could not tell apart."""
    from tests.scoring.factories import PlayerFactory

    wulan = PlayerFactory(club=club, display_name="Wulan")
    PlayerFactory(club=club, display_name="Icha")
    second_icha = PlayerFactory(club=club, display_name="Icha")
    chosen = {
        **SEATS,
        "seat_0": "",
        "seat_0_player": str(wulan.pk),
        "seat_2": "",
        "seat_2_player": str(second_icha.pk),
    }

    response = signed_in(director).post("/games/", {**chosen, "league": str(club.pk)})

    assert response.status_code == 302, response.content.decode()
    seats = list(
        Game.objects.get().seats.order_by("number").values_list("name", "registered__player")
    )
    assert seats == [
        ("Wulan", wulan.pk),
        ("Baso", None),
        ("Icha", second_icha.pk),
        ("Upi", None),
        ("Rahma", None),
    ]


def test_a_seat_needs_a_player_or_a_name(director, club) -> None:
    from tests.scoring.factories import PlayerFactory

    PlayerFactory(club=club, display_name="Wulan")

    response = signed_in(director).post(
        "/games/", {**SEATS, "seat_3": "  ", "seat_3_player": "", "league": str(club.pk)}
    )

    assert response.status_code == 400
    assert "Choose a player of the club or type a name." in response.content.decode()
    assert not Game.objects.exists()


def test_a_chosen_player_in_a_friendly_game_is_refused(director, club) -> None:
    """A club's player sits a game of their club only (``club_required``): nothing is made."""
    from tests.scoring.factories import PlayerFactory

    wulan = PlayerFactory(club=club, display_name="Wulan")

    response = signed_in(director).post(
        "/games/", {**SEATS, "seat_0_player": str(wulan.pk), "league": ""}
    )

    assert response.status_code == 400
    assert not Game.objects.exists()


def test_a_player_seated_in_another_open_game_is_named_and_seated_only_when_confirmed(
    director, club
) -> None:
    """R38: a club player who sits in another open game is refused as the API refuses
    (409 ``player_seated_elsewhere``), the form naming the player and that game; ticking
    "Seat anyway" seats them deliberately."""
    from tests.scoring.factories import PlayerFactory

    wulan = PlayerFactory(club=club, display_name="Wulan")
    client = signed_in(director)
    first = {**SEATS, "seat_0": "", "seat_0_player": str(wulan.pk), "league": str(club.pk)}
    assert client.post("/games/", first).status_code == 302
    again = {**first, "seat_1": "Ani", "seat_2": "Cici", "seat_3": "Dodi", "seat_4": "Eka"}

    response = client.post("/games/", again)

    assert response.status_code == 409
    page = response.content.decode()
    assert "Wulan already sits in another open game (Wulan · Baso · Icha · Upi · Rahma)" in page
    assert 'name="seat_anyway"' in page
    codes = [e.code for e in response.context["form"].non_field_errors().as_data()]
    assert codes == ["player_seated_elsewhere"]
    assert Game.objects.count() == 1

    response = client.post("/games/", {**again, "seat_anyway": "on"})

    assert response.status_code == 302
    assert Game.objects.count() == 2


def test_an_organiser_of_two_clubs_is_offered_only_the_players_of_the_club_the_form_is_for(
    director, club
) -> None:
    """R3: a seat's picker lists the players of one club, the one the form counts for
    (``?league=``, as the club's pages link to it); opened for no club, it offers none and
    links to each club's form instead."""
    from tests.scoring.factories import PlayerFactory

    other = ClubFactory(name="Parepare Club", slug="parepare")
    OrganiserFactory(club=other, user=director)
    wulan = PlayerFactory(club=club, display_name="Wulan")
    PlayerFactory(club=other, display_name="Stranger")
    client = signed_in(director)

    page = client.get(f"/games/?league={club.pk}").content.decode()

    assert f'<option value="{wulan.pk}">Wulan</option>' in page
    assert "Stranger" not in page
    assert f'<option value="{club.pk}" selected>' in page
    page = client.get("/games/").content.decode()
    assert 'name="seat_0_player"' not in page
    assert f'href="?league={other.pk}"' in page
    club_page = client.get(f"/clubs/{other.slug}/manage/").content.decode()
    assert f'href="/games/?league={other.pk}"' in club_page


def test_another_clubs_player_chosen_for_a_seat_is_refused_on_that_seat(director, club) -> None:
    from tests.scoring.factories import PlayerFactory

    other = ClubFactory(name="Parepare Club", slug="parepare")
    OrganiserFactory(club=other, user=director)
    stranger = PlayerFactory(club=other, display_name="Stranger")
    posted = {**SEATS, "seat_0": "", "seat_0_player": str(stranger.pk), "league": str(club.pk)}

    response = signed_in(director).post("/games/", posted)

    assert response.status_code == 400
    assert response.context["form"].errors["seat_0_player"] == [
        "Choose one of the players of the club the game counts for."
    ]
    assert not Game.objects.exists()


def test_a_seat_given_both_a_chosen_player_and_a_typed_name_is_refused(director, club) -> None:
    """R3: a seat has one player; when the form names two, neither silently wins."""
    from tests.scoring.factories import PlayerFactory

    wulan = PlayerFactory(club=club, display_name="Wulan")
    posted = {**SEATS, "seat_1_player": str(wulan.pk), "league": str(club.pk)}  # and "Baso"

    response = signed_in(director).post("/games/", posted)

    assert response.status_code == 400
    assert response.context["form"].errors == {
        "seat_1": ["Choose a player or type a name, not both."]
    }
    assert response.context["form"].errors.as_data()["seat_1"][0].code == "player_and_name"
    assert not Game.objects.exists()


def test_a_name_typed_of_a_merged_player_seats_the_player_they_were_merged_into(
    director, club
) -> None:
    """R3: a merge keeps the merged player's row (``merged_into``); their name typed for a
    seat is the surviving player, whom the standings credit, not a guest."""
    from scoring import services as scoring_services
    from tests.scoring.factories import PlayerFactory

    wulan = PlayerFactory(club=club, display_name="Wulan Sari")
    duplicate = PlayerFactory(club=club, display_name="Wulan")
    scoring_services.player_merge(duplicate=duplicate, survivor=wulan, by=director)

    response = signed_in(director).post("/games/", {**SEATS, "league": str(club.pk)})

    assert response.status_code == 302
    seat = Game.objects.get().seats.get(number=0)
    assert (seat.name, seat.registered.player_id) == ("Wulan Sari", wulan.pk)
