"""Issue 12, item 2: nothing reveals a hidden hand (R31). Each probe that read a declared hand
is replayed as it was made; it now stops at ``TABLE_PROBE_LIMIT`` with ``probe_limited``
(429), and the organiser and the probed seat are told."""

from __future__ import annotations

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
    for _ in range(LIMIT):
        response = in_play.play(2, "5-6", client=in_play.scorekeeper)
        assert response.json()["code"] == "tile_not_in_hand"

    stopped = in_play.play(2, "2-3", client=in_play.scorekeeper)  # even a legal one

    assert stopped.status_code == 429
    assert stopped["Content-Type"] == PROBLEM
    assert stopped.json()["code"] == "probe_limited"
    assert 0 < int(stopped["Retry-After"]) <= 600
    assert in_play.play(2, "2-3", client=in_play.phone(2)).status_code == 201  # others go on


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


def test_a_seats_own_phone_undoing_its_own_moves_is_no_probe(table, limit):
    table.accept(table.declare(0, ["6-6", "4-4", "0-3", "1-5", "2-4"]))
    for _ in range(LIMIT + 1):
        table.accept(table.play(0, "6-6"))
        assert table.undo(client=table.phone(0)).status_code == 200

    assert not TableAlert.objects.exists()


def test_probing_by_declaring_four_own_tiles_and_a_candidate_stops_at_the_limit_R31(in_play, limit):
    """The probe: seat 2 declares four of its tiles and a candidate; a refusal says the
    candidate is in a declared hand."""
    for _ in range(LIMIT):
        response = in_play.declare(2, [*SEAT_2[:4], "5-6"])
        assert (response.status_code, response.json()["rule"]) == (400, "R31")

    stopped = in_play.declare(2, SEAT_2)

    assert stopped.status_code == 429
    assert stopped.json()["code"] == "probe_limited"


def test_a_probe_is_reported_to_the_organiser_and_the_probed_seat_only(in_play, limit):
    for _ in range(LIMIT):
        in_play.play(2, "5-6", client=in_play.scorekeeper)

    (alert,) = in_play.events(client=in_play.organiser)["alerts"]

    assert alert["kind"] == "refusals"
    assert alert["seats"] == [1]
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


# -- the organiser may not read a declared hand either (R31) -----------------------------


def _batch_probe(table, tile: str):
    """The probe: amend seat 1's 3-6 to ``tile`` and add an event the rules refuse at the
    end. The whole batch is refused and nothing is stored; which event the refusal names
    tells whether ``tile`` is in seat 1's declared hand (R31)."""
    position = next(
        e["position"]
        for e in table.events()["events"]
        if e["kind"] == "move" and e["payload"].get("seat") == 1
    )
    return table.post(
        "corrections/",
        {
            "reason": "probe",
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


def test_an_organisers_atomic_corrections_probing_a_declared_hand_stop_at_the_limit_R31(
    in_play, limit
):
    """The hole (QA): an organiser's refused batch tells a held tile (the refusal names the
    last event) from one not held (``tile_not_in_hand`` on seat 1's move), without limit,
    and no seat was told. Now counted as a phone's probes are."""
    assert _batch_probe(in_play, "5-6").json()["code"] == "not_your_turn"  # 5-6 is held
    for _ in range(LIMIT):
        response = _batch_probe(in_play, "4-6")
        assert response.json()["code"] == "tile_not_in_hand"

    stopped = _batch_probe(in_play, "5-6")

    assert stopped.status_code == 429
    assert stopped.json()["code"] == "probe_limited"
    assert "organiser" in stopped.json()["detail"]
    assert 0 < int(stopped["Retry-After"]) <= 600
    (alert,) = in_play.events(client=in_play.phone(1))["alerts"]  # the probed seat is told
    assert (alert["kind"], alert["seats"], alert["count"]) == ("refusals", [1], LIMIT)
    assert alert["entered_by"].startswith("user ")
    assert in_play.state()["round"]["chain"] == ["6-6", "6-3"]  # nothing was changed


def test_an_organisers_refused_plays_for_a_declared_seat_stop_at_the_limit_R31(in_play, limit):
    for seat, tile in ((2, "2-3"), (3, "4-6"), (4, "1-2"), (0, "0-4")):  # ends (0, 1)
        in_play.accept(in_play.play(seat, tile))
    for _ in range(LIMIT):
        refused = in_play.play(1, "1-5", client=in_play.organiser)
        assert refused.json()["code"] == "tile_not_in_hand"

    stopped = in_play.play(1, "0-0", client=in_play.organiser)

    assert stopped.status_code == 429
    assert stopped.json()["code"] == "probe_limited"
    assert in_play.play(1, "0-0", client=in_play.phone(1)).status_code == 201  # seat 1 goes on


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


def probe_to_the_limit(table, phone: APIClient) -> None:
    """Seat 2 tries 5-6, which seat 1 declared: refused under R31 each time, until the limit."""
    for _ in range(LIMIT):
        assert table.play(2, "5-6", client=phone).json()["code"] == "tile_not_in_hand"


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
    for phone in (first, second) * LIMIT:
        response = in_play.play(2, "5-6", client=phone)
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


def test_another_phone_joining_from_the_same_address_is_not_limited_R31(in_play, limit):
    """At a club every phone may share one address: one phone's probes never limit another."""
    prober = join(in_play, device())
    probe_to_the_limit(in_play, prober)
    assert_probe_limited(in_play.play(2, "2-3", client=prober))

    other = join(in_play, device(), seat=2)

    assert in_play.play(2, "2-3", client=other).status_code == 201
    assert not TableAlert.objects.filter(count__gt=LIMIT).exists()


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
    for _ in range(LIMIT - 1):  # other keys: the limit is reached
        other = {"Idempotency-Key": f"probe-{uuid.uuid4()}"}
        assert in_play.play(2, "5-6", client=in_play.scorekeeper, **other).status_code == 422

    retry = in_play.play(2, "5-6", client=in_play.scorekeeper, **first_key)
    fresh = in_play.play(2, "5-6", client=in_play.scorekeeper, **{"Idempotency-Key": "new"})

    assert retry.status_code == 422
    assert retry.content == first.content
    assert retry["Idempotent-Replayed"] == "true"
    assert_probe_limited(fresh)
    assert in_play.game.refused_events.count() == LIMIT  # the retry was not judged again
