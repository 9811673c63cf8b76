"""The table can check what happened (issue 28): the finished round's chain stays on the
phones until the next lead, with its outcome (R15, R23)."""

from __future__ import annotations

import re
from pathlib import Path

from referee.models import Game
from tests.referee.web.conftest import enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

CEKI = [record_move(*step) for step in CEKI_WITH_A_PASS]
ROOT = Path(__file__).resolve().parents[3]
PLAYED = sum(1 for _, tile, _ in CEKI_WITH_A_PASS if tile is not None)


def _chain(page: str) -> list[str]:
    board = page.split('<section class="board', 1)[1].split("</section>", 1)[0]
    return re.findall(r'<li title="([^"]+)"', board)


def test_the_finished_rounds_chain_stays_until_the_next_lead(game: Game, scorekeeper, joined):
    phone = joined(game, seat=2)
    enter(game, scorekeeper(game), CEKI)

    page = phone.get("/table/").content.decode()

    assert "Round 1 as it ended: check it before the next lead." in page
    assert len(_chain(page)) == PLAYED  # every tile of round 1, the pass laid none
    assert "CEKI" in page  # and its outcome (R15)

    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])  # round 2's lead
    page = phone.get("/table/").content.decode()

    assert "as it ended" not in page
    assert len(_chain(page)) == 1


def test_a_hand_declared_for_the_next_round_keeps_the_finished_one_on_every_phone_r31(
    game: Game, scorekeeper, joined
):
    """A phone declaring its hand before the lead begins the next round in the core; every
    phone, the declaring one too, still shows round 1 as it ended until the lead."""
    import uuid

    declaring, other = joined(game, seat=1), joined(game, seat=2)
    enter(game, scorekeeper(game), CEKI)
    game.refresh_from_db()
    tiles = ["0-0", "0-1", "0-2", "0-3", "0-4"]
    data = {"version": game.version, "key": str(uuid.uuid4()), "tiles": tiles}
    assert declaring.post("/table/hand/", data, headers={"HX-Request": "true"}).status_code == 201

    for phone in (declaring, other):
        page = phone.get("/table/").content.decode()
        assert "Round 1 as it ended: check it before the next lead." in page
        assert len(_chain(page)) == PLAYED
        assert "CEKI" in page
    page = declaring.get("/table/").content.decode()  # and its own hand, for this round
    assert "Your hand (only this phone shows it)" in page
    assert "Change my hand…" in page
    assert "Your hand (only this phone shows it)" not in other.get("/table/").content.decode()


def _settled(transfers: list[dict]) -> dict:
    outcome = {
        "number": 7,
        "ending": "cappu",
        "finish": "ceki",
        "named": ["FIRST CAPPU", "CEKI", "CUCUQ"],
        "first_cappu": 0,
        "manguno": None,
        "mattikkeng": [],
        "cucuq": 4,
        "winner": 0,
        "remaining_pips": None,
        "transfers": transfers,
        "camat_elected": None,
    }
    return {"round": {"status": "awaiting_lead", "previous": outcome}}


def test_an_award_with_nothing_left_to_give_says_so_r23() -> None:
    from referee.engine import RuleSet
    from referee.web.panels import round_banner

    seats = [{"seat": n, "name": name} for n, name in enumerate(["A", "B", "C", "Daeng", "Evi"])]
    paid = {"move": None, "from": "table", "to": 4, "stones": 3, "reason": "ceki"}
    passed = {"move": 3, "from": "table", "to": 3, "stones": 1, "reason": "pass"}

    unpaid = round_banner(_settled([passed]), seats, RuleSet())
    assert unpaid is not None
    assert unpaid["unpaid"] == seats[4]  # the CUCUQ was owed its CEKI stones (R23b)
    banner = round_banner(_settled([passed, paid]), seats, RuleSet())
    assert banner is not None
    assert banner["unpaid"] is None


def test_an_award_paid_only_in_part_says_how_much_r23() -> None:
    """R23: the CUCUQ is owed the CEKI's 3 stones; with 2 left on the table and nothing
    from the FIRST CAPPU it receives 2, and the phones say 2 of 3."""
    from referee.engine import RuleSet
    from referee.web.panels import round_banner

    seats = [{"seat": n, "name": name} for n, name in enumerate(["A", "B", "C", "Daeng", "Evi"])]
    rules = RuleSet()
    part = {"move": None, "from": "table", "to": 4, "stones": 2, "reason": "ceki"}
    rest = {"move": None, "from": 0, "to": 4, "stones": 1, "reason": "ceki"}

    short = round_banner(_settled([part]), seats, rules)
    assert short is not None
    assert short["short"] == {"seat": seats[4], "paid": 2, "owed": rules.ceki_stones}
    assert short["unpaid"] is None
    full = round_banner(_settled([part, rest]), seats, rules)
    assert full is not None
    assert full["short"] is None
    nothing = round_banner(_settled([]), seats, rules)
    assert nothing is not None
    assert (nothing["short"], nothing["unpaid"]) == (None, seats[4])


def test_the_phones_say_an_award_paid_in_part_in_each_language_r23() -> None:
    """The banner's line for a part payment (``_live.html``) is in every catalog."""
    from django.utils import translation

    line = (
        "%(name)s receives %(paid)s of the %(owed)s stones the round awards: "
        "there was nothing more to give (R23)."
    )
    template = (ROOT / "referee/templates/referee/_live.html").read_text(encoding="utf-8")
    assert "{{ name }} receives {{ paid }} of the {{ owed }} stones the round awards" in template
    texts = {}
    for language in ("en", "fr", "pl", "id"):
        with translation.override(language):
            texts[language] = translation.gettext(line) % {"name": "Evi", "paid": 2, "owed": 3}
    assert texts["en"].startswith("Evi receives 2 of the 3 stones")
    assert texts["fr"].startswith("Evi reçoit 2 des 3 pierres")
    assert texts["pl"].startswith("Evi dostaje 2 z 3 kamieni")
    assert texts["id"].startswith("Evi menerima 2 dari 3 batu")
