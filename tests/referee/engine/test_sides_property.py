"""Property (R11, R37): correcting an earlier play's tile to another tile that keeps every
later play where it lies never moves a later tile to the other side of the chain, and the
export's ``on`` values are the ends the plays were folded on."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from referee import folding
from referee.engine import RefereeError, RuleSet
from referee.engine.moves import Play
from referee.engine.records import Record, export_record, replay, replay_record, result_of
from referee.engine.simulation import random_record
from referee.engine.tiles import ALL_TILES, Tile

RULES = RuleSet()
PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]


def stored_entries(record: dict[str, Any]) -> list[folding.Entry]:
    """The record's events as stored when accepted: each play with its side (R11)."""
    entries = folding.record_entries(record["rounds"])
    engine, _ = folding.fold(RULES, [(e.kind, e.payload) for e in entries])
    return folding.with_sides(engine, entries)


def judged(entries: list[folding.Entry]):
    record = folding.entries_record(PLAYERS, RULES, entries)
    return replay(Record.parse(record), stored=True)


def fits_where_it_lies(round_moves: list[dict[str, Any]], corrected: int, tile: Tile) -> bool:
    """An independent walk of the corrected round: the new tile fits one end (or equal
    ends) without ``on``, and each later play carries the end its stored side shows, with
    any ``on`` it gives naming that end or no open end at all."""
    lead = Tile.parse(round_moves[0]["tile"])
    ends = {"left": lead.low, "right": lead.high}
    for index, move in enumerate(round_moves[1:], start=1):
        if "pass" in move:
            continue
        if index == corrected:
            fits = [side for side in ("left", "right") if tile.carries(ends[side])]
            if not fits or (len(fits) == 2 and ends["left"] != ends["right"]):
                return False
            side = "right" if "right" in fits else "left"
            ends[side] = tile.other(ends[side])
            continue
        played = Tile.parse(move["tile"])
        side = move["side"]
        if not played.carries(ends[side]):
            return False
        on = move.get("on")
        other = ends["right" if side == "left" else "left"]
        if on is not None and on != ends[side] and on == other and played.carries(other):
            return False
        ends[side] = played.other(ends[side])
    return True


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 10**6), other=st.integers(0, 27))
def test_a_correction_that_keeps_later_plays_in_place_keeps_their_sides_R11_R37(seed, pick, other):
    record = random_record(random.Random(seed), rounds=2)
    entries = stored_entries(record)
    plays = [
        i
        for i, e in enumerate(entries)
        if e.kind == "move" and "side" in e.payload  # a play after its round's lead
    ]
    at = plays[pick % len(plays)]
    target = entries[at]
    round_entries = [
        i for i, e in enumerate(entries) if e.kind == "move" and e.round == target.round
    ]
    round_moves = [entries[i].payload for i in round_entries]
    corrected_index = round_entries.index(at)
    played = {Tile.parse(m["tile"]) for m in round_moves if "tile" in m}
    candidates = [
        tile
        for tile in ALL_TILES
        if tile not in played and fits_where_it_lies(round_moves, corrected_index, tile)
    ]
    if not candidates:
        event("no other tile keeps the later plays where they lie")
        return
    tile = candidates[other % len(candidates)]
    changed = list(entries)
    changed[at] = folding.Entry(
        "move", {"seat": target.payload["seat"], "tile": str(tile)}, target.round
    )
    refused: str | None = None
    try:
        engine = judged(changed)
    except RefereeError as error:  # a pass or a reveal contradicted (R32, R33), the turn, …
        refused = error.code
    # ... never where a tile goes: each lies where it lay (R7, R11).
    assert refused not in {"end_required", "end_mismatch", "tile_does_not_match"}
    if refused is not None:
        event(f"refused: {refused}")
        return
    event("accepted")
    rnd = engine.rounds[target.round - 1].round
    if any(
        placed is not None and placed[2] != placed[1] and rnd.moves[i].tile.carries(placed[2])  # type: ignore[union-attr]
        for i, placed in enumerate(rnd.placements())
        if i > corrected_index
    ):
        event("accepted: a later play now fits two open ends, its side decides (R11)")

    after = folding.with_sides(engine, changed)
    for before_entry, after_entry in zip(entries, after, strict=True):
        if after_entry is not changed[at] and before_entry.kind == "move":
            if before_entry.round == target.round and "side" in before_entry.payload:
                if after_entry is not after[at]:
                    assert after_entry.payload.get("side") == before_entry.payload["side"]

    exported = export_record(engine, PLAYERS)
    for game_round, data in zip(engine.rounds, exported["rounds"], strict=True):
        rnd = game_round.round
        for move, play, placed in zip(data["moves"], rnd.moves, rnd.placements(), strict=True):
            if placed is None or not isinstance(play, Play):
                continue
            _, on, other_end = placed
            if "on" in move:
                assert move["on"] == on  # the end it was folded on (R11)
            else:
                assert other_end == on or not play.tile.carries(other_end)
    assert replay_record(exported) == result_of(engine)  # the export replays the same
