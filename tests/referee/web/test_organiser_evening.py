"""The organiser's pages over a club's evening (issue 28): each refusal said once, clearly,
on the form that caused it, and the round page's flags."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import translation

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


# This new texts: each reads in every language of the pages (fr, pl, id).
NEW_TEXTS = [
    "Seat anyway a player who sits in another open game",
    "%(player)s already sits in another open game (%(game)s). To seat them in this game "
    "as well (they stay seated in the other until its organiser changes it), tick “Seat "
    "anyway” and create it again.",
    "A player",
    "Choose one of the players of the club the game counts for.",
    "To seat a club's players, open the form for that club:",
    "Choose a player or type a name, not both.",
    "Not sent",
    "Nothing was changed: the page was open too long, or this browser's cookies are off. "
    "Reload the page and try again.",
    "Back to the page",
]


@pytest.mark.parametrize("language", ["fr", "pl", "id"])
def test_this_evenings_new_texts_are_translated(language: str) -> None:
    with translation.override(language):
        untranslated = [msgid for msgid in NEW_TEXTS if translation.gettext(msgid) == msgid]
    assert untranslated == []


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


# -- a form sent without its CSRF token ------------------------------------------------------


def test_a_form_sent_without_a_valid_csrf_token_gets_the_sites_page_with_a_way_back(
    organiser,
) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(organiser)

    response = client.post(
        "/games/", {"seat_0": "A"}, HTTP_REFERER="http://testserver/games/?league=1"
    )

    assert response.status_code == 403
    assert [t.name for t in response.templates][0] == "referee/csrf_failure.html"
    page = text(response)
    assert "the page was open too long, or this browser's cookies are off" in page
    assert "csrf_failed" in page
    assert 'href="http://testserver/games/?league=1"' in response.content.decode()


def test_the_csrf_page_speaks_the_pages_language_and_links_only_back_to_this_site(
    organiser,
) -> None:
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(organiser)

    response = client.post("/games/", {}, HTTP_REFERER="https://evil.example/")

    assert response.status_code == 403
    assert "la page est restée ouverte trop longtemps" in text(response)
    assert "evil.example" not in response.content.decode()


def test_a_csrf_failure_under_the_api_is_a_problem(rf) -> None:
    from referee.api.problems import csrf_failure

    response = csrf_failure(rf.post("/api/v1/games/"), reason="CSRF cookie not set.")

    assert response.status_code == 403
    assert response["Content-Type"].startswith("application/problem+json")
    assert b'"code":"permission_denied"' in response.content.replace(b" ", b"")


# -- the round page flags an award unpaid or paid in part (R23) -------------------------------


@pytest.mark.parametrize(
    ("starting_stones", "flag"),
    [
        # The PASSEBUNGE takes 2 from the table (R23a); the CEKI owes the CUCUQ 3 (R23b),
        # the shortfall from the FIRST CAPPU, who holds none.
        (2, "Evi is owed the round's award but receives no stone: there was nothing left"),
        (4, "Evi receives 2 of the 3 stones the round awards: there was nothing more to give"),
        (25, None),
    ],
)
def test_the_round_page_flags_an_award_unpaid_or_paid_in_part_r23(
    signed_in, organiser, scorekeeper, starting_stones, flag
) -> None:
    from referee import services
    from tests.referee.web.conftest import PLAYERS, enter

    game = services.game_create(
        players=list(PLAYERS), rules={"starting_stones": starting_stones}, created_by=organiser
    )
    enter(game, scorekeeper(game), pages.CEKI)

    page = text(signed_in.get(f"/games/{game.pk}/rounds/1/"))

    assert "CEKI" in page
    if flag is None:
        assert "(R23)" not in page
    else:
        assert flag in page


# -- a voided round keeps its chain on show (R35) ---------------------------------------------


def test_a_voided_rounds_chain_stays_on_the_phones_until_the_next_lead_r35(
    signed_in, organiser, scorekeeper, joined
) -> None:
    """R35: the phones show the voided round as it stood, its chain with it, as they show a
    finished one, until the next round is led."""
    import re

    from referee import services
    from tests.referee.web.conftest import PLAYERS, enter

    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    enter(game, scorekeeper(game), pages.CEKI[:5])  # four tiles laid and a pass
    phone = joined(game, seat=2)
    posted = form(game, reason="tiles shown")
    assert signed_in.post(f"/games/{game.pk}/rounds/1/void/", posted).status_code == 302

    page = phone.get("/table/").content.decode()

    board = page.split('<section class="board', 1)[1].split("</section>", 1)[0]
    assert len(re.findall(r'<li title="([^"]+)"', board)) == 4
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])  # round 2's lead
    board = phone.get("/table/").content.decode().split('<section class="board', 1)[1]
    assert len(re.findall(r'<li title="([^"]+)"', board.split("</section>", 1)[0])) == 1
