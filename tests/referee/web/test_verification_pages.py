"""Round verification on the phones and the organiser's page (issue 11), no browser."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.test import Client

from referee import services
from referee.models import Game, RoundVerification, TableToken
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def play_round_1(game: Game) -> None:
    """CEKI_WITH_A_PASS, each move entered from the phone of the seat that made it."""
    for step in CEKI_WITH_A_PASS:
        token = TableToken.objects.get(game=game, seat=step[0], revoked_at__isnull=True)
        services.event_submit(
            game_id=game.pk,
            kind="move",
            payload=record_move(*step),
            actor=services.Actor(token=token),
        )


def tap(client: Client, game: Game, action: str, reason: str = "", number: int = 1) -> Any:
    game.refresh_from_db()
    data = {
        "version": game.version,
        "key": str(uuid.uuid4()),
        "round": number,
        "verdict": action,
        "reason": reason,
    }
    return client.post("/table/verify/", data, headers=HTMX)


def block(html: str) -> str:
    match = re.search(r'<section class="verification.*?</section>', html, re.S)
    return match.group(0) if match else ""


@pytest.fixture
def phones(joined, game) -> dict[Any, Client]:
    clients: dict[Any, Client] = {seat: joined(game, seat=seat) for seat in range(5)}
    clients["keeper"] = joined(game)
    play_round_1(game)
    return clients


def test_every_phone_shows_the_settled_round_and_only_other_seats_may_confirm(phones, game) -> None:
    andi = block(phones[0].get("/table/").content.decode())  # he entered its last move
    assert 'data-status="unverified"' in andi
    assert 'name="verdict" value="confirm"' not in andi
    assert "This phone entered the round's last move" in andi
    besse = block(phones[1].get("/table/").content.decode())
    assert 'name="verdict" value="confirm"' in besse
    assert 'name="verdict" value="dispute"' in besse
    keeper = block(phones["keeper"].get("/table/").content.decode())
    assert 'data-status="unverified"' in keeper
    assert 'name="verdict" value="confirm"' not in keeper


def test_a_confirmation_shows_on_every_phone_with_who_confirmed(phones, game) -> None:
    response = tap(phones[1], game, "confirm")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Round 1 confirmed from this phone." in html
    for client in (phones[2], phones[0], phones["keeper"]):
        shown = block(client.get("/table/").content.decode())
        assert "Round 1 confirmed by Besse (seat 1)." in shown
        assert 'name="verdict" value="confirm"' not in shown
    assert 'name="verdict" value="dispute"' in block(phones[2].get("/table/").content.decode())


def test_the_seat_that_entered_the_last_move_is_refused_by_the_referee_too(phones, game) -> None:
    response = tap(phones[0], game, "confirm")
    assert response.status_code == 403
    assert 'data-code="verification_own_entry"' in response.content.decode()
    assert not RoundVerification.objects.exists()


def test_a_dispute_needs_a_reason(phones, game) -> None:
    response = tap(phones[2], game, "dispute", "  ")
    assert response.status_code == 400
    assert 'data-code="verification_reason_invalid"' in response.content.decode()


def test_a_dispute_is_flagged_for_the_organiser_until_marked_confirmed(
    phones, game, client: Client, organiser
) -> None:
    game.created_by = organiser
    game.save(update_fields=["created_by"])
    assert tap(phones[2], game, "dispute", "Daeng played 2-4, not 2-5").status_code == 200
    for phone in (phones[1], phones[4]):
        shown = block(phone.get("/table/").content.decode())
        assert "Round 1 disputed by Cakra (seat 2):" in shown
        assert "Daeng played 2-4, not 2-5" in shown
    client.force_login(organiser)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "1 round is disputed" in page
    assert 'data-status="disputed"' in page
    assert "Daeng played 2-4, not 2-5" in page
    response = client.post(f"/games/{game.pk}/rounds/1/resolve/", {"note": "checked"})
    assert response.status_code == 302
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "round is disputed" not in page
    assert "Round 1: the organiser marked it confirmed." in page
    assert "the organiser marked it confirmed" in block(phones[3].get("/table/").content.decode())


def test_another_organisers_resolve_is_the_organisers_only_page(
    phones, game, client: Client, organiser
) -> None:
    client.force_login(organiser)  # not this game's organiser (it has none)
    assert client.post(f"/games/{game.pk}/rounds/1/resolve/").status_code == 403
    assert client.post(f"/games/{uuid.uuid4()}/rounds/1/resolve/").status_code == 404
    assert tap(phones[2], game, "dispute", "wrong").status_code == 200
    assert phones[3].post(f"/games/{game.pk}/rounds/1/resolve/").status_code == 403  # a phone
    assert RoundVerification.objects.get().status == "disputed"


def test_an_organiser_of_the_games_club_resolves_on_the_page_as_over_the_api(
    phones, game, client: Client
) -> None:
    """Not only the game's creator: an organiser of its club runs it (issue 11 review)."""
    from scoring.models import GameLeague
    from tests.scoring.factories import ClubFactory, OrganiserFactory

    club = ClubFactory(slug="makassar")
    GameLeague.objects.create(game=game, club=club)
    director = OrganiserFactory(club=club).user
    assert tap(phones[2], game, "dispute", "wrong tile").status_code == 200
    client.force_login(director)
    response = client.post(f"/games/{game.pk}/rounds/1/resolve/", {"note": "checked"})
    assert response.status_code == 302
    row = RoundVerification.objects.get()
    assert (row.status, row.resolution, row.note) == ("resolved", "confirmed", "checked")


def test_a_resolution_note_too_long_is_refused_not_cut(
    phones, game, client: Client, organiser
) -> None:
    game.created_by = organiser
    game.save(update_fields=["created_by"])
    assert tap(phones[2], game, "dispute", "wrong").status_code == 200
    client.force_login(organiser)
    response = client.post(f"/games/{game.pk}/rounds/1/resolve/", {"note": "n" * 201}, follow=True)
    assert "at most 200 characters" in response.content.decode()
    assert RoundVerification.objects.get().status == "disputed"  # nothing stored, nothing cut


def test_the_round_stays_verifiable_once_the_next_round_has_hands(phones, game) -> None:
    """Declared hands begin round 2 before its lead: round 1's block stays on the phones."""
    data = {
        "version": game.version,
        "key": str(uuid.uuid4()),
        "tiles": ["0-0", "1-1", "2-2", "3-3", "4-4"],
    }
    game.refresh_from_db()
    data["version"] = game.version
    assert phones[3].post("/table/hand/", data, headers=HTMX).status_code == 201
    shown = block(phones[1].get("/table/").content.decode())
    assert 'data-round="1"' in shown
    assert 'name="verdict" value="confirm"' in shown
    assert tap(phones[1], game, "confirm").status_code == 200
    assert "confirmed by Besse" in block(phones[3].get("/table/").content.decode())
    assert 'name="verdict" value="confirm"' not in block(phones[0].get("/table/").content.decode())


@pytest.mark.parametrize(
    ("language", "confirm", "declare", "pending"),
    [
        ("fr", "Confirmer la manche 1", "Déclarer ma main…", "pas encore vérifiée"),
        ("id", "Konfirmasi ronde 1", "Nyatakan tangan saya…", "belum diperiksa"),
        ("pl", "Potwierdź rundę 1", "Zgłoś moją rękę…", "nie jest jeszcze sprawdzona"),
    ],
)
def test_the_verification_and_the_hand_speak_the_phones_language(
    joined, game, language, confirm, declare, pending
) -> None:
    phone = joined(game, seat=1, **{"Accept-Language": language})
    for seat in (0, 2, 3, 4):
        joined(game, seat=seat)
    play_round_1(game)
    html = phone.get("/table/").content.decode()
    assert confirm in html
    assert declare in html
    assert pending in html
    response = tap(phone, game, "confirm")
    assert response.status_code == 200
    assert 'data-status="confirmed"' in response.content.decode()
    assert "Round 1 confirmed" not in response.content.decode()  # translated too


def test_a_tap_made_before_a_confirmation_arrived_says_the_round_was_confirmed(
    phones, game
) -> None:
    """A confirmation moves the version on (every phone redraws): a tap sent on the older
    version is not applied, and says what changed — not the table's last event, which
    this phone entered itself (R6: Andi, round 1's winner, leads round 2)."""
    game.refresh_from_db()
    seen = game.version
    assert tap(phones[1], game, "confirm").status_code == 200
    data = {"version": seen, "key": str(uuid.uuid4()), "seat": 0, "tile": "2-4"}

    response = phones[0].post("/table/move/", data, headers=HTMX)

    assert response.status_code == 409
    html = response.content.decode()
    assert "Round 1 was confirmed, disputed or resolved first" in html
    assert "earlier tap was entered first" not in html
    game.refresh_from_db()
    assert game.version == seen + 1  # nothing was entered


def test_a_dispute_is_flagged_on_the_run_the_game_page_and_resolved_from_it(
    phones, game, client: Client, organiser
) -> None:
    game.created_by = organiser
    game.save(update_fields=["created_by"])
    assert tap(phones[2], game, "dispute", "Daeng played 2-4, not 2-5").status_code == 200
    client.force_login(organiser)
    page = client.get(f"/games/{game.pk}/manage/").content.decode()
    assert "1 round is disputed" in page
    assert "Daeng played 2-4, not 2-5" in page

    response = client.post(f"/games/{game.pk}/rounds/1/resolve/")

    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/manage/#verifications"
    page = client.get(f"/games/{game.pk}/manage/").content.decode()
    assert "round is disputed" not in page
    assert "Round 1: the organiser marked it confirmed." in page


def test_another_organiser_of_the_games_club_may_resolve_its_dispute(
    phones, game, client: Client, organiser
) -> None:
    from scoring.models import GameLeague
    from tests.factories import UserFactory
    from tests.scoring.factories import ClubFactory, OrganiserFactory

    club = ClubFactory(slug="makassar")
    OrganiserFactory(club=club, user=organiser)
    GameLeague.objects.create(game=game, club=club)
    game.created_by = UserFactory(username="first-organiser")
    game.save(update_fields=["created_by"])
    assert tap(phones[2], game, "dispute", "Daeng played 2-4, not 2-5").status_code == 200
    client.force_login(organiser)

    response = client.post(f"/games/{game.pk}/rounds/1/resolve/")

    assert response.status_code == 302
    row = RoundVerification.objects.get(game=game, round_number=1)
    assert (row.status, row.resolution) == ("resolved", "confirmed")
