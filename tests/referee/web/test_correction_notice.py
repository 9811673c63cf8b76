"""A correction of an earlier round tells every phone what changed (issue 28, R35–R37).

What a phone receives when it polls after the organiser corrected, voided or adjusted a
round: the round and each seat's stones before → after, by the player's name, in a live
region, until the next round's lead or until that phone dismisses it.
"""

from __future__ import annotations

import html
import re

import pytest

from referee import services
from referee.models import Game
from referee.services import corrections
from referee.store import CorrectionNotice
from tests.factories import UserFactory
from tests.referee.web.conftest import enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move


def notices(page: str) -> list[str]:
    """The texts of the correction notices in a page's live region (role=status)."""
    region = re.search(
        r'<div id="notices" role="status" aria-live="polite">(.*?)</div>', page, re.S
    )
    assert region is not None, "the live region is always on the page"
    texts = re.findall(r"<p[^>]*>(.*?)</p>", region[1], re.S)
    return [html.unescape(re.sub(r"\s+", " ", text)).strip() for text in texts]


@pytest.fixture
def after_round_1(game: Game, scorekeeper) -> Game:
    """Round 1 of the CEKI walk settled: Daeng (seat 3) holds 2 stones, Evi (seat 4) 3;
    round 2 waits for Andi's lead."""
    enter(game, scorekeeper(game), [record_move(*move) for move in CEKI_WITH_A_PASS])
    game.refresh_from_db()
    return game


def organiser() -> services.Actor:
    return services.Actor(user=UserFactory())


def adjust(game: Game, stones: int = 2) -> None:
    corrections.round_adjust(
        game_id=game.pk,
        round=1,
        source=4,
        to=3,
        stones=stones,
        reason="miscounted",
        actor=organiser(),
    )


def test_an_adjustment_of_an_earlier_round_reaches_every_polling_phone_by_name_R36(
    after_round_1, joined
) -> None:
    shown = after_round_1.version
    phones = [joined(after_round_1, seat=1), joined(after_round_1)]  # Besse's, the scorekeeper's
    for phone in phones:
        assert notices(phone.get("/table/").content.decode()) == []

    adjust(after_round_1)

    for phone in phones:
        answer = phone.get(f"/table/live/?v={shown}", headers={"HX-Request": "true"})
        assert answer.status_code == 200
        assert notices(answer.content.decode()) == ["Round 1 adjusted: Daeng 2 → 4, Evi 3 → 1."]


def test_a_void_names_the_round_and_every_seat_whose_stones_changed_R35(
    after_round_1, joined
) -> None:
    phone = joined(after_round_1, seat=0)

    corrections.round_void(
        game_id=after_round_1.pk, round=1, reason="tiles shown", actor=organiser()
    )

    assert notices(phone.get("/table/").content.decode()) == [
        "Round 1 voided: Daeng 2 → 0, Evi 3 → 0."
    ]


def test_removing_an_earlier_rounds_last_move_is_told_as_corrected_R37(
    after_round_1, joined
) -> None:
    phone = joined(after_round_1)
    last = len(CEKI_WITH_A_PASS) - 1  # Andi's 2-3, the CEKI: round 1 is in play again

    corrections.events_correct(
        game_id=after_round_1.pk,
        changes=[corrections.Change("remove", last)],
        actor=organiser(),
        reason="2-3 was not played",
    )

    assert notices(phone.get("/table/").content.decode()) == ["Round 1 corrected: Evi 3 → 0."]


def test_a_void_of_the_round_in_play_before_any_stone_moved_says_no_stone_changed_R35(
    after_round_1, joined, scorekeeper
) -> None:
    phone = joined(after_round_1)
    enter(after_round_1, scorekeeper(after_round_1), [{"seat": 0, "tile": "6-6"}])

    corrections.round_void(
        game_id=after_round_1.pk, round=2, reason="dealt face up", actor=organiser()
    )

    assert notices(phone.get("/table/").content.decode()) == [
        "Round 2 voided: no seat's stones changed."
    ]


def test_the_notice_stays_until_the_next_round_begins(after_round_1, joined, scorekeeper) -> None:
    phone = joined(after_round_1)
    adjust(after_round_1)
    assert len(notices(phone.get("/table/").content.decode())) == 1
    assert len(notices(phone.get("/table/").content.decode())) == 1  # a reload keeps it

    enter(after_round_1, scorekeeper(after_round_1), [{"seat": 0, "tile": "6-6"}])  # round 2's lead

    assert notices(phone.get("/table/").content.decode()) == []


def test_two_corrections_are_both_told_newest_first(after_round_1, joined) -> None:
    phone = joined(after_round_1)
    adjust(after_round_1, stones=1)
    adjust(after_round_1, stones=1)

    assert notices(phone.get("/table/").content.decode()) == [
        "Round 1 adjusted: Daeng 3 → 4, Evi 2 → 1.",
        "Round 1 adjusted: Daeng 2 → 3, Evi 3 → 2.",
    ]


def test_dismissing_hides_it_on_this_phone_only_and_a_later_correction_is_told(
    after_round_1, joined
) -> None:
    besse, keeper = joined(after_round_1, seat=1), joined(after_round_1)
    adjust(after_round_1, stones=1)
    page = besse.get("/table/").content.decode()
    seen = re.search(r'name="seen" value="(\d+)"', page)
    key = re.search(r'name="key" value="([^"]+)"', page)
    assert seen
    assert key

    answer = besse.post(
        "/table/notice/",
        {"seen": seen[1], "version": after_round_1.version + 1, "key": key[1]},
        headers={"HX-Request": "true"},
    )

    assert answer.status_code == 200
    assert notices(answer.content.decode()) == []
    assert notices(besse.get("/table/").content.decode()) == []
    assert len(notices(keeper.get("/table/").content.decode())) == 1
    adjust(after_round_1, stones=1)
    assert notices(besse.get("/table/").content.decode()) == [
        "Round 1 adjusted: Daeng 3 → 4, Evi 2 → 1."
    ]


def test_a_malformed_dismissal_is_refused_with_a_code_not_a_500(after_round_1, joined) -> None:
    phone = joined(after_round_1)
    adjust(after_round_1)

    answer = phone.post("/table/notice/", {"seen": "many"}, headers={"HX-Request": "true"})

    assert answer.status_code == 400
    assert 'data-code="form_invalid"' in answer.content.decode()
    assert len(notices(phone.get("/table/").content.decode())) == 1


def test_a_phone_amending_its_own_move_tells_no_other_phone(game, joined) -> None:
    phone = joined(game)
    _, token = services.table_join(join_code=game.join_code, seat=0)
    seat = services.Actor(token=token)
    enter(game, seat, [{"seat": 0, "tile": "6-6"}])

    corrections.event_amend_any(
        game_id=game.pk, position=0, payload={"seat": 0, "tile": "6-6"}, actor=seat
    )

    assert notices(phone.get("/table/").content.decode()) == []


def test_the_notice_is_in_the_pages_language(after_round_1, joined) -> None:
    phone = joined(after_round_1, **{"Accept-Language": "fr"})
    adjust(after_round_1)

    (text,) = notices(phone.get("/table/").content.decode())

    assert text.startswith("Manche 1")
    assert "Daeng 2 → 4" in text


@pytest.mark.parametrize(
    ("number", "led", "shown"),
    [(2, False, True), (2, True, False), (3, False, False), (1, True, True)],
)
def test_a_notice_given_before_round_2_s_lead_ends_at_that_lead(number, led, shown) -> None:
    notice = CorrectionNotice(
        1, "adjusted", 1, (0,) * 5, (1,) * 5, CorrectionNotice.ends_at(2, led=False)
    )
    assert notice.is_shown(number, led=led) is shown


def test_a_notice_given_during_round_2_lasts_until_round_3_s_lead() -> None:
    notice = CorrectionNotice(
        1, "corrected", 1, (0,) * 5, (1,) * 5, CorrectionNotice.ends_at(2, led=True)
    )
    assert notice.is_shown(2, led=True)
    assert notice.is_shown(3, led=False)  # round 2 over, round 3 not led yet
    assert not notice.is_shown(3, led=True)
