"""Issue 28: a club starts and runs from the browser alone — the first run's one-time link,
the organiser's pages of a club (players, seasons, organisers), signing in and out and a
forgotten password. Every write goes through the league's services."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.db import transaction
from django.test import Client

from referee.models import SetupLink
from referee.setup import setup_link_claim, setup_link_issue
from scoring.models import Club, Membership, Player, Season
from tests.factories import UserFactory
from tests.scoring.factories import MembershipFactory, OrganiserFactory, PlayerFactory
from tests.threads import run_together

PASSWORD = "a tall domino stone 42"


def _signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _first_run_data(**extra: str) -> dict[str, str]:
    return {
        "username": "daeng",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "club_name": "Makassar Domeng Club",
        "slug": "makassar",
        "time_zone": "Asia/Makassar",
        "language": "id",
        **extra,
    }


def _printed_key() -> str:
    out = io.StringIO()
    call_command("serve", "--port", "8123", "--dry-run", stdout=out)
    match = re.search(r"http://127\.0\.0\.1:8123/setup/([\w-]+)/", out.getvalue())
    assert match, out.getvalue()
    return match.group(1)


# -- the first run ----------------------------------------------------------------------


@pytest.mark.django_db
def test_serve_prints_a_one_time_setup_link_on_a_fresh_database() -> None:
    first = _printed_key()
    second = _printed_key()  # printed again at the next start: a new key, the old one dropped
    assert first != second
    assert SetupLink.objects.filter(used_at__isnull=True).count() == 1
    assert Client().get(f"/setup/{first}/").status_code == 410
    assert Client().get(f"/setup/{second}/").status_code == 200
    assert not SetupLink.objects.filter(key_hash__in=[first, second]).exists()  # hashed


@pytest.mark.django_db
def test_serve_prints_no_setup_link_once_an_account_exists() -> None:
    UserFactory()
    out = io.StringIO()
    call_command("serve", "--port", "8123", "--dry-run", stdout=out)
    assert "/setup/" not in out.getvalue()
    assert setup_link_issue() is None


@pytest.mark.django_db
def test_the_first_run_makes_the_organiser_and_the_club_then_the_link_is_dead() -> None:
    key = setup_link_issue()
    assert key is not None
    client = Client()
    page = client.get(f"/setup/{key}/")
    assert page.status_code == 200
    assert page.context["form"].fields["time_zone"].initial == "UTC"  # the server's zone

    answer = client.post(f"/setup/{key}/", _first_run_data())

    assert answer.status_code == 302
    assert answer["Location"] == "/clubs/makassar/manage/"
    assert answer.cookies["django_language"].value == "id"
    user = get_user_model().objects.get(username="daeng")
    assert user.check_password(PASSWORD)
    club = Club.objects.get(slug="makassar")
    assert club.time_zone == "Asia/Makassar"
    assert club.language == "id"  # the language chosen is the club's too
    assert Membership.objects.get(club=club, user=user).role == Membership.Role.ORGANISER
    assert client.get("/clubs/makassar/manage/").status_code == 200  # signed in
    gone = Client().get(f"/setup/{key}/")
    assert gone.status_code == 410
    assert "no longer works" in gone.content.decode()
    again = Client().post(f"/setup/{key}/", _first_run_data(username="other", slug="other"))
    assert again.status_code == 410
    assert get_user_model().objects.count() == 1


@pytest.mark.django_db
def test_the_first_run_refuses_a_weak_password_and_an_unknown_zone_and_keeps_the_link() -> None:
    key = setup_link_issue()
    assert key is not None
    answer = Client().post(
        f"/setup/{key}/",
        _first_run_data(password1="1234", password2="1234", time_zone="Mars/Olympus"),
    )
    assert answer.status_code == 400
    errors = answer.context["form"].errors
    assert "password2" in errors
    assert "time_zone" in errors
    assert not get_user_model().objects.exists()
    assert Client().get(f"/setup/{key}/").status_code == 200


@pytest.mark.django_db
def test_an_unknown_setup_key_is_gone() -> None:
    assert Client().get("/setup/not-a-key/").status_code == 410


@pytest.mark.django_db(transaction=True)
def test_two_tabs_sending_the_first_run_at_once_make_one_account() -> None:
    key = setup_link_issue()
    assert key is not None

    def send(index: int) -> int:
        data = _first_run_data(username=f"tab{index}", slug=f"club-{index}")
        return Client().post(f"/setup/{key}/", data).status_code

    statuses = sorted(run_together(2, send))

    assert statuses == [302, 410]
    assert get_user_model().objects.count() == 1
    assert Club.objects.count() == 1


@pytest.mark.django_db
def test_a_claimed_link_cannot_be_claimed_again() -> None:
    key = setup_link_issue()
    assert key is not None
    with transaction.atomic():
        assert setup_link_claim(key)
    with transaction.atomic():
        assert not setup_link_claim(key)


# -- who may open a club's pages --------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["", "players/", "seasons/", "organisers/"])
def test_only_the_clubs_organisers_open_its_pages(club: Club, organiser: Any, page: str) -> None:
    url = f"/clubs/{club.slug}/manage/{page}"
    anonymous = Client().get(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")
    member = MembershipFactory(club=club, user=UserFactory(username="reader")).user
    assert _signed_in(member).get(url).status_code == 403
    stranger = OrganiserFactory(user=UserFactory(username="stranger")).user
    assert _signed_in(stranger).get(url).status_code == 404  # a private club is not shown
    assert _signed_in(organiser).get(url).status_code == 200
    assert _signed_in(organiser).get(f"/clubs/no-such-club/manage/{page}").status_code == 404


# -- the club, its players and seasons ---------------------------------------------------


@pytest.mark.django_db
def test_the_organiser_edits_the_club_and_its_old_slug_leads_on(club: Club, organiser: Any) -> None:
    client = _signed_in(organiser)
    data = {
        "name": "Domeng Montréal",
        "slug": "montreal",
        "time_zone": "America/Montreal",
        "language": "fr",
    }
    answer = client.post(f"/clubs/{club.slug}/manage/", data)
    assert answer.status_code == 302
    assert answer["Location"] == "/clubs/montreal/manage/"
    club.refresh_from_db()
    assert (club.name, club.slug, club.time_zone, club.is_public) == (
        "Domeng Montréal",
        "montreal",
        "America/Montreal",
        False,
    )
    assert club.old_slugs.filter(slug="makassar").exists()


@pytest.mark.django_db
def test_the_organiser_registers_players_and_a_taken_member_number_is_refused(
    club: Club, organiser: Any
) -> None:
    client = _signed_in(organiser)
    url = f"/clubs/{club.slug}/manage/players/"
    assert client.post(url, {"display_name": "Daeng", "member_number": "0042"}).status_code == 302
    daeng = Player.objects.get(club=club, display_name="Daeng")
    assert daeng.member_number == "0042"

    taken = client.post(url, {"display_name": "Evi", "member_number": "0042"})

    assert taken.status_code == 409  # member_number_taken, drawn on its field
    assert taken.context["form"].errors["member_number"] == [
        "Another player of the club has this member number."
    ]
    assert not Player.objects.filter(display_name="Evi").exists()
    edit = client.post(f"{url}{daeng.pk}/", {"display_name": "Daeng Rani", "member_number": ""})
    assert edit.status_code == 302
    daeng.refresh_from_db()
    assert (daeng.display_name, daeng.member_number) == ("Daeng Rani", "")
    assert "Daeng Rani" in client.get(url).content.decode()


@pytest.mark.django_db
def test_a_player_of_another_club_is_not_found(club: Club, organiser: Any) -> None:
    elsewhere = PlayerFactory()
    url = f"/clubs/{club.slug}/manage/players/{elsewhere.pk}/"
    assert _signed_in(organiser).get(url).status_code == 404


@pytest.mark.django_db
def test_the_organiser_opens_edits_and_closes_a_season(club: Club, organiser: Any) -> None:
    client = _signed_in(organiser)
    url = f"/clubs/{club.slug}/manage/seasons/"
    opened = client.post(url, {"name": "2026", "starts_on": "2026-01-01", "ends_on": "2026-12-31"})
    assert opened.status_code == 302
    season = Season.objects.get(club=club, name="2026")
    backwards = client.post(
        f"{url}{season.pk}/", {"name": "2026", "starts_on": "2026-06-01", "ends_on": "2026-01-01"}
    )
    assert backwards.status_code == 400
    assert "ends_on" in backwards.context["form"].errors
    twice = client.post(url, {"name": "2026"})
    assert twice.status_code == 409
    assert "name" in twice.context["form"].errors
    assert client.post(f"{url}{season.pk}/", {"archive": "1"}).status_code == 302
    season.refresh_from_db()
    assert season.is_archived
    assert season.archived_at is not None


# -- a second organiser, signing in and out, a forgotten password -------------------------


@pytest.mark.django_db
def test_a_second_organiser_gets_an_account_and_sets_a_password_from_the_link(
    club: Club, organiser: Any
) -> None:
    client = _signed_in(organiser)
    url = f"/clubs/{club.slug}/manage/organisers/"
    answer = client.post(url, {"username": "besse", "email": "besse@example.org"}, follow=True)
    assert answer.status_code == 200
    besse = get_user_model().objects.get(username="besse")
    assert not besse.has_usable_password()
    assert Membership.objects.get(club=club, user=besse).role == Membership.Role.ORGANISER
    shown = re.search(r"http://testserver(/accounts/password/[^\s<]+/)", answer.content.decode())
    assert shown, answer.content.decode()
    assert len(mail.outbox) == 1
    assert shown.group(1) in mail.outbox[0].body

    other = Client()
    form = other.get(shown.group(1), follow=True)
    assert form.status_code == 200
    assert form.context["validlink"]
    done = other.post(
        form.redirect_chain[-1][0], {"new_password1": PASSWORD, "new_password2": PASSWORD}
    )
    assert done.status_code == 302
    signed = other.post("/accounts/login/", {"username": "besse", "password": PASSWORD})
    assert signed.status_code == 302
    assert other.get(url).status_code == 200
    assert other.post("/accounts/logout/").status_code == 302
    assert other.get(url).status_code == 302  # signed out: the sign-in page


@pytest.mark.django_db
def test_an_existing_account_becomes_an_organiser(club: Club, organiser: Any) -> None:
    reader = MembershipFactory(club=club, user=UserFactory(username="reader")).user
    url = f"/clubs/{club.slug}/manage/organisers/"
    assert _signed_in(organiser).post(url, {"username": "reader"}).status_code == 302
    assert Membership.objects.get(club=club, user=reader).role == Membership.Role.ORGANISER
    assert reader.has_usable_password()  # untouched
    assert mail.outbox == []


@pytest.mark.django_db
def test_a_forgotten_password_is_reset_from_the_mailed_link(organiser: Any) -> None:
    client = Client()
    assert "/accounts/password-reset/" in client.get("/accounts/login/").content.decode()
    sent = client.post("/accounts/password-reset/", {"email": organiser.email})
    assert sent.status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(/accounts/password/\S+/)", mail.outbox[0].body)
    assert link, mail.outbox[0].body
    form = client.get(link.group(1), follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": PASSWORD, "new_password2": PASSWORD})
    organiser.refresh_from_db()
    assert organiser.check_password(PASSWORD)


@pytest.mark.django_db
def test_the_login_page_says_how_to_get_an_account() -> None:
    page = Client().get("/accounts/login/").content.decode()
    assert "setup link" in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "taken"),
    [
        ("pl", "Inny gracz klubu ma ten numer członkowski."),
        ("fr", None),
        ("id", None),
    ],
)
def test_a_refusal_on_a_club_page_reads_in_the_language_asked(
    club: Club, organiser: Any, language: str, taken: str | None
) -> None:
    """The service's refusal (member_number_taken) and a form error, under Accept-Language."""
    from django.utils import translation

    PlayerFactory(club=club, display_name="Daeng", member_number="0042")
    client = _signed_in(organiser)
    url = f"/clubs/{club.slug}/manage/players/"
    answer = client.post(
        url, {"display_name": "Evi", "member_number": "0042"}, HTTP_ACCEPT_LANGUAGE=language
    )
    assert answer.status_code == 409
    with translation.override(language):
        expected = translation.gettext("Another player of the club has this member number.")
        required = translation.gettext("This field is required.")
    assert expected != "Another player of the club has this member number."
    if taken is not None:
        assert expected == taken
    assert answer.context["form"].errors["member_number"] == [expected]
    empty = client.post(url, {}, HTTP_ACCEPT_LANGUAGE=language)
    assert empty.status_code == 400
    assert empty.context["form"].errors["display_name"] == [required]
    assert required != "This field is required."
