"""A seat declares its hand from its own phone (R31): private, then playable tiles shown."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.test import Client

from referee import services
from referee.models import Event, Game
from tests.referee.web.conftest import PLAYERS, enter

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
# Besse's (seat 1) tiles in tests/referee/web/walks.py's CEKI_WITH_A_PASS, with a fifth she
# never plays: two hands that differ in one tile, to show no other page depends on them.
HAND_A = ["1-6", "2-6", "5-5", "3-4", "0-0"]
HAND_B = ["1-6", "2-6", "5-5", "3-4", "1-1"]


def declare(client: Client, game: Game, tiles: list[str], **extra: Any) -> Any:
    game.refresh_from_db()
    data = {"version": game.version, "key": str(uuid.uuid4()), "tiles": tiles, **extra}
    return client.post("/table/hand/", data, headers=HTMX)


def hand_tiles(html: str) -> dict[str, str]:
    """The declared hand a page draws: tile → its state (playable, played, held)."""
    return dict(re.findall(r'data-hand-tile="([0-6]-[0-6])" data-state="(\w+)"', html))


def flash_code(html: str) -> str | None:
    match = re.search(r'class="flash \w+"[^>]*data-code="(\w*)"', html)
    return match.group(1) if match else None


def normalised(html: str, game: Game) -> str:
    """A page without what differs between two games or two renders (ids, keys, tokens)."""
    html = html.replace(str(game.pk), "GAME")
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    return re.sub(r'name="key" value="[^"]+"', "", html)


def test_a_seat_phone_declares_its_hand_and_only_it_shows_the_tiles(joined, game) -> None:
    """R31: the declaring phone lists its five tiles; the other seats', the scorekeeper's and
    their live polls carry none of it."""
    besse = joined(game, seat=1)
    others = [joined(game, seat=seat) for seat in (0, 2, 3, 4)] + [joined(game)]
    page = besse.get("/table/").content.decode()
    assert "Declare my hand" in page
    picker = besse.get("/table/live/?declare=1", headers=HTMX).content.decode()
    assert picker.count('name="tiles"') == 28

    response = declare(besse, game, HAND_A)
    assert response.status_code == 201
    html = response.content.decode()
    assert set(hand_tiles(html)) == set(HAND_A)
    assert "Only this phone shows it" in html
    event = Event.objects.get(game=game, kind=Event.Kind.HAND)
    assert event.payload == {"seat": 1, "tiles": HAND_A}

    for other in others:
        for html in (
            other.get("/table/").content.decode(),
            other.get("/table/live/?v=0", headers=HTMX).content.decode(),
        ):
            assert hand_tiles(html) == {}
            assert "Besse declared a hand" in html  # that she did is no secret
            assert "hand-label" not in html  # no tile of her hand, labelled or drawn
            assert "Your hand (only" not in html


def test_no_other_page_depends_on_the_declared_tiles(joined) -> None:
    """R31: two games where Besse declares hands differing in one tile give every other
    phone the very same page, tap by tap (only her own page differs)."""
    pages: list[list[str]] = []
    for hand in (HAND_A, HAND_B):
        game = services.game_create(players=list(PLAYERS))
        besse = joined(game, seat=1)
        others = [joined(game, seat=seat) for seat in (0, 2, 3, 4)] + [joined(game)]
        assert declare(besse, game, hand).status_code == 201
        seen = []
        keeper = services.Actor(token=services.table_join(join_code=game.join_code)[1])
        for move in ({"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "1-6"}, None):
            for other in others:
                seen.append(normalised(other.get("/table/live/").content.decode(), game))
            if move is not None:
                enter(game, keeper, [move])
        pages.append(seen)
    assert pages[0] == pages[1]


def test_the_hand_says_in_words_which_tiles_are_playable_played_or_not(
    joined, game, scorekeeper
) -> None:
    """After the first lead 6-6 (ends 6, 6), Besse's 1-6 and 2-6 are playable now, the rest
    not; once she plays 1-6 it is played (R7, R31). Each state has a label, not only grey."""
    besse = joined(game, seat=1)
    declare(besse, game, HAND_A)
    keeper = scorekeeper(game)
    enter(game, keeper, [{"seat": 0, "tile": "6-6"}])
    html = besse.get("/table/").content.decode()
    assert hand_tiles(html) == {
        "0-0": "held",
        "1-6": "playable",
        "2-6": "playable",
        "3-4": "held",
        "5-5": "held",
    }
    assert "1-6: playable now" in html
    assert "3-4: not playable now" in html
    # The picker greys every tile outside her hand and says why; no PASS while she can play.
    assert re.search(
        r'class="tile blocked" data-tile="1-1"[^>]*data-why="1-1 is not in your declared hand',
        html,
    )
    assert 'name="is_pass"' not in html
    enter(game, keeper, [{"seat": 1, "tile": "1-6"}])
    html = besse.get("/table/").content.decode()
    assert hand_tiles(html)["1-6"] == "played"
    assert "1-6: played" in html
    assert hand_tiles(html)["2-6"] == "held"  # not her turn now


def test_a_hand_that_is_not_five_tiles_is_refused_with_its_ticks_kept(joined, game) -> None:
    besse = joined(game, seat=1)
    response = declare(besse, game, HAND_A[:4])
    assert response.status_code == 400
    html = response.content.decode()
    assert flash_code(html) == "form_invalid"
    assert len(re.findall(r'value="[0-6]-[0-6]" checked', html)) == 4  # kept, to correct
    assert not Event.objects.filter(game=game).exists()


def test_a_hand_sharing_a_tile_with_another_seats_is_answered_as_any_hand_R31(joined, db) -> None:
    """R31: a refusal of a hand sharing a tile with another seat's told the phone that the
    tile was in that hand. Andi's phone declares the same hand in two games where only
    Besse's hidden hand differs (5-6 in it, or not): the answer and the page are the same,
    and both hands are kept (the organiser resolves the shared tile)."""
    pages = []
    for besse_holds in ("5-6", "4-5"):
        game = services.game_create(players=list(PLAYERS))
        declare(joined(game, seat=1), game, [besse_holds, "1-6", "2-6", "5-5", "3-4"])
        andi = joined(game, seat=0)
        response = declare(andi, game, ["6-6", "0-3", "5-6", "1-4", "0-0"])
        assert response.status_code == 201
        html = response.content.decode()
        assert set(hand_tiles(html)) == {"6-6", "0-3", "5-6", "1-4", "0-0"}
        assert Event.objects.filter(game=game, kind=Event.Kind.HAND).count() == 2
        page = andi.get("/table/").content.decode()
        pages.append(
            [
                re.sub(r"<svg viewBox=.*?</svg>|\b[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{2}\b", "JOIN", h)
                for h in (normalised(html, game), normalised(page, game))
            ]
        )
    import difflib

    print(
        "\n".join(
            difflib.unified_diff(
                pages[0][1].splitlines(), pages[1][1].splitlines(), lineterm="", n=0
            )
        )
    )
    assert pages[0] == pages[1]


def test_the_scorekeeper_cannot_declare_a_hand(joined, game) -> None:
    keeper = joined(game)
    assert "Declare my hand" not in keeper.get("/table/").content.decode()
    response = declare(keeper, game, HAND_A)
    assert response.status_code == 403
    assert flash_code(response.content.decode()) == "seat_not_allowed"
    assert not Event.objects.filter(game=game).exists()


def test_the_declaring_phone_changes_its_hand_and_the_old_one_is_revoked(joined, game) -> None:
    """An amendment judged as a replay (R37) from the phone that declared it (R31)."""
    besse = joined(game, seat=1)
    declare(besse, game, HAND_A)
    first = Event.objects.get(game=game, kind=Event.Kind.HAND)
    picker = besse.get("/table/live/?declare=1", headers=HTMX).content.decode()
    assert f'name="position" value="{first.position}"' in picker
    assert len(re.findall(r'value="[0-6]-[0-6]" checked', picker)) == 5  # her hand, to change
    response = declare(besse, game, HAND_B, position=first.position)
    assert response.status_code == 200
    assert set(hand_tiles(response.content.decode())) == set(HAND_B)
    first.refresh_from_db()
    assert first.revoked_by is not None
    live = Event.objects.get(game=game, kind=Event.Kind.HAND, revoked_by__isnull=True)
    assert live.payload["tiles"] == HAND_B


def test_another_seats_phone_cannot_change_a_declared_hand(joined, game) -> None:
    besse = joined(game, seat=1)
    declare(besse, game, HAND_A)
    position = Event.objects.get(game=game, kind=Event.Kind.HAND).position
    andi = joined(game, seat=0)
    response = declare(andi, game, ["6-6", "0-3", "5-6", "1-4", "2-3"], position=position)
    assert response.status_code == 403
    assert flash_code(response.content.decode()) == "seat_not_allowed"
    assert Event.objects.get(game=game, revoked_by__isnull=True).payload["tiles"] == HAND_A


def test_the_declaring_phone_undoes_its_hand_while_it_is_the_last_entry(joined, game) -> None:
    besse = joined(game, seat=1)
    declare(besse, game, HAND_A)
    game.refresh_from_db()
    data = {"version": game.version, "key": str(uuid.uuid4())}
    response = besse.post("/table/undo/", data, headers=HTMX)
    assert response.status_code == 200
    assert not Event.objects.filter(game=game, revoked_by__isnull=True).exists()
    assert "Declare my hand" in response.content.decode()


def test_the_organisers_pages_show_a_shared_hand_and_no_phone_page_does_R31(
    joined, django_user_model
) -> None:
    """R31: the organiser is told which tiles a declared hand shares with which seat's, on
    the game's pages, to resolve it; the phones' pages say nothing of it."""
    organiser = django_user_model.objects.create_user("orga", password="correct horse battery")
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    besse = joined(game, seat=1)
    declare(besse, game, ["5-6", "1-6", "2-6", "5-5", "3-4"])
    andi = joined(game, seat=0)
    declare(andi, game, ["6-6", "0-3", "5-6", "1-4", "0-0"])
    signed_in = Client()
    signed_in.force_login(organiser)

    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/manage/"):
        page = signed_in.get(url).content.decode()
        assert 'id="shared-hands"' in page, url
        assert "shares 5-6 with the hand of seat 1" in page
    for phone in (andi, besse):
        assert "shared-hands" not in phone.get("/table/").content.decode()
