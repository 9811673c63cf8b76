"""Accessibility of the web form at 360×640: axe-core on every page, tap targets, tile states.

axe-core comes bundled with ``axe-playwright-python`` (nothing is downloaded); it runs
in Debian's Chromium on each page of ``PAGES`` and the test fails on any **serious**
or **critical** violation, printing them all. To check a new page, add a ``Page`` to
``PAGES``: its name, its path (a function of the ``Night`` of games and users set up
here), who opens it (``anonymous``, a ``phone`` joined to one of the night's games,
or the ``organiser`` signed in), the browser's language and, if needed, what to do
on it first (``then``: click, type...).

Also here: every button and link of the table and organiser pages is at least 44×44 CSS pixels
(WCAG 2.5.5), and played, blocked and impossible tiles are told apart by more than
a shade of grey — a mark and a name of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.test import Client
from playwright.sync_api import expect

from referee import services
from referee.models import Event, Game
from referee.services import computer, corrections, verification
from scoring import room
from scoring.models import Club
from tests.factories import UserFactory
from tests.referee.web.conftest import PHONE, enter
from tests.referee.web.walks import BLOCKED, CEKI_WITH_A_PASS, record_move
from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAILING_IMPACTS = frozenset({"serious", "critical"})
MIN_TAP = 44  # CSS pixels, each side
CEKI_ROUND = [record_move(*step) for step in CEKI_WITH_A_PASS]


@dataclass
class Night:
    """A club night's games and people: one game per state a page can be in."""

    club: Club
    organiser: Any
    fresh: Game  # no move yet: the first lead
    in_play: Game  # ten moves into the CEKI round: 5-6 fits both open ends (R11)
    settled: Game  # the CEKI round settled (its banner)
    blocked: Game  # a blocked round waiting for its reveals (R18)
    with_computer: Game  # seat 4 played by the computer (R39)
    run: Game  # the club's players, round 1 settled with a ruling, a sitting, phones, audit
    voided: Game  # round 1 voided (R35)
    disputed: Game  # round 1 settled, confirmed by seat 1, then disputed by seat 2 (issue 11)
    stranger: Any  # signed in, organises nothing
    new_game: Callable[[list[dict[str, Any]]], Game]  # a game of its own for a seat's phone


@dataclass(frozen=True)
class Page:
    """One page (or one state of a page) to check."""

    name: str
    path: Callable[[Night], str]
    # or "phone" (joined as the scorekeeper of ``game``), "organiser", "stranger" (signed in,
    # organising nothing)
    who: str = "anonymous"
    game: str = "in_play"  # the Night's game a phone joins
    language: str = "en-GB"
    then: Callable[[Any], None] | None = None
    # A seat's phone (``who="phone"``): it joins seat ``seat`` of a new game of its own with
    # ``events`` entered, then ``act(page, game)`` runs (a seat is claimed once, R31 hands).
    seat: int | None = None
    events: tuple[dict[str, Any], ...] = ()
    act: Callable[[Any, Game], None] | None = None


def _wrong_code(page: Any) -> None:
    page.fill("input[name=code]", "WRONG-CODE")
    page.click("form.join button[type=submit]")
    expect(page.locator(".flash.error")).to_be_visible()


def _tick_a_tile(page: Any) -> None:
    page.click('label.tile[data-tile="0-0"]')


def _tap_offline_then_a_grey_tile(page: Any) -> None:
    """A tap kept on the phone (the outbox panel) and why a greyed-out tile cannot be tapped."""
    page.context.set_offline(True)
    page.click('.picker [data-tile="5-5"]')  # fits the 5 end only: one tap
    expect(page.locator("#outbox")).to_be_visible()
    page.click('.picker [data-tile="6-6"]', force=True)  # already played: says so
    expect(page.locator("#why")).to_be_visible()


def _open_seat(page: Any) -> None:
    page.click("#seat-4 > summary")
    expect(page.locator("#seat-4 input[name=reason]").first).to_be_visible()


def _refused_correction(page: Any) -> None:
    """Besse's 1-6 was 2-6? Then Cakra's 1-3 fits no end (R7): the refusal box, input kept."""
    page.select_option("#edit select[name=tile]", "2-6")
    page.fill("#edit input[name=reason]", "Besse says it was 2-6")
    page.click('#edit button[value="amend"]')
    expect(page.locator(".refusal .rule-id")).to_have_text("R7")


def _refused_adjustment(page: Any) -> None:
    """More stones than Andi holds (R36): ``ruling_invalid``."""
    page.select_option("#adjust select[name=source]", "0")
    page.select_option("#adjust select[name=to]", "1")
    page.fill("#adjust input[name=stones]", "999")
    page.fill("#adjust input[name=reason]", "a dropped stone")
    page.click("#adjust button[type=submit]")
    expect(page.locator(".refusal .code-id")).to_have_text("ruling_invalid")


def _stale_close(page: Any) -> None:
    """The confirmation shown, then a sitting started from another tab: the close is 412."""
    other = page.context.new_page()
    other.goto(page.url.replace("/close/", "/manage/"))
    other.click("#sittings form[action$='/sittings/start/'] button")
    expect(other.locator(".flash.success")).to_be_visible()
    other.close()
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("#close button.danger")
    assert answer.value.status == 412
    expect(page.locator(".refusal")).to_be_visible()


HAND = ["1-6", "2-6", "5-5", "3-4", "0-0"]  # Besse's tiles of CEKI_WITH_A_PASS, and 0-0


def _keeper(game: Game) -> services.Actor:
    """The table's scorekeeper (no seat): enters the other seats' moves."""
    return services.Actor(token=services.table_join(join_code=game.join_code)[1])


def _open_hand_picker(page: Any, ticks: list[str]) -> None:
    page.click("[data-declare]")
    expect(page.locator("form.hand-form")).to_be_visible()
    for tile in ticks:
        page.click(f'form.hand-form label[data-tile="{tile}"]')


def _picker_with_ticks(page: Any, game: Game) -> None:
    _open_hand_picker(page, HAND[:3])


def _refused_hand(page: Any, game: Game) -> None:
    """Three tiles are not a hand (R31): refused, the ticks kept."""
    _open_hand_picker(page, HAND[:3])
    page.click("form.hand-form button[type=submit]")
    expect(page.locator(".refusal, .flash.error").first).to_be_visible()


def _declare(page: Any, game: Game) -> None:
    _open_hand_picker(page, HAND)
    page.click("form.hand-form button[type=submit]")
    expect(page.locator(".hand-tile")).to_have_count(5)


def _hand_on_own_turn(page: Any, game: Game) -> None:
    """Besse's hand declared, six moves later her turn: 1-6 played, 2-6 and 0-0 playable."""
    _declare(page, game)
    enter(game, _keeper(game), CEKI_ROUND[:6])
    page.reload()
    expect(page.locator('.hand-tile[data-hand-tile="1-6"]')).to_have_attribute(
        "data-state", "played"
    )
    expect(page.locator('.hand-tile[data-hand-tile="2-6"]')).to_have_attribute(
        "data-state", "playable"
    )
    expect(page.locator('.hand-tile[data-hand-tile="3-4"]')).to_have_attribute("data-state", "held")


def _dispute_open(page: Any, game: Game) -> None:
    page.click("#verification details.dispute summary")
    page.fill("form.dispute-round input[name=reason]", "Daeng played 2-4, not 2-5")


def _confirm(page: Any, game: Game) -> None:
    page.click("form.confirm-round button")
    expect(page.locator("#verification")).to_have_attribute("data-status", "confirmed")


def _event_position(game: Game, index: int) -> int:
    """The position of round 1's live event ``index`` (0-based, in order)."""
    live = Event.objects.filter(game=game, revoked_by__isnull=True).order_by("position")
    return int(live.values_list("position", flat=True)[index])


def _round(n: Night, number: int = 1, query: str = "") -> str:
    return f"/games/{n.run.pk}/rounds/{number}/{query}"


PAGES: list[Page] = [
    Page("home", lambda n: "/"),
    Page("home-refused-code-pl", lambda n: "/", language="pl", then=_wrong_code),
    Page("seat-picker", lambda n: f"/join/{n.in_play.join_code}/"),
    Page("table-first-lead", lambda n: "/table/", who="phone", game="fresh"),
    Page("table-in-play", lambda n: "/table/", who="phone"),
    Page("table-end-chooser", lambda n: "/table/?pick=5-6", who="phone"),
    Page("table-undo-confirm", lambda n: "/table/?confirm=undo", who="phone"),
    Page(
        "table-reveal", lambda n: "/table/?reveal=1", who="phone", game="blocked", then=_tick_a_tile
    ),
    Page(
        "table-tap-kept-offline",
        lambda n: "/table/",
        who="phone",
        then=_tap_offline_then_a_grey_tile,
    ),
    Page("table-settled-round", lambda n: "/table/", who="phone", game="settled"),
    # The notice of the organiser's void of round 1 (R35), with its "Dismiss" (issue 28).
    Page(
        "table-correction-notice-pl", lambda n: "/table/", who="phone", game="voided", language="pl"
    ),
    Page("table-in-play-fr", lambda n: "/table/", who="phone", language="fr"),
    Page("login", lambda n: "/accounts/login/"),
    Page("organiser-games", lambda n: "/games/", who="organiser"),
    Page("organiser-game", lambda n: f"/games/{n.in_play.pk}/", who="organiser"),
    Page("organiser-computer", lambda n: f"/games/{n.with_computer.pk}/", who="organiser"),
    # The organiser's pages (referee.web.organiser) and the club's standings (scoring.web).
    Page("organiser-games-pl", lambda n: "/games/", who="organiser", language="pl"),
    Page("organiser-manage", lambda n: f"/games/{n.run.pk}/manage/", who="organiser"),
    Page(
        "organiser-manage-seat-open-fr",
        lambda n: f"/games/{n.run.pk}/manage/",
        who="organiser",
        language="fr",
        then=_open_seat,
    ),
    Page("organiser-round", lambda n: _round(n), who="organiser"),
    Page("organiser-round-not-begun-id", lambda n: _round(n, 2), who="organiser", language="id"),
    Page(
        "organiser-correction-open",
        lambda n: _round(n, 1, f"?event={_event_position(n.run, 1)}#edit"),
        who="organiser",
    ),
    Page(
        "organiser-correction-refused",
        lambda n: _round(n, 1, f"?event={_event_position(n.run, 1)}#edit"),
        who="organiser",
        then=_refused_correction,
    ),
    Page(
        "organiser-adjust-refused-pl",
        lambda n: _round(n),
        who="organiser",
        language="pl",
        then=_refused_adjustment,
    ),
    Page(
        "organiser-round-voided-fr",
        lambda n: f"/games/{n.voided.pk}/rounds/1/",
        who="organiser",
        language="fr",
    ),
    Page("organiser-no-such-round", lambda n: _round(n, 9), who="organiser"),
    Page("organiser-close", lambda n: f"/games/{n.run.pk}/close/", who="organiser"),
    Page(
        "organiser-close-stale",
        lambda n: f"/games/{n.run.pk}/close/",
        who="organiser",
        then=_stale_close,
    ),
    Page("organiser-forbidden", lambda n: f"/games/{n.run.pk}/manage/", who="stranger"),
    Page(
        "organiser-forbidden-phone-id",
        lambda n: f"/games/{n.in_play.pk}/manage/",
        who="phone",
        language="id",
    ),
    Page("club-standings", lambda n: "/clubs/makassar/standings/", who="organiser"),
    Page(
        "club-standings-fr", lambda n: "/clubs/makassar/standings/", who="organiser", language="fr"
    ),
    Page("room", lambda n: room.room_url(n.club)),
    Page("room-id", lambda n: room.room_url(n.club), language="id"),
    # Private hands (R31) and round verification (issue 11), from a seat's own phone.
    Page("hand-declare-prompt", lambda n: "/table/", who="phone", seat=1),
    Page(
        "hand-picker-ticked-fr",
        lambda n: "/table/",
        who="phone",
        seat=1,
        language="fr",
        act=_picker_with_ticks,
    ),
    Page("hand-picker-ticked", lambda n: "/table/", who="phone", seat=1, act=_picker_with_ticks),
    Page("hand-refused", lambda n: "/table/", who="phone", seat=1, act=_refused_hand),
    Page(
        "hand-refused-id",
        lambda n: "/table/",
        who="phone",
        seat=1,
        language="id",
        act=_refused_hand,
    ),
    Page("hand-own-turn", lambda n: "/table/", who="phone", seat=1, act=_hand_on_own_turn),
    Page(
        "hand-own-turn-pl",
        lambda n: "/table/",
        who="phone",
        seat=1,
        language="pl",
        act=_hand_on_own_turn,
    ),
    Page(
        "round-verify-dispute-open",
        lambda n: "/table/",
        who="phone",
        seat=2,
        events=tuple(CEKI_ROUND),
        act=_dispute_open,
    ),
    Page(
        "round-verify-dispute-open-pl",
        lambda n: "/table/",
        who="phone",
        seat=2,
        events=tuple(CEKI_ROUND),
        language="pl",
        act=_dispute_open,
    ),
    Page(
        "round-verify-to-confirm-fr",
        lambda n: "/table/",
        who="phone",
        seat=2,
        events=tuple(CEKI_ROUND),
        language="fr",
    ),
    Page(
        "round-confirmed",
        lambda n: "/table/",
        who="phone",
        seat=2,
        events=tuple(CEKI_ROUND),
        act=_confirm,
    ),
    Page(
        "round-confirmed-id",
        lambda n: "/table/",
        who="phone",
        seat=2,
        events=tuple(CEKI_ROUND),
        language="id",
        act=_confirm,
    ),
    Page("organiser-dispute", lambda n: f"/games/{n.disputed.pk}/", who="organiser"),
    Page(
        "organiser-dispute-fr", lambda n: f"/games/{n.disputed.pk}/", who="organiser", language="fr"
    ),
    Page(
        "organiser-dispute-id", lambda n: f"/games/{n.disputed.pk}/", who="organiser", language="id"
    ),
    Page(
        "organiser-dispute-pl", lambda n: f"/games/{n.disputed.pk}/", who="organiser", language="pl"
    ),
]


@pytest.fixture
def night() -> Night:
    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    organiser = OrganiserFactory(club=club, user=UserFactory(username="director")).user
    names = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]

    def game(events: list[dict[str, Any]]) -> Game:
        made = services.game_create(players=list(names), club=club, created_by=organiser)
        if events:
            _, token = services.table_join(join_code=made.join_code)
            enter(made, services.Actor(token=token), events)
        return made

    with_computer = game([])
    director = services.Actor(user=organiser)
    computer.seat_strategy_set(game_id=with_computer.pk, seat=4, strategy="greedy", actor=director)

    # The club's registered players at one table: round 1 settled, then an adjustment (R36),
    # a substitute from round 2 (R38), a sitting (R27), three phones (one revoked).
    members = [PlayerFactory(club=club, display_name=name).pk for name in names]
    run = services.game_create(players=members, club=club, created_by=organiser)
    _, token = services.table_join(join_code=run.join_code, label="Andi's phone")
    enter(run, services.Actor(token=token), CEKI_ROUND)
    services.table_join(join_code=run.join_code, seat=2, label="Cakra's phone")
    _, leaving = services.table_join(join_code=run.join_code, seat=3, label="Daeng's phone")
    services.seat_release(game_id=run.pk, seat=3, actor=director)
    corrections.round_adjust(
        game_id=run.pk,
        round=1,
        source=4,
        to="table",
        stones=1,
        reason="a dropped stone",
        actor=director,
    )
    corrections.seat_substitute(
        game_id=run.pk, seat=4, round=2, name="Fitri", actor=director, reason="Evi went home"
    )
    services.session_start(game_id=run.pk, actor=director)

    voided = game(CEKI_ROUND)
    corrections.round_void(game_id=voided.pk, round=1, reason="tiles shown", actor=director)

    disputed = game(CEKI_ROUND)  # its last move entered by the scorekeeper
    for seat, verify in ((1, verification.round_confirm), (2, verification.round_dispute)):
        _, seat_token = services.table_join(join_code=disputed.join_code, seat=seat)
        extra = {"reason": "Daeng played 2-4, not 2-5"} if seat == 2 else {}
        verify(game_id=disputed.pk, round=1, actor=services.Actor(token=seat_token), **extra)
    return Night(
        club=club,
        organiser=organiser,
        fresh=game([]),
        in_play=game(CEKI_ROUND[:10]),
        settled=game(CEKI_ROUND),
        blocked=game(BLOCKED),
        with_computer=with_computer,
        run=run,
        voided=voided,
        disputed=disputed,
        stranger=UserFactory(username="passer-by"),
        new_game=game,
    )


def open_page(chromium: Any, live_server: Any, night: Night, spec: Page) -> tuple[Any, Any]:
    """A new browser context at 360×640 in ``spec.language``, as ``spec.who``, on the page."""
    context = chromium.new_context(
        viewport=PHONE,
        device_scale_factor=1,
        locale=spec.language,
        base_url=live_server.url,
        has_touch=True,
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    if spec.who in {"organiser", "stranger"}:
        client = Client()
        client.force_login(night.organiser if spec.who == "organiser" else night.stranger)
        session = client.cookies["sessionid"].value
        context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
    elif spec.who == "phone":
        game: Game = (
            getattr(night, spec.game) if spec.seat is None else night.new_game(list(spec.events))
        )
        page.goto(f"/join/{game.join_code}/")
        page.click(f'.seat-pick button[value="{"" if spec.seat is None else spec.seat}"]')
        expect(page.locator("#live")).to_be_visible()
    page.goto(spec.path(night))
    if spec.act is not None:
        spec.act(page, game)
    if spec.then is not None:
        spec.then(page)
    return context, page


def serious(results: Any) -> list[dict[str, Any]]:
    return [v for v in results.response["violations"] if v["impact"] in FAILING_IMPACTS]


def describe(name: str, violations: list[dict[str, Any]]) -> str:
    lines = [f"{name}: {len(violations)} serious or critical axe violation(s)"]
    for v in violations:
        lines.append(f"  {v['id']} ({v['impact']}): {v['help']} — {v['helpUrl']}")
        for node in v["nodes"][:8]:
            lines.append(f"    {', '.join(map(str, node['target']))}: {node['html'][:160]}")
            lines.append(f"      {node.get('failureSummary', '').replace(chr(10), ' ')[:300]}")
    return "\n".join(lines)


ID_FAULTS = """() => {
    const faults = [];
    const seen = new Map();
    for (const el of document.querySelectorAll("[id]")) {
        seen.set(el.id, (seen.get(el.id) || 0) + 1);
    }
    for (const [id, n] of seen) if (n > 1) faults.push(`id "${id}" is used ${n} times`);
    for (const label of document.querySelectorAll("label[for]")) {
        const target = document.getElementById(label.htmlFor);
        if (!target) faults.push(`label "${label.textContent.trim()}" names no field`);
        else if (target.form !== (label.closest("form") || target.form))
            faults.push(`label "${label.textContent.trim()}" names another form's field`);
    }
    for (const el of document.querySelectorAll("[aria-describedby]")) {
        for (const id of el.getAttribute("aria-describedby").split(/\\s+/))
            if (!document.getElementById(id)) faults.push(`aria-describedby "${id}" is missing`);
    }
    return faults;
}"""


def id_faults(page: Any) -> list[str]:
    """Ids used twice, labels naming another form's field (or none), dangling
    ``aria-describedby``: a page that draws one form several times gets these wrong, and
    axe reports them only as minor or not at all."""
    return list(page.evaluate(ID_FAULTS))


def test_no_page_has_a_serious_or_critical_axe_violation(chromium, live_server, night) -> None:
    axe = Axe()
    failures = []
    for spec in PAGES:
        context, page = open_page(chromium, live_server, night, spec)
        try:
            found = serious(axe.run(page))
            faults = id_faults(page)
        finally:
            context.close()
        if found:
            failures.append(describe(spec.name, found))
        if faults:
            failures.append(f"{spec.name}: " + "; ".join(faults))
    report = "\n\n".join(failures)
    print(report)
    assert not failures, report


def test_the_pages_are_checked_in_every_language() -> None:
    languages = {spec.language.split("-")[0] for spec in PAGES}
    assert languages == {"en", "fr", "id", "pl"}
    organisers = {spec.language.split("-")[0] for spec in PAGES if spec.who == "organiser"}
    assert organisers == {"en", "fr", "id", "pl"}
    names = [spec.name for spec in PAGES]
    assert len(names) == len(set(names))


TAPPABLE = "button, a[href], summary, label.tile, [role=button], input, select"


def small_targets(page: Any) -> list[str]:
    """Every visible tap target smaller than 44×44 CSS px, as ``tag.class text WxH``."""
    return page.evaluate(
        """([selector, min]) => [...document.querySelectorAll(selector)]
            .filter(el => el.offsetParent !== null || getComputedStyle(el).position === "fixed")
            .filter(el => !(el.type === "hidden") && !el.closest("[hidden]"))
            .filter(el => !(el.tagName === "INPUT" && el.closest("label.tile")))
            .map(el => [el, el.getBoundingClientRect()])
            .filter(([el, r]) => r.width > 0 && (r.width < min || r.height < min))
            .map(([el, r]) => `${el.tagName.toLowerCase()}.${el.className} "${
                (el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 30)
            }" ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        [TAPPABLE, MIN_TAP],
    )


@pytest.mark.parametrize(
    "spec",
    [spec for spec in PAGES if spec.who != "anonymous"],
    ids=lambda spec: spec.name,
)
def test_every_tap_target_of_the_table_and_organiser_pages_is_at_least_44_px(
    chromium, live_server, night, spec
) -> None:
    context, page = open_page(chromium, live_server, night, spec)
    try:
        count = page.locator(TAPPABLE).count()
        small = small_targets(page)
        width = page.evaluate("document.documentElement.scrollWidth")
    finally:
        context.close()
    assert count > 5
    assert small == []
    assert width <= PHONE["width"]  # nothing runs off the side of the phone


def test_the_axe_check_finds_what_it_must(chromium) -> None:
    """The check can fail: a nameless button and an image without text are critical."""
    page = chromium.new_page()
    try:
        page.set_content('<html><body><button></button><img src="x.png"></body></html>')
        found = {v["id"] for v in serious(Axe().run(page))}
    finally:
        page.close()
    assert {"button-name", "image-alt", "html-has-lang"} <= found


def test_the_id_check_finds_what_it_must(chromium) -> None:
    """Two forms drawn with the same ids: the second form's label names the first's field."""
    page = chromium.new_page()
    try:
        page.set_content(
            '<html lang="en"><body>'
            + '<form><label for="id_reason">Reason</label><input id="id_reason"></form>' * 2
            + '<input aria-describedby="gone"></body></html>'
        )
        faults = id_faults(page)
    finally:
        page.close()
    assert faults == [
        'id "id_reason" is used 2 times',
        'label "Reason" names another form\'s field',
        'aria-describedby "gone" is missing',
    ]


def tile_look(page: Any, selector: str) -> dict[str, str]:
    """What tells a tile apart besides its shade: its mark, its name, its border's style."""
    return page.eval_on_selector(
        selector,
        """el => ({
            mark: (el.querySelector(".mark") || {}).textContent || "",
            name: (el.querySelector("input") || el).getAttribute("aria-label"),
            border: getComputedStyle(el).borderTopStyle,
        })""",
    )


def test_played_blocked_and_impossible_tiles_differ_by_more_than_grey_R32_R33(
    chromium, live_server, night
) -> None:
    # Ten moves into the CEKI round, ends 6 and 5 (R11): 6-6 is played, 1-1 fits no end.
    context, page = open_page(chromium, live_server, night, Page("t", lambda n: "/table/", "phone"))
    try:
        played = tile_look(page, '.picker [data-tile="6-6"]')
        blocked = tile_look(page, '.picker [data-tile="1-1"]')
        playable = tile_look(page, '.picker [data-tile="5-5"]')
        legend = page.locator(".entry .legend").inner_text()
    finally:
        context.close()
    assert (played["mark"], blocked["mark"], playable["mark"]) == ("✓", "✕", "")
    assert played["name"] == "6-6: already played"
    assert blocked["name"] == "1-1: cannot be played now"
    assert playable["name"] == "5-5"
    assert played["border"] != blocked["border"]
    assert "already played" in legend
    assert "not now" in legend

    # A blocked round's reveal (ends 6 and 6, R33): 6-6 was played, 0-6 cannot be held.
    spec = Page("r", lambda n: "/table/?reveal=1", "phone", game="blocked")
    context, page = open_page(chromium, live_server, night, spec)
    try:
        played = tile_look(page, 'label.tile[data-tile="6-6"]')
        impossible = tile_look(page, 'label.tile[data-tile="0-6"]')
        possible = tile_look(page, 'label.tile[data-tile="0-0"]')
    finally:
        context.close()
    assert (played["mark"], impossible["mark"], possible["mark"]) == ("✓", "⊘", "")
    assert impossible["name"] == "0-6: cannot be held"
    assert played["name"] == "6-6: already played"
    assert len({played["border"], impossible["border"], possible["border"]}) == 3
