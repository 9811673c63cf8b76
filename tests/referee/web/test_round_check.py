"""The table can check what happened (issue 28): the finished round's chain stays on the
phones until the next lead, with its outcome (R15, R23)."""

from __future__ import annotations

import re

from referee.models import Game
from tests.referee.web.conftest import enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

CEKI = [record_move(*step) for step in CEKI_WITH_A_PASS]
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


def _settled(transfers: list[dict]) -> dict:
    outcome = {
        "number": 7,
        "ending": "cappu",
        "finish": "ceki",
        "named": ["CEKI"],
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
    from referee.web.panels import round_banner

    seats = [{"seat": n, "name": name} for n, name in enumerate(["A", "B", "C", "Daeng", "Evi"])]
    paid = {"move": None, "from": "table", "to": 4, "stones": 3, "reason": "ceki"}
    passed = {"move": 3, "from": "table", "to": 3, "stones": 1, "reason": "pass"}

    unpaid = round_banner(_settled([passed]), seats)
    assert unpaid is not None
    assert unpaid["unpaid"] == seats[4]  # the CUCUQ was owed its CEKI stones (R23b)
    banner = round_banner(_settled([passed, paid]), seats)
    assert banner is not None
    assert banner["unpaid"] is None
