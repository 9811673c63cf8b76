"""Issue 27, finding 8: join guessing is limited per guesser, not per address.

The hole: about 300 wrong join codes from one address in 11 s locked every phone at that
address out of joining for 10 minutes, the right code and brand-new phones included, so a
club behind one shared address (NAT) could not start its evening.

Over real HTTP (pytest-django's ``live_server``, a threaded server) on PostgreSQL, with
one thread per phone. Every phone reaches the server from 127.0.0.1: one NAT. A phone is
a cookie jar of its own (its ``domeng_device`` cookie), or none for a brand-new phone.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from referee import services
from referee.lockouts import DEVICE_COOKIE
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

FAILURES = 5  # JOIN_LOCKOUT_FAILURES
NEWCOMER = 2  # JOIN_LOCKOUT_NEW_DEVICE_FAILURES
CEILING = 60  # JOIN_LOCKOUT_ADDRESS_FAILURES


@pytest.fixture
def lockout(settings):
    settings.JOIN_LOCKOUT_FAILURES = FAILURES
    settings.JOIN_LOCKOUT_NEW_DEVICE_FAILURES = NEWCOMER
    settings.JOIN_LOCKOUT_ADDRESS_FAILURES = CEILING
    settings.JOIN_LOCKOUT_SECONDS = 600
    return settings


@dataclass
class Phone:
    """One phone behind the club's NAT: its own device cookie, if it has one yet."""

    base: str
    device: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json", **self.headers}
        if self.device:
            headers["Cookie"] = f"{DEVICE_COOKIE}={self.device}"
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
                status, raw, cookies = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, raw, cookies = error.code, error.read(), error.headers
        for cookie in cookies.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            if name.strip() == DEVICE_COOKIE:
                self.device = rest.split(";", 1)[0]
        is_json = raw.startswith(b"{")
        return status, json.loads(raw) if is_json else {}

    def open_page(self, path: str = "/") -> int:
        """The page a phone opens first (the home page, or the join link's): it sets the
        device cookie of a phone that has none."""
        return self.request("GET", path)[0]

    def join(self, code: str) -> tuple[int, dict[str, Any]]:
        return self.request("POST", "/api/v1/join/", {"join_code": code})


def wrong(n: int) -> str:
    return f"WRONG{n:05d}"


def game_code() -> str:
    return services.game_create(players=["Andi", "Besse", "Cakra", "Daeng", "Evi"]).join_code


def guess(phone: Phone, count: int) -> list[int]:
    return [phone.join(wrong(n))[0] for n in range(count)]


@pytest.fixture
def defaults(settings):
    """The production defaults, spelled out: the test fails if they change."""
    settings.JOIN_LOCKOUT_FAILURES = 30
    settings.JOIN_LOCKOUT_NEW_DEVICE_FAILURES = 3
    settings.JOIN_LOCKOUT_ADDRESS_FAILURES = 3000
    settings.JOIN_LOCKOUT_SECONDS = 600
    return settings


def test_a_nat_of_20_phones_keeps_joining_while_one_of_them_guesses_hundreds_of_codes(
    live_server, defaults
):
    """19 phones behind one address — 11 with their cookies from before, 4 brand-new ones
    opening the join link, 4 brand-new apps posting with no cookie at all — join with the
    right code, three times while and twice after, in threads racing a guesser that makes
    300 wrong codes, dropping its cookie for a fresh one whenever it is locked out (before,
    300 wrong codes from one address locked out every phone behind it). The guesser alone
    is locked out, the right code included, and each fresh cookie bought it 3 guesses, not
    30."""
    code = game_code()
    guesser = Phone(live_server.url)
    guesser.open_page()
    regulars = [Phone(live_server.url) for _ in range(11)]
    for regular in regulars:
        regular.open_page()
    started, done = threading.Event(), threading.Event()
    statuses: dict[str, list[int]] = {}
    budgets: list[int] = []

    def guessing() -> None:
        wrong_codes = 0
        while wrong_codes < 300:
            budget = 0
            while wrong_codes < 300 and guesser.join(wrong(wrong_codes))[0] == 404:
                wrong_codes += 1
                budget += 1
            budgets.append(budget)
            started.set()  # the address is being guessed from: newcomers are on probation
            if wrong_codes < 300:
                guesser.device = ""  # drop the cookie; the page gives a fresh one
                guesser.open_page()
        statuses["guesser"] = [guesser.join(wrong(300))[0], guesser.join(code)[0]]
        done.set()

    def joining(name: str, phone: Phone, link: bool) -> None:
        started.wait(60)
        if link:
            phone.open_page(f"/join/{code}/")  # a brand-new phone scans the table's QR code
        during = [phone.join(code)[0] for _ in range(3)]
        done.wait(300)  # and once the guesser has made its 300 wrong codes
        statuses[name] = during + [phone.join(code)[0] for _ in range(2)]

    phones = [(f"regular{i}", p, False) for i, p in enumerate(regulars)]
    phones += [(f"linked{i}", Phone(live_server.url), True) for i in range(4)]
    phones += [(f"cookieless{i}", Phone(live_server.url), False) for i in range(4)]
    threads = [threading.Thread(target=guessing)]
    threads += [threading.Thread(target=joining, args=phone) for phone in phones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)

    assert budgets == [30] + [3] * 90
    assert statuses.pop("guesser") == [429, 429]
    assert {name: got for name, got in statuses.items()} == {
        name: [201] * 5 for name, _, _ in phones
    }


def test_a_guesser_that_drops_or_renews_its_cookie_gains_no_fresh_budget(live_server, lockout):
    """The hole (finding 2's twin): a fresh cookie was a fresh count. Now a cookie issued
    after its address began guessing, and the cookieless bucket, get ``NEWCOMER`` wrong codes
    each, not ``FAILURES``; a brand-new phone with the right code still joins."""
    code = game_code()
    guesser = Phone(live_server.url)
    guesser.open_page()
    assert guess(guesser, FAILURES + 1) == [404] * FAILURES + [429]

    renewed = [Phone(live_server.url) for _ in range(3)]
    for phone in renewed:
        phone.open_page()  # the guesser drops its cookie and gets a new one
    cookieless = Phone(live_server.url)

    for phone in renewed:
        assert guess(phone, FAILURES) == [404] * NEWCOMER + [429] * (FAILURES - NEWCOMER)
        assert phone.join(code)[0] == 429
    assert [Phone(live_server.url).join(wrong(n))[0] for n in range(FAILURES)] == [404] * (
        NEWCOMER
    ) + [429] * (FAILURES - NEWCOMER)
    # A new app posting the right code without a cookie after that is told to come back
    # with the cookie the answer gives it, and joins with it; a phone that opened the
    # table's link first joins at once.
    assert cookieless.join(code)[0] == 429
    assert cookieless.device
    assert cookieless.join(code)[0] == 201
    linked = Phone(live_server.url)
    linked.open_page(f"/join/{code}/")
    assert linked.join(code)[0] == 201


def test_the_address_lockout_still_triggers_at_its_higher_ceiling_and_an_organiser_lifts_it(
    live_server, lockout
):
    """Twelve phones with cookies from before each guess their ``FAILURES``: the address's
    ``CEILING`` (60) is reached and every phone behind it is locked, the right code and new
    phones included; an organiser's lift from the club's address lets them all join."""
    code = game_code()
    guessers = [Phone(live_server.url) for _ in range(CEILING // FAILURES)]
    for phone in guessers:
        phone.open_page()
    honest = Phone(live_server.url)
    honest.open_page()

    counted = [status for phone in guessers for status in guess(phone, FAILURES)]

    assert counted == [404] * CEILING
    assert honest.join(code)[0] == 429
    assert Phone(live_server.url).join(code)[0] == 429

    user = UserFactory()
    organiser = Phone(live_server.url)
    organiser.headers["Authorization"] = f"Token {Token.objects.create(user=user).key}"
    lifted = organiser.request("POST", "/api/v1/join/lockouts/lift/", {})
    assert lifted == (200, {"address": "127.0.0.1", "lifted": True})
    assert honest.join(code)[0] == 201
    assert guessers[0].join(code)[0] == 201
    assert Phone(live_server.url).join(code)[0] == 201


def test_a_guessers_parallel_requests_get_no_more_guesses_than_its_limit(live_server, lockout):
    """30 wrong codes sent at once from one cookie, each in its own thread: without the
    attempts of an address taking turns, all of them passed the check before any failure
    was counted (and counts written at once overwrote each other). At most ``FAILURES``
    are judged; the rest are locked out. (The test server's listen queue may reset a
    connection under the burst; a reset request is left out.)"""
    guesser = Phone(live_server.url)
    guesser.open_page()
    barrier = threading.Barrier(30)
    statuses: list[int] = []
    resets: list[OSError] = []

    def one(n: int) -> None:
        phone = Phone(live_server.url, device=guesser.device)
        barrier.wait(60)
        try:
            statuses.append(phone.join(wrong(n))[0])
        except OSError as error:  # ConnectionResetError, URLError
            resets.append(error)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)

    assert len(statuses) + len(resets) == 30
    assert len(statuses) >= 20, resets
    assert set(statuses) == {404, 429}
    assert FAILURES - len(resets) <= statuses.count(404) <= FAILURES
    assert guesser.join(wrong(99))[0] == 429
