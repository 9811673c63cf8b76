"""Issue 12, item 2: nothing reveals a hidden hand (R31). Each probe that read a declared hand
is replayed as it was made; it now stops at ``TABLE_PROBE_LIMIT`` with ``probe_limited``
(429), and the organiser and the probed seat are told."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from referee.lockouts import DEVICE_COOKIE
from referee.models import TableAlert, TableToken
from tests.referee.conftest import API, PROBLEM

SEAT_1 = ["3-6", "5-6", "0-0", "0-1", "0-2"]
SEAT_2 = ["2-3", "1-1", "1-2", "1-3", "1-4"]
LIMIT = 3
ALL_TILES = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
# Seat 2 trying 5-6 (in seat 1's declared hand) on ends (6, 3), written four ways: four
# distinct probes (an identical repeat of a refused request counts once, R31).
PROBES = [("5-6", None), ("6-5", None), ("5-6", 6), ("6-5", 6)]


def probe(table, index: int, **kwargs):
    """The ``index``-th distinct probe of seat 1's hand: seat 2 plays 5-6, refused (R31)."""
    tile, on = PROBES[index % len(PROBES)]
    return table.play(2, tile, on, **kwargs)


@pytest.fixture
def limit(settings):
    settings.TABLE_PROBE_LIMIT = LIMIT
    settings.TABLE_PROBE_SECONDS = 600
    return settings


@pytest.fixture
def in_play(table):
    """Seat 1 declared SEAT_1; 6-6 and 3-6 are down, seat 2 to play on ends (6, 3)."""
    table.accept(table.declare(1, SEAT_1))
    table.accept(table.play(0, "6-6"))
    table.accept(table.play(1, "3-6"))
    return table


# -- who reads a refusal ---------------------------------------------------------------


def test_a_refusals_detail_is_shown_to_the_phone_that_entered_it_and_the_organiser(table):
    """The hole: the log showed a refused move's detail to the phone of the seat named in
    it (seat 2's phone read what the scorekeeper had tried for seat 2)."""
    table.accept(table.play(0, "6-6"))
    assert table.play(2, "3-6", client=table.scorekeeper).status_code == 422

    def seen(client):
        (refused,) = table.events(client=client)["refused"]
        return refused["payload"], refused["detail"]

    assert seen(table.phone(2)) == (None, None)
    assert seen(table.phone(0)) == (None, None)
    for reader in (table.scorekeeper, table.organiser):
        payload, detail = seen(reader)
        assert payload == {"seat": 2, "tile": "3-6"}
        assert detail


def test_a_refusal_under_R31_is_read_by_the_phone_that_entered_it_only(in_play):
    assert in_play.play(2, "5-6", client=in_play.scorekeeper).status_code == 422

    readers = {
        "scorekeeper": in_play.scorekeeper,
        "organiser": in_play.organiser,
        "seat 1": in_play.phone(1),
        "seat 2": in_play.phone(2),
    }
    details = {
        who: in_play.events(client=client)["refused"][0]["detail"]
        for who, client in readers.items()
    }

    assert details["scorekeeper"]
    assert {who: d for who, d in details.items() if who != "scorekeeper"} == dict.fromkeys(
        ["organiser", "seat 1", "seat 2"]
    )


def test_tile_not_in_hand_says_the_same_whichever_declared_hand_forbids_it_R31(in_play):
    """Saying "in another seat's hand" told the prober more than "not playable"."""
    in_another = in_play.play(2, "5-6").json()
    in_play.accept(in_play.declare(2, SEAT_2))
    not_in_own = in_play.play(2, "4-6").json()

    assert in_another["code"] == not_in_own["code"] == "tile_not_in_hand"
    assert in_another["detail"].replace("5-6", "X") == not_in_own["detail"].replace("4-6", "X")
    assert "another" not in in_another["detail"]


# -- the probes, rate-limited per token ------------------------------------------------


def test_probing_a_declared_hand_with_refused_plays_stops_at_the_limit_R31(in_play, limit):
    """The probe: the scorekeeper tries seat 2 with tiles until one is refused under R31."""
    for index in range(LIMIT):
        response = probe(in_play, index, client=in_play.scorekeeper)
        assert response.json()["code"] == "tile_not_in_hand"

    stopped = in_play.play(2, "2-3", client=in_play.scorekeeper)  # even a legal one

    assert stopped.status_code == 429
    assert stopped["Content-Type"] == PROBLEM
    assert stopped.json()["code"] == "probe_limited"
    assert 0 < int(stopped["Retry-After"]) <= 600
    assert in_play.play(2, "2-3", client=in_play.phone(2)).status_code == 201  # others go on


def test_an_identical_refused_probe_sent_again_without_a_key_counts_once_R31(in_play, limit):
    """Finding 6: a phone resending the same refused move (no ``Idempotency-Key``) gets the
    answer it already got: one probe, however many copies."""
    for _ in range(LIMIT + 3):
        assert probe(in_play, 0, client=in_play.scorekeeper).json()["code"] == "tile_not_in_hand"

    token = TableToken.objects.get(key_hash__isnull=False, seat=None, revoked_at=None)
    assert token.probes == 1
    assert in_play.play(2, "2-3", client=in_play.scorekeeper).status_code == 201
    assert not TableAlert.objects.exists()


def test_probing_by_play_then_undo_stops_at_the_limit_R31(table, limit):
    """The probe: lead each tile for the declared leader and undo the accepted ones."""
    table.accept(table.declare(0, ["6-6", "4-4", "0-3", "1-5", "2-4"]))
    for _ in range(LIMIT):
        table.accept(table.play(0, "6-6", client=table.scorekeeper))
        assert table.undo(client=table.scorekeeper).status_code == 200

    stopped = table.play(0, "6-6", client=table.scorekeeper)

    assert stopped.status_code == 429
    assert stopped.json()["code"] == "probe_limited"
    assert table.state()["round"]["chain"] == []
    assert TableAlert.objects.get().kind == "undos"
    assert TableAlert.objects.get().round_number == 1  # the round probed (QA)


def test_a_seats_own_phone_undoing_its_own_moves_is_no_probe(table, limit):
    table.accept(table.declare(0, ["6-6", "4-4", "0-3", "1-5", "2-4"]))
    for _ in range(LIMIT + 1):
        table.accept(table.play(0, "6-6"))
        assert table.undo(client=table.phone(0)).status_code == 200

    assert not TableAlert.objects.exists()


def test_a_probe_is_reported_to_the_organiser_and_the_probed_seat_only_R31(in_play, limit):
    for index in range(LIMIT):
        probe(in_play, index, client=in_play.scorekeeper)

    (alert,) = in_play.events(client=in_play.organiser)["alerts"]

    assert alert["kind"] == "refusals"
    assert alert["seats"] == [1]
    assert alert["round"] == 1  # the round probed (QA: it was null)
    assert alert["count"] == LIMIT
    assert alert["entered_by"].endswith("(scorekeeper)")
    assert in_play.events(client=in_play.phone(1))["alerts"] == [alert]
    for other in (in_play.phone(2), in_play.phone(0), in_play.scorekeeper):
        assert in_play.events(client=other)["alerts"] == []


def test_refusals_that_concern_no_declared_hand_are_not_counted(table, limit):
    table.accept(table.play(0, "6-6"))
    for _ in range(LIMIT + 2):
        assert table.play(2, "3-6", client=table.scorekeeper).json()["code"] == "not_your_turn"

    assert table.play(1, "3-6", client=table.scorekeeper).status_code == 201
    assert not TableAlert.objects.exists()


# -- a declaration answers no question about other hands (R31) ---------------------------
#
# Finding 1: a phone declared four of its own tiles and a tile to test; 201 and undo, or
# 400 "already declared by another seat": the tile was in that seat's hand. Seat 1's hand
# was recovered in 41 requests, with no alert. A hand sharing tiles with another seat's is
# now accepted as any hand: each of the two seats is judged by its own hand, the organiser
# is told (once a round) and resolves it.

SEAT_1_WITHOUT_5_6 = ["3-6", "4-5", "0-0", "0-1", "0-2"]


def _blind(value, game_id: str):
    """A body without what differs between two games whatever their hands (ids, times)."""
    if isinstance(value, dict):
        return {
            k: (v is not None) if k == "revoked_by" else _blind(v, game_id)  # a row's id
            for k, v in value.items()
            if k not in {"created_at", "id", "played_at", "started_at", "ended_at"}
        }
    if isinstance(value, list):
        return [_blind(v, game_id) for v in value]
    if isinstance(value, str):  # the game's id, its tokens' numbers
        return re.sub(r"table token \d+", "table token N", value.replace(game_id, "GAME"))
    return value


def _answer(table, response) -> tuple:
    """What a phone reads of an answer: status, the caching headers and the body. A read's
    ETag is its version and a digest of the body the phone got (issue 27): the body is
    compared blinded of the game's id, so the tag is compared by its version."""
    body = response.json() if response.content else None
    return (
        response.status_code,
        (response.get("ETag") or "").strip('"').split(".")[0],
        response.get("Cache-Control"),
        _blind(body, table.id),
    )


def _attack(table) -> list[tuple]:
    """Seat 2's phone tries 5-6 by declaring, reading, amending and undoing: every answer."""
    phone = table.phone(2)
    answers = []
    tried = [*SEAT_2[:4], "5-6"]
    answers.append(_answer(table, table.declare(2, tried)))
    for suffix in ("", "events/", "record/", "result/"):
        answers.append(_answer(table, table.get(suffix, client=phone)))
    answers.append(_answer(table, table.undo(client=phone)))
    answers.append(_answer(table, table.declare(2, [*SEAT_2[:4], "4-4"])))
    position = table.events(client=phone)["events"][-1]["position"]
    answers.append(_answer(table, table.amend(position, {"seat": 2, "tiles": tried}, client=phone)))
    answers.append(_answer(table, table.get(client=phone)))
    answers.append(_answer(table, table.play(2, "4-6", client=phone)))  # in no hand of its
    answers.append(_answer(table, table.play(2, "5-6", client=phone)))  # the tile tried
    answers.append(_answer(table, table.get("events/", client=phone)))
    return answers


@pytest.mark.parametrize("moves", [0, 2], ids=["before the lead", "in play"])
def test_a_declaration_answers_the_same_whether_its_tile_is_in_another_hand_R31(new_game, moves):
    """The same requests of seat 2's phone in two games where only seat 1's hidden hand
    differs (5-6 in it, or not): every answer — the declaration, the phone's state, log,
    record and result, the undo, the amendment, a play of the tile tried — is the same."""
    runs = []
    for seat_1 in (SEAT_1, SEAT_1_WITHOUT_5_6):
        table = new_game()
        table.accept(table.declare(1, seat_1))
        for seat, tile in [(0, "6-6"), (1, "3-6")][:moves]:
            table.accept(table.play(seat, tile))
        runs.append(_attack(table))

    assert runs[0] == runs[1]
    statuses = [a[0] for a in runs[0]]
    assert statuses[:9] == [201, 200, 200, 200, 200, 200, 201, 200, 200]
    assert statuses[9:11] == ([422, 201] if moves else [422, 422])


def test_the_test_hand_attack_raises_one_alert_to_the_organiser_and_the_hit_seat_R31(
    in_play, limit
):
    """Seat 2's phone tries every tile not known to it as the fifth of its hand, undoing
    each: every try is accepted, no try is a probe, and the first shared tile raises the
    round's one alert, for the organiser (with the tile) and seat 1 (without it)."""
    phone = in_play.phone(2)
    unknown = [t for t in ALL_TILES if t not in {*SEAT_2[:4], "6-6", "3-6"}]
    for tile in unknown:
        declared = in_play.declare(2, [*SEAT_2[:4], tile])
        assert declared.status_code == 201, (tile, declared.content)
        assert in_play.undo(client=phone).status_code == 200

    (alert,) = in_play.events(client=in_play.organiser)["alerts"]
    assert (alert["kind"], alert["seats"], alert["round"]) == ("shared", [1], 1)
    assert alert["tiles"] == [sorted(set(SEAT_1[1:]) & set(unknown))[0]]
    assert alert["entered_by"] == in_play.events(client=phone)["events"][-1]["entered_by"]
    (told,) = in_play.events(client=in_play.phone(1))["alerts"]
    assert told["tiles"] is None  # the seat is told that, not which
    for other in (phone, in_play.phone(0), in_play.scorekeeper):
        assert in_play.events(client=other)["alerts"] == []
    assert TableToken.objects.filter(probes__gt=0).count() == 0
    assert in_play.play(2, "2-3", client=phone).status_code == 201


def test_two_hands_sharing_a_tile_each_judge_their_own_seat_until_the_organiser_resolves_R31(
    in_play,
):
    """Seat 2's phone declares 5-6, which seat 1 declared too. Each of the two seats is
    judged by its own hand (so seat 2's answers are those of a hand sharing nothing), any
    other seat by both. The organiser, told by the alert, clears seat 2's hand with a
    correction: seat 2 is then judged by no hand, seat 1 by its own."""
    in_play.accept(in_play.declare(2, [*SEAT_2[:4], "5-6"]))
    assert in_play.play(2, "4-6").json()["code"] == "tile_not_in_hand"  # not in its hand
    in_play.accept(in_play.play(2, "2-3"))
    assert in_play.play(3, "5-6").json()["code"] == "tile_not_in_hand"  # in both hands
    (alert,) = in_play.events(client=in_play.organiser)["alerts"]
    assert (alert["seats"], alert["tiles"]) == ([1], ["5-6"])

    hand = [
        e
        for e in in_play.events(client=in_play.organiser)["events"]
        if e["kind"] == "hand" and e["payload"]["seat"] == 2
    ][-1]
    cleared = in_play.post(
        "corrections/",
        {"reason": "5-6 is seat 1's", "changes": [{"op": "remove", "position": hand["position"]}]},
        client=in_play.organiser,
    )

    assert cleared.status_code == 200, cleared.content
    seats = in_play.state(client=in_play.organiser)["seats"]
    assert [s["has_declared"] for s in seats] == [False, True, False, False, False]
    assert in_play.play(3, "2-2").status_code == 201  # ends (6, 2)
    assert in_play.play(4, "5-6").json()["code"] == "tile_not_in_hand"  # seat 1's hand


# -- the organiser is never counted (R31) -------------------------------------------------
#
# Finding 7: an organiser repairing a game with 16 undos and a few refused corrections got
# 429 probe_limited, and the seats were told they were being probed. The organiser is the
# table's arbiter (it is shown the tiles a shared hand shares, the hands of a blocked
# round, and resolves conflicts): its acts never count.


def _batch_probe(table, tile: str):
    """Amend seat 1's 3-6 to ``tile`` and add an event the rules refuse at the end: which
    event the refusal names depends on seat 1's declared hand (R31)."""
    position = next(
        e["position"]
        for e in table.events()["events"]
        if e["kind"] == "move" and e["payload"].get("seat") == 1 and e["revoked_by"] is None
    )
    return table.post(
        "corrections/",
        {
            "reason": "repair",
            "changes": [
                {"op": "amend", "position": position, "event": {"seat": 1, "tile": tile}},
                {
                    "op": "insert",
                    "position": None,
                    "kind": "move",
                    "event": {"seat": 4, "tile": "6-6"},
                },
            ],
        },
        client=table.organiser,
    )


def test_an_organisers_undos_and_refused_corrections_never_reach_the_limit_R31(in_play, limit):
    for _ in range(16):  # undo seat 1's move (its hand declared) and enter it again
        assert in_play.undo(client=in_play.organiser).status_code == 200
        in_play.accept(in_play.play(1, "3-6", client=in_play.organiser))
    for tile in ("4-6", "1-6", "2-6", "4-6"):
        assert _batch_probe(in_play, tile).json()["code"] == "tile_not_in_hand"
    for index in range(2 * len(PROBES)):  # seat 2 tries seat 1's 5-6, four ways, twice
        assert probe(in_play, index, client=in_play.organiser).status_code == 422

    assert in_play.undo(client=in_play.organiser).status_code == 200
    assert in_play.play(1, "3-6", client=in_play.organiser).status_code == 201
    assert not TableAlert.objects.exists()
    for seat in range(5):
        assert in_play.events(client=in_play.phone(seat))["alerts"] == []


# -- the count is the client's, not the token's (R31) ------------------------------------
#
# The hole (QA): the count lived on the table token alone, so whoever had the join code
# joined again (or left, or had the seat released, and joined again) and probed with a
# fresh count. Every token one client joins now shares one window.

CLUB = "192.0.2.10"  # every phone of the club reaches the referee through this address


def device(address: str = CLUB) -> APIClient:
    """A phone's browser: its own device cookie, as the join page's first answer sets it."""
    client = APIClient(REMOTE_ADDR=address)
    client.get("/")
    assert DEVICE_COOKIE in client.cookies
    return client


def join(table, browser: APIClient, seat: int | None = None) -> APIClient:
    """``POST /join/`` with the join code from ``browser``; a client holding the new token
    (and the browser's cookies)."""
    response = browser.post(
        f"{API}/join/", {"join_code": table.game.join_code, "seat": seat}, format="json"
    )
    assert response.status_code == 201, response.content
    phone = APIClient(**browser.defaults)
    phone.cookies = browser.cookies
    phone.credentials(HTTP_AUTHORIZATION=f"Table {response.json()['token']}")
    return phone


def probe_to_the_limit(table, phone: APIClient, count: int = LIMIT) -> None:
    """Seat 2 tries 5-6, which seat 1 declared: refused under R31 each time, until the limit."""
    for index in range(count):
        assert probe(table, index, client=phone).json()["code"] == "tile_not_in_hand"


def assert_probe_limited(response) -> None:
    assert response.status_code == 429, response.content
    assert response.json()["code"] == "probe_limited"
    assert 0 < int(response["Retry-After"]) <= 600


def test_a_phone_that_joins_again_is_still_probe_limited_R31(in_play, limit):
    browser = device()
    probe_to_the_limit(in_play, join(in_play, browser))

    again = join(in_play, browser)

    assert_probe_limited(in_play.play(2, "2-3", client=again))  # even a legal move


def test_a_second_token_joined_before_the_probes_is_limited_with_the_first_R31(in_play, limit):
    """The second token is live all along: the probes of the first count on it too."""
    browser = device()
    first, second = join(in_play, browser), join(in_play, browser, seat=2)
    probe_to_the_limit(in_play, first)

    assert_probe_limited(in_play.play(2, "2-3", client=second))
    assert_probe_limited(in_play.play(2, "2-3", client=first))


def test_probes_from_two_tokens_of_one_phone_add_up_R31(in_play, limit):
    browser = device()
    first, second = join(in_play, browser), join(in_play, browser)
    for index, phone in enumerate((first, second) * LIMIT):
        response = probe(in_play, index, client=phone)
        if response.status_code == 429:
            break
    assert_probe_limited(response)
    assert TableAlert.objects.get().count == LIMIT  # one alert, at the limit


def test_a_phone_that_leaves_and_joins_again_is_still_probe_limited_R31(in_play, limit):
    browser = device()
    phone = join(in_play, browser)
    probe_to_the_limit(in_play, phone)
    assert phone.post(in_play.url("leave/")).status_code == 204

    again = join(in_play, browser)

    assert_probe_limited(in_play.play(2, "2-3", client=again))


def test_a_phone_whose_seat_is_released_is_still_probe_limited_when_it_joins_again_R31(
    in_play, limit
):
    browser = device()
    seat_2 = join(in_play, browser, seat=2)
    probe_to_the_limit(in_play, seat_2)
    released = in_play.post("seats/2/release/", client=in_play.organiser)
    assert released.status_code == 200, released.content

    again = join(in_play, browser, seat=2)

    assert_probe_limited(in_play.play(2, "2-3", client=again))


def test_a_phone_joining_again_by_the_web_form_is_still_probe_limited_R31(in_play, limit):
    """The phone pages join through their own path (``/join/<code>/``): same count."""
    browser = device()
    probe_to_the_limit(in_play, join(in_play, browser))
    joined = browser.post(f"/join/{in_play.game.join_code}/", {"seat": ""})
    assert joined.status_code == 302

    tap = browser.post(
        "/table/move/",
        {
            "seat": 2,
            "tile": "2-3",
            "version": in_play.state()["version"],
            "key": str(uuid.uuid4()),
        },
        headers={"HX-Request": "true"},
    )

    assert tap.status_code == 429


def test_a_script_without_a_cookie_joining_again_from_its_address_is_probe_limited_R31(
    in_play, limit
):
    """A client sending no device cookie is told apart by its address alone."""
    probe_to_the_limit(in_play, join(in_play, APIClient(REMOTE_ADDR=CLUB)))

    again = join(in_play, APIClient(REMOTE_ADDR=CLUB))

    assert_probe_limited(in_play.play(2, "2-3", client=again))


def test_a_phone_whose_first_join_had_no_cookie_is_the_same_client_with_the_one_it_got_R31(
    in_play, limit
):
    """QA: a join without a device cookie recorded no device, though its answer set one;
    joining again with that cookie (from another address, too) bought a fresh count."""
    browser = APIClient(REMOTE_ADDR=CLUB)  # no cookie yet: the join's answer gives one
    first = join(in_play, browser)
    assert DEVICE_COOKIE in browser.cookies
    probe_to_the_limit(in_play, first)
    browser.defaults["REMOTE_ADDR"] = "198.51.100.7"

    assert_probe_limited(in_play.play(2, "2-3", client=join(in_play, browser)))


def test_a_cookieless_join_records_the_device_its_answer_gives_R31(in_play):
    browser = APIClient(REMOTE_ADDR=CLUB)
    join(in_play, browser)

    token = TableToken.objects.latest("pk")
    given = browser.cookies[DEVICE_COOKIE].value
    assert token.client_device == ""
    assert token.client_issued
    assert token.client_issued in given  # the signed value: "<id>:<signature>"


def test_the_same_phone_on_another_address_is_still_probe_limited_R31(in_play, limit):
    """Its device cookie names the phone, from the club's Wi-Fi or from mobile data."""
    browser = device()
    probe_to_the_limit(in_play, join(in_play, browser))
    browser.defaults["REMOTE_ADDR"] = "198.51.100.7"

    assert_probe_limited(in_play.play(2, "2-3", client=join(in_play, browser)))


def test_another_phone_already_joined_from_the_same_address_is_not_limited_R31(in_play, limit):
    """At a club every phone may share one address: one phone's probes never limit a phone
    that had joined the game before, nor its joining again with its own cookie."""
    honest_browser = device()
    honest = join(in_play, honest_browser, seat=2)
    prober = join(in_play, device())
    probe_to_the_limit(in_play, prober)
    assert_probe_limited(in_play.play(2, "2-3", client=prober))

    assert in_play.play(2, "2-3", client=honest).status_code == 201
    assert honest.post(in_play.url("leave/")).status_code == 204
    again = join(in_play, honest_browser, seat=2)
    assert in_play.undo(client=again).status_code == 200  # its own move: no probe
    assert in_play.play(2, "2-3", client=again).status_code == 201
    assert not TableAlert.objects.filter(count__gt=LIMIT).exists()


def test_a_fresh_device_cookie_from_the_same_address_buys_no_fresh_count_R31(in_play, limit):
    """Finding 2: after the limit a prober fetched a fresh device cookie (the join page
    without its cookie) and joined again from the same address: six new refusals each
    time. A device new to the game now starts from its address's window: three
    identities in a row get one limit's worth between them."""
    refused = 0
    first = join(in_play, device())
    probe_to_the_limit(in_play, first, LIMIT - 1)
    refused += LIMIT - 1
    for _ in range(2):  # two more identities, each with a brand-new cookie
        rotated = join(in_play, device())
        for index in range(LIMIT):
            response = probe(in_play, index + refused, client=rotated)
            if response.status_code == 429:
                break
            assert response.json()["code"] == "tile_not_in_hand"
            refused += 1
        assert_probe_limited(in_play.play(2, "2-3", client=rotated))
    assert refused == LIMIT
    assert TableAlert.objects.get().count == LIMIT  # one alert, at the limit


def test_a_cookieless_script_from_a_new_address_is_not_limited_by_another_address_R31(
    in_play, limit
):
    """The address's window is the address's: a phone joining from elsewhere starts clean."""
    probe_to_the_limit(in_play, join(in_play, device()))

    elsewhere = join(in_play, device("198.51.100.7"), seat=2)

    assert in_play.play(2, "2-3", client=elsewhere).status_code == 201


def test_a_rejoined_phone_probes_again_once_its_window_has_ended_R31(in_play, limit):
    browser = device()
    probe_to_the_limit(in_play, join(in_play, browser))
    TableToken.objects.update(probes_until=timezone.now() - timedelta(seconds=1))

    assert in_play.play(2, "2-3", client=join(in_play, browser)).status_code == 201


# -- a refusal retried with its Idempotency-Key -----------------------------------------
# QA: a refused move sent again with the same key (a phone resending a lost answer) was
# judged, logged and counted as a probe again: a phone on bad Wi-Fi was limited for one
# mistake. The refusal is now kept under the key and replayed.


def test_a_refused_move_retried_with_its_key_is_replayed_and_counted_once_R31(in_play, limit):
    key = {"Idempotency-Key": f"probe-{uuid.uuid4()}"}
    first = in_play.play(2, "5-6", client=in_play.scorekeeper, **key)
    assert first.status_code == 422
    assert first.json()["code"] == "tile_not_in_hand"

    for _ in range(LIMIT + 2):  # more retries than the limit: none is a probe
        retry = in_play.play(2, "5-6", client=in_play.scorekeeper, **key)
        assert retry.status_code == 422
        assert retry.content == first.content
        assert retry["Content-Type"] == PROBLEM
        assert retry["Idempotent-Replayed"] == "true"

    token = TableToken.objects.get(key_hash__isnull=False, seat=None, revoked_at=None)
    assert token.probes == 1
    assert in_play.game.refused_events.count() == 1  # logged once
    assert in_play.play(2, "2-3", client=in_play.scorekeeper).status_code == 201


def test_a_retry_of_a_judged_key_gets_its_answer_even_once_the_limit_is_reached_R31(in_play, limit):
    """QA: the limit was checked before the stored answer, so a phone resending a lost
    answer after later probes reached the limit got 429 instead of its own answer."""
    first_key = {"Idempotency-Key": f"probe-{uuid.uuid4()}"}
    first = in_play.play(2, "5-6", client=in_play.scorekeeper, **first_key)
    assert first.status_code == 422
    for index in range(1, LIMIT):  # other probes, other keys: the limit is reached
        other = {"Idempotency-Key": f"probe-{uuid.uuid4()}"}
        assert probe(in_play, index, client=in_play.scorekeeper, **other).status_code == 422

    retry = in_play.play(2, "5-6", client=in_play.scorekeeper, **first_key)
    fresh = probe(in_play, LIMIT, client=in_play.scorekeeper, **{"Idempotency-Key": "new"})

    assert retry.status_code == 422
    assert retry.content == first.content
    assert retry["Idempotent-Replayed"] == "true"
    assert_probe_limited(fresh)
    assert in_play.game.refused_events.count() == LIMIT  # the retry was not judged again


def test_a_phones_refused_amendments_count_only_when_a_declared_hand_refuses_them_R31(
    in_play, limit
):
    """A phone's correction is judged as a replay: refused because seat 1's declared hand
    does not hold the tile, it is a probe; refused for a reason any hand would give (the
    tile is on the table already), it is not."""
    position = next(
        e["position"] for e in in_play.events()["events"] if e["payload"].get("tile") == "3-6"
    )
    keeper = in_play.scorekeeper
    for _ in range(LIMIT + 2):  # 6-6 is down already: no hand needed to refuse it
        refused = in_play.amend(position, {"seat": 1, "tile": "6-6"}, client=keeper)
        assert refused.json()["code"] == "tile_already_played", refused.content
    for tile in ("4-6", "2-6", "1-6"):  # seat 1's hand does not hold them
        refused = in_play.amend(position, {"seat": 1, "tile": tile}, client=keeper)
        assert refused.json()["code"] == "tile_not_in_hand", refused.content

    assert_probe_limited(in_play.play(2, "2-3", client=keeper))
    assert TableAlert.objects.get().seats == [1]
