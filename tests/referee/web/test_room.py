"""The room view of a club night (``scoring.room``): open tables and the evening's standings.

Read-only, for a TV: who may open it (club readers, or the organiser's signed link),
what it shows (names, stones, CAMAT, last move; never a declared hand, R31), the
evening's standings from the league's seat-rounds, the live partial (204 while
unchanged) and a constant number of SQL queries whatever the number of tables.
"""

from __future__ import annotations

import datetime as dt
import re
import time
import zoneinfo
from typing import Any

import pytest
from django.core import signing
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from referee import selectors, services
from referee.models import Game
from referee.services import corrections
from scoring import room
from scoring.models import Club, Player, SeatRound
from tests.factories import UserFactory, table_key
from tests.referee.conftest import table_client
from tests.referee.web.conftest import enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move
from tests.scoring.factories import (
    ClubFactory,
    MembershipFactory,
    OrganiserFactory,
    PlayerFactory,
)

CEKI_ROUND = [record_move(*step) for step in CEKI_WITH_A_PASS]
TILE = re.compile(r"(?<![\w-])[0-6]-[0-6](?![\w-])")  # not inside a UUID or a key


@pytest.fixture
def club(db: None) -> Club:
    return ClubFactory(name="Makassar Domeng Club", slug="makassar")


@pytest.fixture
def organiser(club: Club) -> Any:
    return OrganiserFactory(club=club, user=UserFactory(username="director")).user


@pytest.fixture
def players(club: Club) -> list[Player]:
    names = ["Andi", "Besse", "Cakra", "Daeng", "Evi", "Fajar", "Gita", "Hasan", "Ina", "Joko"]
    return [PlayerFactory(club=club, display_name=name) for name in names]


def club_game(club: Club, organiser: Any, seated: list[Player | str]) -> Game:
    """A game of the club, five registered players (or guests' names) seat 0 to 4."""
    return services.game_create(
        players=[p.pk if isinstance(p, Player) else p for p in seated],
        club=club,
        created_by=organiser,
    )


def scorekeeper(game: Game) -> services.Actor:
    _, token = services.table_join(join_code=game.join_code)
    return services.Actor(token=token)


def page_of(club: Club, client: Client | None = None, **headers: str) -> str:
    response = (client or Client()).get(room.room_url(club), headers=headers or None)
    assert response.status_code == 200, response.content
    return response.content.decode()


def table_html(html: str, number: int) -> str:
    """The part of the page of table ``number`` (1-based)."""
    parts = html.split('<li class="room-table"')
    return parts[number]


# -- what it shows ---------------------------------------------------------------------------


def test_every_open_table_shows_its_names_stones_camat_and_last_move_R23_R24(
    club, organiser, players, load_scenario
) -> None:
    elected = club_game(club, organiser, players[:5])
    for rnd in load_scenario("14_camat_election_reset_25")["record"]["rounds"]:
        reveals = [{"seat": int(seat), "tiles": t} for seat, t in rnd.get("reveal", {}).items()]
        enter(elected, scorekeeper(elected), [*rnd["moves"], *reveals])
    playing = club_game(club, organiser, [*players[5:9], "Guest Lia"])
    enter(playing, scorekeeper(playing), CEKI_ROUND[:3])
    settled = club_game(club, organiser, players[:5])
    enter(settled, scorekeeper(settled), CEKI_ROUND)
    closed = club_game(club, organiser, players[:5])
    Game.objects.filter(pk=closed.pk).update(status=Game.Status.CLOSED)
    elsewhere = services.game_create(players=["Uma", "Vina", "Wati", "Xena", "Yuli"])

    html = page_of(club)

    assert html.count('<li class="room-table"') == 3  # the closed game and another's: not here
    assert str(closed.pk) not in html
    assert str(elsewhere.pk) not in html
    first, second, third = table_html(html, 1), table_html(html, 2), table_html(html, 3)
    elected.refresh_from_db()  # the state cached on the row is of the version read
    state = selectors.game_state_for(elected)
    assert state["camat"] is not None  # scenario 14 elects one (R24)
    for seat in state["seats"]:
        pattern = rf'<tr class="seat[^"]*" data-seat="{seat["seat"]}">(.*?)</tr>'
        row = re.search(pattern, first, re.S)
        assert row is not None
        assert seat["name"] in row.group(1)
        assert f'<td class="stones">{seat["stones"]}</td>' in row.group(1)
        assert ("CAMAT" in row.group(1)) == (seat["seat"] == state["camat"])
    last = state["last_events"][-1]
    assert f"{state['seats'][last['seat']]['name']} played {last['tile']}" in first
    assert "Table 2" in second
    assert "Guest Lia" in second
    assert "Cakra" not in second  # each table its own names
    assert "Hasan played 1-3" in second  # seat 2 of the second game
    assert "Turn:" in second
    assert '<strong class="name">Ina</strong>' in second
    playing_state = selectors.game_state_for(playing)
    assert f"On the table: <b>{playing_state['table']}</b>" in second
    assert "CEKI!" in third
    assert "Andi wins round 1." in third
    assert "Andi played 2-3 on the 2 end" in third  # its last move (R11: the end named)


def test_a_declared_hand_is_never_on_the_room_view_R31(club, organiser, players) -> None:
    game = club_game(club, organiser, players[:5])
    hand = ["1-6", "2-6", "5-5", "3-4", "0-0"]
    declared = table_client(table_key(game=game, seat=1)).post(
        f"/api/v1/games/{game.pk}/hands/", {"seat": 1, "tiles": hand}, format="json"
    )
    assert declared.status_code == 201, declared.content
    enter(game, scorekeeper(game), CEKI_ROUND[:1])  # Andi leads 6-6

    html = page_of(club)

    unsigned = re.sub(r"key=[^\"&]+", "", html)  # a signature may hold "-3-4" by chance
    assert set(TILE.findall(unsigned)) == {"6-6"}  # the lead; no tile of Besse's hand
    assert "Andi played 6-6" in html


def test_the_evening_standings_count_tonights_rounds_of_registered_players(
    club, organiser, players
) -> None:
    tonight = club_game(club, organiser, [*players[:4], "Guest Lia"])
    enter(tonight, scorekeeper(tonight), CEKI_ROUND)
    earlier = club_game(club, organiser, players[5:10])
    enter(earlier, scorekeeper(earlier), CEKI_ROUND)
    long_ago = room.evening_start() - dt.timedelta(hours=1)
    SeatRound.objects.filter(game=earlier).update(played_at=long_ago)

    html = page_of(club)
    standings = html.split('class="room-standings"')[1]

    rows = re.findall(r'<tr data-player="(\d+)">(.*?)</tr>', standings, re.S)
    assert [int(pk) for pk, _ in rows][:1] == [players[0].pk]  # Andi won the round
    assert {int(pk) for pk, _ in rows} == {p.pk for p in players[:4]}  # guests and yesterday: no
    andi = dict(rows)[str(players[0].pk)]
    assert re.findall(r"<td>(\d+)</td>", andi)[1:3] == ["1", "1"]  # rounds played, won


def test_the_evening_begins_at_six_and_goes_on_past_midnight() -> None:
    zone = timezone.get_current_timezone()
    late = dt.datetime(2026, 11, 30, 1, 30, tzinfo=zone)
    evening = dt.datetime(2026, 11, 30, 21, 0, tzinfo=zone)

    assert room.evening_start(late) == dt.datetime(2026, 11, 29, 6, 0, tzinfo=zone)
    assert room.evening_start(evening) == dt.datetime(2026, 11, 30, 6, 0, tzinfo=zone)


def test_the_evening_is_the_clubs_local_evening_in_montreal(club, organiser, players) -> None:
    """Issue 28: at 01:15 in Montreal (06:15 UTC), "this evening" began at 06:00 Montreal
    time the day before, so the rounds after 20:00 local (after midnight UTC) still count."""
    club.time_zone = "America/Montreal"
    club.save()
    montreal = zoneinfo.ZoneInfo("America/Montreal")
    now = dt.datetime(2026, 12, 5, 1, 15, tzinfo=montreal)
    game = club_game(club, organiser, players[:5])
    enter(game, scorekeeper(game), CEKI_ROUND)
    late = dt.datetime(2026, 12, 4, 20, 30, tzinfo=montreal)  # 01:30 UTC on the 5th
    SeatRound.objects.filter(game=game).update(played_at=late)

    tonight = room.room_state(club, now=now)
    next_evening = room.room_state(club, now=now + dt.timedelta(hours=5))  # 06:15 local

    assert tonight.since == dt.datetime(2026, 12, 4, 6, 0, tzinfo=montreal)
    assert {row["player"] for row in tonight.standings} == {p.pk for p in players[:5]}
    assert next_evening.standings == []


def test_the_room_shows_the_clubs_local_times_in_makassar(club, organiser, players) -> None:
    """Issue 28: Makassar (UTC+8) sees its evening begin at 06:00, not at 22:00 (UTC)."""
    club.time_zone = "Asia/Makassar"
    club.save()

    html = page_of(club)

    assert "Rounds settled since 06:00" in html
    assert "22:00" not in html


# -- who may open it -------------------------------------------------------------------------


def test_the_signed_link_opens_a_private_club_and_nothing_else_does(club, organiser) -> None:
    path = f"/room/{club.slug}/"
    other = ClubFactory(slug="bone")
    stranger = Client()
    stranger.force_login(UserFactory(username="stranger"))

    assert Client().get(room.room_url(club)).status_code == 200
    assert Client().get(path).status_code == 404  # private: no link, no membership
    assert stranger.get(path).status_code == 404
    assert Client().get(path + "?key=" + room.room_key(other)).status_code == 404
    tampered = room.room_key(club)[:-2] + "xx"
    assert Client().get(path + "?key=" + tampered).status_code == 404
    assert Client().get("/room/no-such-club/?key=" + room.room_key(club)).status_code == 404


def test_members_and_everyone_for_a_published_club_open_it_without_a_link(club) -> None:
    member = Client()
    member.force_login(MembershipFactory(club=club, user=UserFactory(username="m")).user)
    assert member.get(f"/room/{club.slug}/").status_code == 200
    club.is_public = True
    club.save()
    assert Client().get(f"/room/{club.slug}/").status_code == 200


def test_an_expired_link_says_so(club) -> None:
    class Yesterday(signing.TimestampSigner):
        def timestamp(self) -> str:
            return signing.b62_encode(int(time.time()) - room.ROOM_LINK_MAX_AGE - 60)

    key = Yesterday(salt=room.ROOM_SALT).sign(club.slug).split(":", 1)[1]

    response = Client().get(f"/room/{club.slug}/?key={key}")
    live = Client().get(f"/room/{club.slug}/live/?key={key}")

    assert response.status_code == 403
    assert "This room link has expired" in response.content.decode()
    assert live.status_code == 403


def test_the_organisers_games_page_links_to_the_room(club, organiser) -> None:
    client = Client()
    client.force_login(organiser)
    html = client.get("/games/").content.decode()
    link = re.search(r'href="(/room/makassar/\?key=[^"]+)"', html)
    assert link is not None
    assert "Room view of Makassar Domeng Club" in html
    assert Client().get(link.group(1).replace("&amp;", "&")).status_code == 200

    nobody = Client()
    nobody.force_login(UserFactory(username="plain"))
    assert "/room/" not in nobody.get("/games/").content.decode()


def test_staff_see_the_room_of_every_club_with_an_open_table(club, organiser, players) -> None:
    """Staff organise no club of their own: the games page links the room of each club
    with an open game (QA: a 500 for every staff user once a game's club moved to
    ``scoring.GameLeague``, whose reverse name is ``games``)."""
    other = ClubFactory(name="Quiet Club", slug="quiet")
    club_game(club, organiser, list(players[:5]))
    staff = UserFactory(username="admin", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)

    response = client.get("/games/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "Room view of Makassar Domeng Club" in html
    assert other.name not in html  # no open table there


# -- live updates and cost -------------------------------------------------------------------


def test_the_live_partial_is_204_until_a_table_moves(club, organiser, players) -> None:
    game = club_game(club, organiser, players[:5])
    html = page_of(club)
    poll = re.search(r'data-poll="([^"]+)"', html).group(1).replace("&amp;", "&")

    unchanged = Client().get(poll, headers={"HX-Request": "true"})
    enter(game, scorekeeper(game), CEKI_ROUND[:1])
    moved = Client().get(poll, headers={"HX-Request": "true"})

    assert unchanged.status_code == 204
    assert moved.status_code == 200
    assert "Andi played 6-6" in moved.content.decode()
    new_poll = re.search(r'data-poll="([^"]+)"', moved.content.decode()).group(1)
    assert new_poll != poll
    assert Client().get(new_poll.replace("&amp;", "&")).status_code == 204


def _queries(club: Club, path: str) -> int:
    client = Client()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200
    return len(queries)


def test_the_room_costs_the_same_queries_for_one_table_or_four(club, organiser, players) -> None:
    first = club_game(club, organiser, players[:5])
    enter(first, scorekeeper(first), CEKI_ROUND)
    small = _queries(club, room.room_url(club))
    small_live = _queries(club, f"/room/{club.slug}/live/?key={room.room_key(club)}")

    for seated in (players[5:10], [*players[:4], "Guest"], [*players[6:10], "Guest 2"]):
        game = club_game(club, organiser, seated)
        enter(game, scorekeeper(game), CEKI_ROUND)  # each settles a round: more standings
        enter(game, scorekeeper(game), [{"seat": 0, "tile": "4-4"}])  # and a round in play
    html = page_of(club)
    assert html.count('<li class="room-table"') == 4

    assert _queries(club, room.room_url(club)) == small
    assert _queries(club, f"/room/{club.slug}/live/?key={room.room_key(club)}") == small_live
    assert small == 5  # the club, its open games, their seats, their rounds' events, standings


@pytest.mark.parametrize(
    ("language", "title", "standings"),
    [
        ("fr", "Tables en jeu", "Classement de la soirée"),
        ("id", "Meja yang sedang bermain", "Klasemen malam ini"),
        ("pl", "Stoły w grze", "Ranking tego wieczoru"),
    ],
)
def test_the_room_speaks_each_language(club, organiser, players, language, title, standings):
    club_game(club, organiser, players[:5])

    html = page_of(club, **{"Accept-Language": language})

    assert f'<html lang="{language}">' in html
    assert title in html
    assert standings in html


def test_a_substitute_sits_at_the_room_view_too_R38(club, organiser, players) -> None:
    game = club_game(club, organiser, players[:5])
    enter(game, scorekeeper(game), CEKI_ROUND[:2])
    corrections.seat_substitute(
        game_id=game.pk, seat=4, round=None, name="Guest Zaki", actor=services.Actor(user=organiser)
    )

    html = page_of(club)

    row = re.search(r'<tr class="seat[^"]*" data-seat="4">(.*?)</tr>', html, re.S)
    assert row is not None
    assert "Guest Zaki" in row.group(1)
    assert "Evi" not in row.group(1)


def test_the_room_view_says_what_stones_received_means_R22(club, organiser, players) -> None:
    game = club_game(club, organiser, players[:5])
    enter(game, scorekeeper(game), CEKI_ROUND)

    html = page_of(club)

    assert 'id="stones-received-explained"' in html
    assert "Fewer is better (R22)." in html


# -- a renamed club (issue 28): old links lead on, for those who may follow them ----------


def test_a_renamed_clubs_old_room_link_leads_to_its_room_now(club, organiser) -> None:
    old_link = room.room_url(club)
    old_live = f"/room/{club.slug}/live/?key={room.room_key(club)}"
    club.slug = "makassar-dc"
    club.save()  # as the admin renames it

    moved = Client().get(old_link)
    live = Client().get(old_live, HTTP_HX_REQUEST="true")

    assert moved.status_code == 302
    assert moved["Location"].startswith("/room/makassar-dc/?key=")
    assert Client().get(moved["Location"]).status_code == 200
    assert live["HX-Redirect"].startswith("/room/makassar-dc/?key=")


def test_a_renamed_private_clubs_old_slug_tells_an_outsider_nothing(club, organiser) -> None:
    old = club.slug
    club.slug = "makassar-dc"
    club.save()
    stranger = Client()
    stranger.force_login(UserFactory(username="stranger"))

    assert Client().get(f"/room/{old}/").status_code == 404  # as for a missing club
    assert stranger.get(f"/clubs/{old}/standings/").status_code == 404
    assert stranger.get("/clubs/no-such-club/standings/").status_code == 404


def test_a_renamed_clubs_old_standings_url_leads_on_with_its_query(club, organiser) -> None:
    old = club.slug
    club.slug = "makassar-dc"
    club.save()
    reader = Client()
    reader.force_login(organiser)

    moved = reader.get(f"/clubs/{old}/standings/?played_after=2026-01-01")

    assert moved.status_code == 301
    assert moved["Location"] == "/clubs/makassar-dc/standings/?played_after=2026-01-01"
    assert reader.get(moved["Location"]).status_code == 200


def test_a_slug_in_use_is_nobodys_old_slug(club) -> None:
    from scoring.models import ClubSlug

    old = club.slug
    club.slug = "makassar-dc"
    club.save()
    newcomer = ClubFactory(slug=old)  # another club takes the slug given up

    assert not ClubSlug.objects.filter(slug=old).exists()
    assert Client().get(f"/room/{old}/?key={room.room_key(newcomer)}").status_code == 200
    club.slug = "makassar-dc"
    club.save()  # saved again unrenamed: no old slug of itself
    assert list(ClubSlug.objects.values_list("slug", flat=True)) == []
