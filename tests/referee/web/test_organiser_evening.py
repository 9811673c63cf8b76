"""The organiser's pages over a club's evening (issue 28): each refusal said once, clearly,
on the form that caused it, and the round page's flags."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.referee.web import test_organiser_pages as pages
from tests.referee.web.test_organiser_pages import form, text

# The organiser pages' fixtures: a signed-in organiser, a played game, a club's game.
organiser, played, signed_in, club_game = (
    pages.organiser,
    pages.played,
    pages.signed_in,
    pages.club_game,
)

pytestmark = pytest.mark.django_db


def director_of(game: Any) -> Client:
    client = Client()
    client.force_login(game.created_by)
    return client


# -- a bad choice is said once ---------------------------------------------------------------


def test_a_correction_with_a_seat_not_at_the_table_says_so_once_r37(signed_in, played) -> None:
    posted = form(played, op="insert", what="pass", seat="9", reason="typo")

    response = signed_in.post(f"/games/{played.pk}/rounds/2/correct/", posted)

    assert response.status_code == 400
    assert response.context["add_form"].errors == {
        "seat": ["Select a valid choice. 9 is not one of the available choices."]
    }
    assert "Choose the event and its seat." not in text(response)


def test_a_substitute_chosen_from_outside_the_club_is_refused_once_r38(club_game) -> None:
    posted = form(club_game, player="999999", name="", reason="left early")

    response = director_of(club_game).post(f"/games/{club_game.pk}/seats/2/substitute/", posted)

    assert response.status_code == 400
    page = text(response)
    assert page.count("Select a valid choice.") == 1
    assert "Type a name or choose a club player" not in page


def test_a_new_games_seat_given_another_clubs_player_is_refused_once_on_that_seat(
    club_game,
) -> None:
    from tests.scoring.factories import ClubFactory, PlayerFactory

    stranger = PlayerFactory(club=ClubFactory(slug="elsewhere"), display_name="Stranger")
    seats = {f"seat_{n}": name for n, name in enumerate(["", "B", "C", "D", "E"])}
    posted = {**seats, "seat_0_player": str(stranger.pk), "league": str(club_game.league.club_id)}

    response = director_of(club_game).post("/games/", posted)

    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == ["seat_0_player"]
