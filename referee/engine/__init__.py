"""The Domeng rules core: pure Python, no Django (RULES.md R1–R40).

Seats are 0–4 clockwise, tiles ``a-b`` (``Tile``), stones whole numbers.
"""

from referee.engine.errors import ERROR_CODES, RefereeError
from referee.engine.game import Game, Standing
from referee.engine.moves import Move, Pass, Play
from referee.engine.outcome import Ending, Finish, RoundOutcome
from referee.engine.records import (
    RECORD_FORMAT,
    RESULT_FORMAT,
    Record,
    export_record,
    replay,
    replay_record,
    result_of,
)
from referee.engine.round import Round
from referee.engine.rules import DEFAULT_RULES, RuleSet
from referee.engine.tiles import ALL_TILES, Tile

__all__ = [
    "ALL_TILES",
    "DEFAULT_RULES",
    "ERROR_CODES",
    "RECORD_FORMAT",
    "RESULT_FORMAT",
    "Ending",
    "Finish",
    "Game",
    "Move",
    "Pass",
    "Play",
    "Record",
    "RefereeError",
    "Round",
    "RoundOutcome",
    "RuleSet",
    "Standing",
    "Tile",
    "export_record",
    "replay",
    "replay_record",
    "result_of",
]
