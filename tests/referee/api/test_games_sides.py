"""Each play keeps the side of the chain it lies on, so a correction of an earlier tile
keeps later tiles where they lie (R11, R37); where no side is known the refusal asks
which end, and the same correction can answer it."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Event

# Round 1: Daeng (seat 3) leads 6-6 and goes out while every other seat passes; he is
# CAMAT and leads round 2.
ROUND_1: list[dict[str, Any]] = [{"seat": 3, "tile": "6-6"}]
for _tile in ("6-5", "5-4", "4-3", "3-2"):
    ROUND_1 += [{"seat": seat, "pass": True} for seat in (4, 0, 1, 2)]
    ROUND_1 += [{"seat": 3, "tile": _tile}]

# Round 2: at move 20 Daeng's phone enters 3-6 (5-6 was played) on the 6 end, the
# other end showing 0; Evi then goes out with 0-5, which fits only the 0 end, so no
# on is entered.
ROUND_2: list[dict[str, Any]] = [
    {"seat": 3, "tile": "0-1"},
    {"seat": 4, "tile": "1-6"},
    {"seat": 0, "tile": "0-6", "on": 6},
    {"seat": 1, "tile": "0-4"},
    {"seat": 2, "tile": "0-0"},
    {"seat": 3, "pass": True},
    {"seat": 4, "tile": "4-4"},
    {"seat": 0, "tile": "3-4"},
    {"seat": 1, "tile": "0-3", "on": 0},
    {"seat": 2, "tile": "1-3"},
    {"seat": 3, "tile": "1-1"},
    {"seat": 4, "tile": "1-4"},
    {"seat": 0, "tile": "3-3"},
    {"seat": 1, "tile": "2-3"},
    {"seat": 2, "tile": "0-2"},
    {"seat": 3, "pass": True},
    {"seat": 4, "tile": "4-5"},
    {"seat": 0, "tile": "2-5"},
    {"seat": 1, "tile": "2-4"},
    {"seat": 2, "tile": "4-6"},
    {"seat": 3, "tile": "3-6"},
    {"seat": 4, "tile": "0-5"},
]

DAENG, EVI = 3, 4


def positions_of_round(table, number: int) -> list[int]:
    return [
        e.position
        for e in Event.objects.filter(
            game=table.game, round_number=number, kind="move", revoked_by__isnull=True
        ).order_by("position")
    ]


@pytest.fixture
def evening(table):
    """Rounds 1 and 2 entered from the phones, and round 3's lead."""
    table.play_round({"moves": ROUND_1})
    table.play_round({"moves": ROUND_2})
    assert table.state()["turn"] == DAENG  # the CAMAT leads round 3 (R6)
    table.accept(table.play(DAENG, "2-2"))
    return table


def test_amending_a_mistyped_tile_keeps_the_later_tile_on_its_side_R11_R37(evening):
    """The organiser amends move 20 to 5-6 after round 3's lead: Evi's 0-5 stays on the
    side it was placed on (the 0 end), now also fitting the 5 end; the record says so."""
    move_20 = positions_of_round(evening, 2)[20]

    response = evening.amend(move_20, {"seat": DAENG, "tile": "5-6"}, client=evening.organiser)

    assert response.status_code == 200, response.content
    record = evening.record(client=evening.organiser)
    moves = record["rounds"][1]["moves"]
    assert moves[20] == {"seat": DAENG, "tile": "5-6"}
    # Exported with the end it was folded on: 0-5 now fits both open ends (5, 0).
    assert moves[21] == {"seat": EVI, "tile": "0-5", "on": 0}
    result = evening.result()
    assert result["rounds"][1]["finish"] == "ceki"  # ends 5, 5 (R15)
    assert [
        e.payload.get("side")
        for e in Event.objects.filter(
            game=evening.game, round_number=2, kind="move", revoked_by__isnull=True
        ).order_by("position")
    ][20:] == ["right", "left"]


def test_an_ambiguous_later_play_is_refused_naming_it_and_its_ends_R11_R37(evening):
    """Events stored before sides were kept (none known): the same amendment makes 0-5
    fit two open ends of different values; the refusal names the event and the ends."""
    for event in Event.objects.filter(game=evening.game, kind="move"):
        event.payload.pop("side", None)
        event.save(update_fields=["payload"])
    move_20 = positions_of_round(evening, 2)[20]
    version = evening.state()["version"]

    response = evening.amend(move_20, {"seat": DAENG, "tile": "5-6"}, client=evening.organiser)

    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["rule"], body["round"], body["move"]) == (
        "end_required",
        "R11",
        2,
        21,
    )
    assert sorted(body["choices"]) == [0, 5]
    assert evening.state()["version"] == version


def test_a_correction_batch_answers_which_end_for_the_later_play_R11_R37(evening):
    """The same correction with the answer for move 21 in the same batch is accepted."""
    for event in Event.objects.filter(game=evening.game, kind="move"):
        event.payload.pop("side", None)
        event.save(update_fields=["payload"])
    move_20, move_21 = positions_of_round(evening, 2)[20:22]
    body = {
        "reason": "Daeng played 5-6",
        "changes": [
            {"op": "amend", "position": move_20, "event": {"seat": DAENG, "tile": "5-6"}},
            {
                "op": "amend",
                "position": move_21,
                "event": {"seat": EVI, "tile": "0-5", "on": 5},
            },
        ],
    }

    response = evening.organiser.post(evening.url("corrections/"), body, format="json")

    assert response.status_code == 200, response.content
    moves = evening.record(client=evening.organiser)["rounds"][1]["moves"]
    assert moves[21] == {"seat": EVI, "tile": "0-5", "on": 5}
    assert evening.result()["rounds"][1]["finish"] == "ceki"
