"""The organiser's pages: corrections (R37), rulings (R35, R36, R38), sittings (R27), phones
and closing, through plain form posts — success, refusal, and non-organisers (403)."""

from __future__ import annotations

import datetime as dt
import html
import re
import uuid
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client

from referee import services
from referee.models import Correction, Event, Game, GameSession, TableToken
from referee.services import corrections
from tests.referee.web.conftest import PLAYERS, enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

CEKI = [record_move(*step) for step in CEKI_WITH_A_PASS]


@pytest.fixture
def organiser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("orga", password="correct horse battery")


@pytest.fixture
def played(organiser, scorekeeper) -> Game:
    """Round 1 to its CEKI (R15) and round 2 led by the CUCUQ's... first move only."""
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    enter(game, scorekeeper(game), CEKI)
    game.refresh_from_db()
    return game


@pytest.fixture
def signed_in(client: Client, organiser) -> Client:
    client.force_login(organiser)
    return client


def positions(game: Game) -> list[int]:
    return list(
        Event.objects.filter(game=game, revoked_by__isnull=True)
        .order_by("position")
        .values_list("position", flat=True)
    )


def live_payload(game: Game, position: int) -> dict[str, Any]:
    """The live event as entered (a play's stored side of the chain left out, R11)."""
    payload = Event.objects.get(game=game, position=position, revoked_by__isnull=True).payload
    return {k: v for k, v in payload.items() if k != "side"}


def form(game: Game, **fields: Any) -> dict[str, Any]:
    game.refresh_from_db()
    return {"version": game.version, "key": str(uuid.uuid4()), **fields}


def text(response: Any) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


# -- the pages ------------------------------------------------------------------------------


def test_the_game_page_lists_rounds_sittings_seats_and_phones(signed_in, played, joined):
    joined(played, seat=2)

    page = signed_in.get(f"/games/{played.pk}/manage/")

    assert page.status_code == 200
    shown = text(page)
    assert "Round 1 CEKI" in shown  # the round's result in a word (R15)
    assert "Seat 2's phone (web)" in shown
    assert f'href="/games/{played.pk}/rounds/1/"' in page.content.decode()
    assert f'href="/games/{played.pk}/close/"' in page.content.decode()


def test_a_round_page_shows_its_result_and_every_event_with_its_move_number(signed_in, played):
    page = signed_in.get(f"/games/{played.pk}/rounds/1/")

    assert page.status_code == 200
    shown = text(page)
    assert "CEKI" in shown
    assert "Went out: Andi" in shown
    assert "CUCUQ: Evi" in shown
    assert "Besse played 1-6" in shown
    assert "Daeng passed" in shown
    assert page.content.decode().count('class="edit button"') == len(CEKI)


@pytest.mark.parametrize(
    ("language", "first_cappu", "from_the_table"),
    [("pl", "PIERWSZE CAPPU", "od stołu"), ("fr", "PREMIER CAPPU", "de la table")],
)
def test_a_round_pages_stones_moved_read_in_the_pages_language_r23(
    signed_in, played, language, first_cappu, from_the_table
):
    """QA: the stones moved kept the English FIRST CAPPU under another language (the badge
    above was translated), and Polish read "od stół" for "from the table"."""
    from django.utils import translation

    from referee.web.panels import reason_text

    page = signed_in.get(f"/games/{played.pk}/rounds/1/", HTTP_ACCEPT_LANGUAGE=language)

    shown = text(page)
    assert from_the_table in shown  # "2 stones from the table to Daeng" (R23a)
    with translation.override(language):
        # Every page words a transfer's reason the same way (R23a, R36).
        assert reason_text("cappu") == first_cappu
        # ... and as the result's badge names it ("FIRST CAPPU: Andi").
        assert translation.gettext("FIRST CAPPU: %(name)s") % {"name": "Andi"} in (
            f"{first_cappu}: Andi",
            f"{first_cappu} : Andi",
        )
        assert reason_text("ceki") == "CEKI"
        assert reason_text("adjustment") not in ("adjustment", "ADJUSTMENT")


def test_a_round_that_has_not_begun_is_not_found(signed_in, played):
    assert signed_in.get(f"/games/{played.pk}/rounds/9/").status_code == 404


# -- corrections (R37) ----------------------------------------------------------------------


def test_the_organiser_amends_an_earlier_event_with_a_reason_r37(signed_in, played, organiser):
    position = positions(played)[16]  # Besse's 3-4
    url = f"/games/{played.pk}/rounds/1/correct/"

    answer = signed_in.post(
        url,
        form(played, op="amend", position=position, what="play", seat=1, tile="4-4", reason="typo"),
        follow=True,
    )

    assert answer.redirect_chain[-1] == (f"/games/{played.pk}/rounds/1/", 302)
    assert "The event is amended." in text(answer)
    assert live_payload(played, position) == {"seat": 1, "tile": "4-4"}
    correction = Correction.objects.get(game=played, kind=Correction.Kind.CORRECT)
    assert (correction.reason, correction.entered_by) == ("typo", f"user {organiser.username}")
    assert "CAPPU" in text(answer)  # no longer a CEKI: the result follows the replay (R15)


def test_a_correction_that_makes_a_later_event_impossible_is_refused_with_its_place_r37_r7(
    signed_in, played
):
    position = positions(played)[1]  # Besse's 1-6 → 2-6: Cakra's 1-3 no longer fits
    before = played.version

    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/correct/",
        form(
            played,
            op="amend",
            position=position,
            what="play",
            seat=1,
            tile="2-6",
            reason="wrong tile",
        ),
    )

    assert answer.status_code == 422
    page = answer.content.decode()
    assert '<dd class="code-id">tile_does_not_match</dd>' in page
    assert '<dd class="rule-id">R7</dd>' in page
    assert '<dd class="round-id">1</dd>' in page
    assert '<dd class="move-id">3</dd>' in page  # the later event: move index 2
    assert re.search(r'<li id="event-\d+" class=" refused">', page)
    # What was typed is kept: the tile chosen and the reason.
    assert '<option value="2-6" selected>' in page
    assert 'value="wrong tile"' in page
    played.refresh_from_db()
    assert played.version == before
    assert live_payload(played, position) == {"seat": 1, "tile": "1-6"}
    assert not Correction.objects.filter(game=played).exists()


def test_the_organiser_removes_and_inserts_an_event_r37(signed_in, played):
    last = positions(played)[-1]  # Andi's winning 2-3
    url = f"/games/{played.pk}/rounds/1/correct/"

    removed = signed_in.post(url, form(played, op="remove", position=last, reason="not played"))

    assert removed.status_code == 302
    assert last not in positions(played)
    inserted = signed_in.post(
        url,
        form(
            played, op="insert", what="play", seat=0, tile="2-3", on="2", reason="played after all"
        ),
        follow=True,
    )
    assert "The event is inserted." in text(inserted)
    assert Event.objects.filter(game=played, revoked_by__isnull=True).count() == len(CEKI)
    assert "CEKI" in text(inserted)


def test_a_correction_form_missing_its_tile_is_400_and_changes_nothing(signed_in, played):
    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/correct/",
        form(played, op="amend", position=positions(played)[0], what="play", seat=0, reason="x"),
    )

    assert answer.status_code == 400
    assert "A play needs its tile." in answer.content.decode()
    assert not Correction.objects.filter(game=played).exists()


def test_a_stale_correction_says_the_game_changed_and_keeps_the_input(signed_in, played):
    stale = form(
        played,
        op="amend",
        position=positions(played)[16],
        what="play",
        seat=1,
        tile="4-4",
        reason="typo",
    )
    stale["version"] = played.version - 1

    answer = signed_in.post(f"/games/{played.pk}/rounds/1/correct/", stale)

    assert answer.status_code == 409
    page = answer.content.decode()
    assert "version_mismatch" in page
    assert 'value="typo"' in page
    assert f'name="version" value="{played.version}"' in page  # sent again, it applies
    assert f'name="version" value="{played.version - 1}"' not in page
    again = {**stale, "version": played.version}
    assert signed_in.post(f"/games/{played.pk}/rounds/1/correct/", again).status_code == 302


def test_a_doubled_correction_counts_once(signed_in, played):
    data = form(
        played,
        op="amend",
        position=positions(played)[16],
        what="play",
        seat=1,
        tile="4-4",
        reason="typo",
    )
    url = f"/games/{played.pk}/rounds/1/correct/"

    first = signed_in.post(url, data)
    second = signed_in.post(url, data)

    assert (first.status_code, second.status_code) == (302, 302)
    assert Correction.objects.filter(game=played).count() == 1


# -- rulings (R35, R36, R38) ----------------------------------------------------------------


def test_the_organiser_voids_a_round_with_a_reason_r35(signed_in, played):
    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/void/", form(played, reason="tiles shown"), follow=True
    )

    assert "Round 1 is void." in text(answer)
    assert "void — tiles shown" in text(answer)
    assert Event.objects.get(game=played, kind="void").payload["reason"] == "tiles shown"


def test_a_void_without_a_reason_is_refused_and_nothing_is_voided_r35(signed_in, played):
    answer = signed_in.post(f"/games/{played.pk}/rounds/1/void/", form(played, reason=""))

    assert answer.status_code == 400
    assert not Event.objects.filter(game=played, kind="void").exists()


def test_a_reason_that_changes_its_own_direction_is_refused_and_kept_in_the_form_r35(
    signed_in, played
):
    """A reason is shown on every phone as typed: a right-to-left override is refused."""
    reason = "tiles shown\u202e by Evi"
    answer = signed_in.post(f"/games/{played.pk}/rounds/1/void/", form(played, reason=reason))

    assert answer.status_code == 400
    assert "change its direction" in answer.content.decode()
    assert not Event.objects.filter(game=played, kind="void").exists()


def test_the_organiser_adjusts_stones_after_a_round_r36(signed_in, played):
    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/adjust/",
        form(played, source="4", to="table", stones=1, reason="stone found"),
        follow=True,
    )

    assert "The stones are adjusted." in text(answer)
    adjustment = Event.objects.get(game=played, kind="adjustment").payload
    assert (adjustment["from"], adjustment["to"], adjustment["stones"]) == (4, "table", 1)


def test_an_adjustment_of_more_than_the_giver_holds_is_refused_r36(signed_in, played):
    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/adjust/",
        form(played, source="1", to="table", stones=50, reason="too many"),
    )

    assert answer.status_code == 422
    page = answer.content.decode()
    assert '<dd class="code-id">ruling_invalid</dd>' in page
    assert '<dd class="rule-id">R36</dd>' in page
    assert 'value="too many"' in page
    assert not Event.objects.filter(game=played, kind="adjustment").exists()


def test_the_organiser_re_seats_a_name_and_seats_a_substitute_r38(signed_in, played):
    renamed = signed_in.post(
        f"/games/{played.pk}/seats/1/name/",
        form(played, name="Besse R.", reason="full name"),
        follow=True,
    )

    assert "Seat 1 is re-seated." in text(renamed)
    assert played.seats.get(number=1).name == "Besse R."
    substituted = signed_in.post(
        f"/games/{played.pk}/seats/4/substitute/",
        form(played, name="Fajar", from_round="2", reason="Evi went home"),
        follow=True,
    )
    assert "Fajar sits seat 4." in text(substituted)
    assert Event.objects.get(game=played, kind="substitute").payload["name"] == "Fajar"


def test_a_substitute_from_a_round_not_begun_is_refused_and_the_form_kept_r38(signed_in, played):
    answer = signed_in.post(
        f"/games/{played.pk}/seats/4/substitute/",
        form(played, name="Fajar", from_round="9", reason="later"),
    )

    assert answer.status_code == 400  # record_invalid: round 9 has not begun
    page = answer.content.decode()
    assert '<dd class="code-id">record_invalid</dd>' in page
    assert 'value="Fajar"' in page
    assert '<details class="seat" id="seat-4" open>' in page


# -- sittings (R27), phones, closing ----------------------------------------------------------


def test_the_organiser_starts_and_ends_a_sitting_r27(signed_in, played):
    started = signed_in.post(f"/games/{played.pk}/sittings/start/", form(played), follow=True)

    number = GameSession.objects.filter(game=played).count()
    assert f"Sitting {number} has started." in text(started)
    ended = signed_in.post(f"/games/{played.pk}/sittings/end/", form(played), follow=True)
    assert f"Sitting {number} has ended." in text(ended)
    assert not GameSession.objects.filter(game=played, ended_at__isnull=True).exists()
    again = signed_in.post(f"/games/{played.pk}/sittings/end/", form(played))
    assert again.status_code == 409
    assert "session_state" in again.content.decode()


def test_the_organiser_releases_a_seat_and_revokes_a_phone(signed_in, played, joined):
    joined(played, seat=2)
    scorekeeping = joined(played)

    released = signed_in.post(f"/games/{played.pk}/seats/2/release/", follow=True)

    assert "Seat 2 is free for another phone." in text(released)
    assert not TableToken.objects.filter(game=played, seat=2, revoked_at__isnull=True).exists()
    token = TableToken.objects.get(game=played, seat=None, label="web", revoked_at__isnull=True)
    revoked = signed_in.post(f"/games/{played.pk}/phones/{token.pk}/revoke/", follow=True)
    assert "is revoked." in text(revoked)
    assert scorekeeping.get("/table/")["Location"] == "/"  # that phone lost the game
    nobody = signed_in.post(f"/games/{played.pk}/seats/3/release/")
    assert nobody.status_code == 404
    assert "token_not_found" in nobody.content.decode()


def test_closing_asks_for_confirmation_then_closes_on_the_version_shown(signed_in, played):
    confirm = signed_in.get(f"/games/{played.pk}/close/")

    assert confirm.status_code == 200
    assert f'name="version" value="{played.version}"' in confirm.content.decode()
    assert Game.objects.get(pk=played.pk).status == "open"  # asking changes nothing
    closed = signed_in.post(f"/games/{played.pk}/close/", {"version": played.version}, follow=True)
    assert "The game is closed." in text(closed)
    assert Game.objects.get(pk=played.pk).status == "closed"


def test_a_stale_close_says_the_game_changed_and_does_not_close(signed_in, played):
    shown = played.version
    corrections.round_void(
        game_id=played.pk,
        round=1,
        reason="tiles shown",
        actor=services.Actor(user=played.created_by),
    )

    answer = signed_in.post(f"/games/{played.pk}/close/", {"version": shown})

    assert answer.status_code == 412
    assert "the game changed since this page was shown" in answer.content.decode()
    assert f'name="version" value="{shown + 1}"' in answer.content.decode()  # confirm again
    assert Game.objects.get(pk=played.pk).status == "open"


def test_a_close_without_the_version_shown_is_428(signed_in, played):
    answer = signed_in.post(f"/games/{played.pk}/close/", {})

    assert answer.status_code == 428
    assert Game.objects.get(pk=played.pk).status == "open"


# -- who may ----------------------------------------------------------------------------------

WRITES = [
    ("rounds/1/correct/", {"op": "remove", "position": "0", "reason": "x"}),
    ("rounds/1/void/", {"reason": "x"}),
    ("rounds/1/adjust/", {"source": "4", "to": "table", "stones": "1", "reason": "x"}),
    ("seats/1/name/", {"name": "X", "reason": "x"}),
    ("seats/1/substitute/", {"name": "X", "reason": "x"}),
    ("sittings/start/", {}),
    ("sittings/end/", {}),
    ("seats/1/release/", {}),
    ("phones/1/revoke/", {}),
    ("close/", {}),
]


@pytest.mark.parametrize(("path", "fields"), WRITES)
def test_another_signed_in_user_gets_the_403_page_and_nothing_changes(
    client, played, django_user_model, path, fields
):
    client.force_login(django_user_model.objects.create_user("someone"))

    answer = client.post(f"/games/{played.pk}/{path}", form(played, **fields))

    assert answer.status_code == 403
    assert "Organisers only" in answer.content.decode()
    assert Game.objects.get(pk=played.pk).version == played.version


@pytest.mark.parametrize("path", ["manage/", "rounds/1/", "close/"])
def test_a_phone_of_the_table_gets_the_403_page(played, joined, path):
    phone = joined(played, seat=0)

    answer = phone.get(f"/games/{played.pk}/{path}")

    assert answer.status_code == 403
    assert "Organisers only" in answer.content.decode()


def test_nobody_signed_in_is_sent_to_the_sign_in_page(client, played):
    answer = client.get(f"/games/{played.pk}/manage/")

    assert answer.status_code == 302
    assert answer["Location"].startswith("/accounts/login/?next=")


def test_the_games_of_the_evening_link_to_each_games_page(signed_in, played):
    page = signed_in.get("/games/")

    assert "Games of the evening" in text(page)
    assert f'href="/games/{played.pk}/manage/"' in page.content.decode()


def test_the_pages_speak_the_phones_language(signed_in, played):
    signed_in.cookies["django_language"] = "fr"

    page = signed_in.get(f"/games/{played.pk}/rounds/1/", HTTP_ACCEPT_LANGUAGE="fr")

    assert "Annuler la manche" in text(page)


def test_an_events_pencil_opens_its_correction_form_filled_in(signed_in, played):
    position = positions(played)[1]

    page = signed_in.get(f"/games/{played.pk}/rounds/1/?event={position}")

    assert page.status_code == 200
    body = page.content.decode()
    assert '<section class="card" id="edit">' in body
    assert '<option value="1-6" selected>' in body


def test_a_correction_while_the_database_is_busy_is_a_503_and_nothing_changes(
    signed_in, played, monkeypatch
):
    def locked(**kwargs: Any) -> None:
        raise OperationalError("database is locked")

    monkeypatch.setattr(corrections, "events_correct", locked)

    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/correct/",
        form(played, op="remove", position=positions(played)[-1], reason="x"),
    )

    assert answer.status_code == 503
    assert answer["Retry-After"] == "2"
    monkeypatch.undo()
    assert len(positions(played)) == len(CEKI)


# -- the club's standings -----------------------------------------------------------------------


@pytest.fixture
def club_game(db, scorekeeper):
    """A club's game between five registered players, round 1 to its CEKI (R15)."""
    from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    director = OrganiserFactory(club=club).user
    seats = [PlayerFactory(club=club, display_name=name).pk for name in PLAYERS]
    game = services.game_create(players=seats, club=club, created_by=director)
    enter(game, scorekeeper(game), CEKI)
    return game


def test_the_clubs_standings_page_follows_a_correction_r37(client, club_game):
    director = club_game.created_by
    client.force_login(director)
    manage = client.get(f"/games/{club_game.pk}/manage/")
    assert 'href="/clubs/makassar/standings/"' in manage.content.decode()

    before = text(client.get("/clubs/makassar/standings/"))
    assert "1 Andi 1 1" in before  # Andi went out: one round, one won (R15)
    void = form(club_game, reason="tiles shown")
    client.post(f"/games/{club_game.pk}/rounds/1/void/", void)

    after = text(client.get("/clubs/makassar/standings/"))
    assert "Andi" not in after  # a voided round counts in no statistic (R35)
    assert "No round counts yet." in after


def test_a_private_clubs_standings_are_refused_to_an_outsider(client, club_game, organiser):
    client.force_login(organiser)  # organises no club

    assert client.get("/clubs/makassar/standings/").status_code == 403


# -- the club's time zone (issue 28) ---------------------------------------------------------

FRIDAY_19_IN_MAKASSAR = dt.datetime(2026, 12, 4, 11, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "04/12/2026 19:00"), ("fr", "04/12/2026 19:00"), ("pl", "04-12-2026 19:00")],
)
def test_the_organiser_pages_show_the_clubs_local_times(client, club_game, language, shown):
    """Issue 28: a club in Asia/Makassar (UTC+8) sees its sitting begun at 19:00 local as
    19:00 (not 11:00, UTC), day before month in English as in French and Polish (R27)."""
    club = club_game.league.club
    club.time_zone = "Asia/Makassar"
    club.save()
    GameSession.objects.update_or_create(
        game=club_game, number=1, defaults={"started_at": FRIDAY_19_IN_MAKASSAR}
    )
    Game.objects.filter(pk=club_game.pk).update(
        created_at=FRIDAY_19_IN_MAKASSAR - dt.timedelta(hours=10)
    )
    client.force_login(club_game.created_by)

    manage = text(
        client.get(f"/games/{club_game.pk}/manage/", headers={"accept-language": language})
    )
    games = text(client.get("/games/", headers={"accept-language": language}))

    assert shown in manage
    assert "11:00" not in manage
    assert shown.split()[0] in games  # created at 01:00 on the 4th, local: not the 3rd (UTC)


def test_the_standings_page_filters_by_the_clubs_local_dates(client, club_game):
    """Issue 28: a round settled at 01:00 on Friday 4 December in Makassar (17:00 UTC on
    Thursday) is Friday's on the standings page's date filter."""
    from scoring.models import SeatRound

    club = club_game.league.club
    club.time_zone = "Asia/Makassar"
    club.save()
    SeatRound.objects.filter(game=club_game).update(
        played_at=dt.datetime(2026, 12, 3, 17, 0, tzinfo=dt.UTC)
    )
    client.force_login(club_game.created_by)
    url = "/clubs/makassar/standings/"

    friday = text(client.get(url, {"played_after": "2026-12-04", "played_before": "2026-12-04"}))
    thursday = text(client.get(url, {"played_before": "2026-12-03"}))
    typo = text(client.get(url, {"played_after": "the 4th"}))

    assert "1 Andi 1 1" in friday
    assert "No round counts yet." in thursday
    assert "Enter a valid date." in typo  # said, then ignored
    assert "1 Andi 1 1" in typo
    assert "in Asia/Makassar" in friday


def test_a_friendly_game_shows_the_servers_time(signed_in, played, settings):
    """Without a club the server's TIME_ZONE is the page's: UTC here (issue 28)."""
    GameSession.objects.update_or_create(
        game=played, number=1, defaults={"started_at": FRIDAY_19_IN_MAKASSAR}
    )

    assert "04/12/2026 11:00" in text(signed_in.get(f"/games/{played.pk}/manage/"))


def test_an_event_inserted_before_another_is_judged_with_the_rest_r37_r8(signed_in, played):
    first = positions(played)[0]  # Andi's lead 6-6: a pass before it is not Andi's turn...

    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/correct/",
        form(played, op="insert", position=first, what="pass", seat=3, reason="forgotten"),
    )

    assert answer.status_code == 422
    page = answer.content.decode()
    assert '<dd class="round-id">1</dd>' in page
    assert '<dd class="move-id">1</dd>' in page
    assert len(positions(played)) == len(CEKI)
    assert "the event being inserted" in page  # the refused move is the new one, not 6-6
    assert "refused" not in re.findall(r'<li id="event-\d+" class="[^"]*"', page)[0]
    assert f'<li id="event-{first}" class="chosen">' in page  # its form stays open


def test_after_a_removal_the_refused_move_is_found_on_the_page_r37(signed_in, played):
    at = positions(played)
    # Remove Cakra's 1-3 (move 3): Daeng's pass becomes move 3 of the corrected round and
    # is refused (a pass with 1-? playable, or not his turn); the page marks Daeng's line.
    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/correct/",
        form(played, op="remove", position=at[2], reason="not played"),
    )

    assert answer.status_code == 422
    page = answer.content.decode()
    move = int(re.search(r'<dd class="move-id">(\d+)</dd>', page).group(1))
    refused = re.search(r'<li id="event-(\d+)" class="[^"]*refused">', page)
    assert refused is not None
    assert int(refused.group(1)) == at[move]  # the corrected round's move n is listed as n+1


def test_a_void_removed_from_the_round_page_gives_the_round_back_r35_r37(signed_in, played):
    url = f"/games/{played.pk}/rounds/1/"
    signed_in.post(url + "void/", form(played, reason="tiles shown"))
    void = Event.objects.get(game=played, kind="void", revoked_by__isnull=True)

    opened = signed_in.get(f"{url}?event={void.position}")
    assert "Round voided: tiles shown" in text(opened)
    removed = signed_in.post(
        url + "correct/",
        form(played, op="remove", position=void.position, reason="mistake"),
        follow=True,
    )

    assert "The event is removed." in text(removed)
    assert "CEKI" in text(removed)
    assert not Event.objects.filter(game=played, kind="void", revoked_by__isnull=True).exists()


def test_the_organiser_amends_a_reveal_from_tiles_to_a_pip_sum_r18_r37(
    signed_in, organiser, scorekeeper
):
    from tests.referee.web.walks import BLOCKED

    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    reveals = [
        {"seat": 0, "tiles": ["0-3", "0-4", "0-5"]},
        {"seat": 1, "tiles": ["0-0", "0-1", "0-2"]},
        {"seat": 2, "tiles": ["1-1", "1-2", "1-3", "1-4"]},
        {"seat": 3, "tiles": ["1-5", "2-2", "2-4", "2-5"]},
        {"seat": 4, "pips": 29},
    ]
    enter(game, scorekeeper(game), [*BLOCKED, *reveals])
    daeng = Event.objects.get(game=game, kind="reveal", payload__seat=3)
    opened = signed_in.get(f"/games/{game.pk}/rounds/1/?event={daeng.position}")
    assert 'value="1-5 2-2 2-4 2-5"' in opened.content.decode()

    answer = signed_in.post(
        f"/games/{game.pk}/rounds/1/correct/",
        form(
            game,
            op="amend",
            position=daeng.position,
            what="pips",
            seat=3,
            pips=23,
            reason="Daeng counted them",
        ),
        follow=True,
    )

    assert "The event is amended." in text(answer)
    assert live_payload(game, daeng.position) == {"seat": 3, "pips": 23}
    assert "Daeng still held 23 pips" in text(answer)


def test_a_correction_that_changes_nothing_says_so_and_stores_nothing_r37(signed_in, played):
    position = positions(played)[1]

    answer = signed_in.post(
        f"/games/{played.pk}/rounds/1/correct/",
        form(played, op="amend", position=position, what="play", seat=1, tile="1-6", reason="x"),
        follow=True,
    )

    assert "Nothing changed: the game is as it was." in text(answer)
    assert not Correction.objects.filter(game=played).exists()


def test_the_round_page_never_shows_a_declared_hand_in_play_r31(signed_in, organiser):
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    _, token = services.table_join(join_code=game.join_code, seat=0)
    hand = ["6-6", "0-3", "5-6", "1-4", "2-3"]
    services.event_submit(
        game_id=game.pk,
        kind="hand",
        payload={"seat": 0, "tiles": hand},
        actor=services.Actor(token=token),
    )
    services.event_submit(
        game_id=game.pk,
        kind="move",
        payload={"seat": 0, "tile": "6-6"},
        actor=services.Actor(token=token),
    )
    declared = Event.objects.get(game=game, kind="hand")

    page = signed_in.get(f"/games/{game.pk}/rounds/1/?event={declared.position}")

    events = text(page).split("Events", 1)[1]
    assert "Andi declared a hand" in events
    for tile in hand[1:]:
        assert tile not in events.split("Add an event")[0]
    assert 'name="tiles"' not in page.content.decode().split('id="add"')[0]  # no hand form


def test_the_round_pages_results_are_the_apis_r35_r36_r38(organiser, load_scenario):
    from referee.engine.records import replay_record
    from referee.web.organising import round_results as _results

    record = load_scenario("40_void_adjust_substitute")["record"]
    game = services.game_import(record=record, created_by=organiser)

    assert _results(game) == replay_record(services.game_export(game))["rounds"]
    assert [r["void"] for r in _results(game)] == [
        r["void"] for r in replay_record(record)["rounds"]
    ]


def test_a_guest_identified_as_a_club_player_is_re_seated_and_the_league_follows_r38(
    db, client, scorekeeper
):
    from scoring.models import SeatRound
    from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    director = OrganiserFactory(club=club).user
    seats: list[Any] = [PlayerFactory(club=club, display_name=n).pk for n in PLAYERS[:4]]
    game = services.game_create(players=[*seats, "Evi?"], club=club, created_by=director)
    enter(game, scorekeeper(game), CEKI)
    evi = PlayerFactory(club=club, display_name="Evi", member_number="MDC-9")
    twins = [PlayerFactory(club=club, display_name="Upi") for _ in range(2)]
    client.force_login(director)
    page = client.get(f"/games/{game.pk}/manage/").content.decode()
    assert f'<option value="{evi.pk}">Evi (MDC-9)</option>' in page
    for twin in twins:  # two of one name, told apart by their ids
        assert f'<option value="{twin.pk}">Upi (#{twin.pk})</option>' in page

    answer = client.post(
        f"/games/{game.pk}/seats/4/name/",
        form(game, name="", player=evi.pk, reason="Evi is a member"),
        follow=True,
    )

    assert "Seat 4 is re-seated." in text(answer)
    assert game.seats.get(number=4).registered.player_id == evi.pk
    assert SeatRound.objects.get(game=game, seat=4).player_id == evi.pk  # CUCUQ's round


def test_a_re_seating_needs_a_name_or_a_club_player_r38(signed_in, played):
    answer = signed_in.post(f"/games/{played.pk}/seats/1/name/", form(played, reason="x"))

    assert answer.status_code == 400
    assert "Type a name." in answer.content.decode()


def test_each_form_of_a_round_page_carries_its_own_key(signed_in, played):
    page = signed_in.get(f"/games/{played.pk}/rounds/1/?event={positions(played)[0]}")

    keys = re.findall(r'name="key" value="([0-9a-f-]+)"', page.content.decode())
    assert len(keys) == 4  # the event's correction, an added event, void, adjust
    assert len(set(keys)) == 4


def test_every_page_that_answers_get_answers_head_alike_and_head_changes_nothing(
    signed_in, played, joined
):
    """QA: the pages answered HEAD with 405 (RFC 9110 §9.3.2: HEAD wherever GET works);
    the close page's HEAD, like its GET, closes nothing."""
    phone = joined(played)
    pages = [
        (signed_in, "/"),
        (signed_in, "/games/"),
        (signed_in, f"/games/{played.pk}/"),
        (signed_in, f"/games/{played.pk}/close/"),
        (signed_in, f"/join/{played.join_code}/"),
        (phone, "/table/"),
        (phone, "/table/live/"),
    ]
    for client, path in pages:
        get = client.get(path)
        head = client.head(path)
        assert (path, head.status_code) == (path, get.status_code)
        assert head.status_code != 405
    assert Game.objects.get(pk=played.pk).status == "open"


@pytest.mark.parametrize(
    ("language", "phone", "organiser_words"),
    [
        ("en", "table token", "organiser"),
        ("pl", "token stołu", "organizator"),
        ("fr", "jeton de table", "organisateur"),
        ("id", "token meja", "penyelenggara"),
    ],
)
def test_who_entered_an_event_and_a_ruling_is_said_in_the_pages_language_R37(
    signed_in, played, language, phone, organiser_words
):
    corrections.round_void(
        game_id=played.pk,
        round=1,
        reason="tiles shown",
        actor=services.Actor(user=played.created_by),
    )
    signed_in.cookies["django_language"] = language

    round_page = text(signed_in.get(f"/games/{played.pk}/rounds/1/", HTTP_ACCEPT_LANGUAGE=language))
    manage = text(signed_in.get(f"/games/{played.pk}/manage/", HTTP_ACCEPT_LANGUAGE=language))

    assert f"{phone} " in round_page  # the scorekeeper's phone entered round 1's moves
    assert f"{organiser_words} {played.created_by.get_username()}" in manage  # the void
    if language != "en":
        assert "table token" not in round_page
        assert "scorekeeper)" not in round_page
        assert f"user {played.created_by.get_username()}" not in manage


# -- issue 28: what the club reads on its pages ---------------------------------------------


def test_closing_warns_of_a_round_still_in_play(signed_in, played, scorekeeper):
    from referee.selectors import game_state_for

    leader = game_state_for(played, organiser=True)["round"]["leader"]
    enter(played, scorekeeper(played), [{"seat": leader, "tile": "6-6"}])  # round 2's lead

    page = signed_in.get(f"/games/{played.pk}/close/")

    assert "Round 2 is still being played" in text(page)  # round 2 has its lead only
    assert 'id="round-in-play"' in page.content.decode()


def test_closing_between_rounds_warns_of_nothing(signed_in, organiser, scorekeeper):
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    enter(game, scorekeeper(game), CEKI)  # round 1 to its CEKI, round 2 not led

    page = signed_in.get(f"/games/{game.pk}/close/")

    assert 'id="round-in-play"' not in page.content.decode()


def test_the_games_page_flags_a_game_with_a_disputed_round(signed_in, played):
    from referee.models import RoundVerification

    before = text(signed_in.get("/games/"))
    RoundVerification.objects.create(
        game=played, round_number=1, status=RoundVerification.Status.DISPUTED, reason="1 stone"
    )

    after = text(signed_in.get("/games/"))

    assert "disputed round" not in before
    assert "1 disputed round" in after


def test_the_manage_page_speaks_of_the_game_not_of_its_version(signed_in, played):
    page = text(signed_in.get(f"/games/{played.pk}/manage/"))

    assert "Open: events can be entered." in page
    assert "version" not in page.lower()


def test_the_standings_page_offers_a_spreadsheet_and_explains_net_stones_R22(client, club_game):
    client.force_login(club_game.created_by)

    page = client.get("/clubs/makassar/standings/")
    link = re.search(r'id="standings-spreadsheet"[^>]*href="([^"]+)"', page.content.decode())
    sheet = client.get(html.unescape(link.group(1)))

    assert "Net stones are the stones a player received" in text(page)
    assert sheet.status_code == 200
    assert sheet["Content-Type"].startswith("text/csv")
    assert "Andi" in sheet.content.decode("utf-8-sig")


def test_the_round_pages_seat_drop_downs_name_who_sat_each_seat_R38(signed_in, played):
    page = signed_in.get(f"/games/{played.pk}/rounds/1/").content.decode()

    for form in ("add", "adjust"):
        field = "seat" if form == "add" else "to"
        select = re.search(rf'<select[^>]*id="{form}-{field}".*?</select>', page, re.S)
        assert select is not None, form
        assert '<option value="2">2 · Cakra</option>' in select.group(0), form
