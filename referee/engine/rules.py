"""Rule sets (R40): the house numbers a game is created with and never changes."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from referee.engine.errors import RecordInvalid, RefereeError, gettext_noop
from referee.engine.tiles import Tile

_WHOLE_NUMBER_KEYS = (
    "starting_stones",
    "pass_stones",
    "passebunge_stones",
    "cucuq_stones",
    "ceki_stones",
    "pollo_stones",
    "manguno_stones",
    "manguno_reduced_stones",
)

MAX_SLEEPING = 3
"""Tiles that sleep in a round: 28 − 5 × 5 (R4)."""

MAX_STONES = 10_000
"""The largest number a rule set may give (R40 says whole numbers ≥ 0; a house
rule beyond this is a typing mistake, and stored stones stay far from any
database integer's limit)."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A game's rule set (R40). Stones are whole numbers ≥ 0.

    ``starting_stones``: stones on the table at the start (R22);
    ``pass_stones`` / ``passebunge_stones``: a PASS / PASSEBUNGE (R23a);
    ``cucuq_stones``, ``ceki_stones``, ``pollo_stones``: the CUCUQ's award
    after a plain finish, CEKI or POLLO (R23b; the plain number also serves
    R23c); ``manguno_stones`` / ``manguno_reduced_stones``: the MANGUNO's
    penalty with MATTIKKENG (R23d); ``first_lead_doubles``: the doubles that
    may lead a game, in order (R5); ``closing_pass_counts``: whether the
    MANGUNO's closing pass receives stones (R23a).
    """

    starting_stones: int = 25
    pass_stones: int = 1
    passebunge_stones: int = 2
    cucuq_stones: int = 1
    ceki_stones: int = 3
    pollo_stones: int = 5
    manguno_stones: int = 5
    manguno_reduced_stones: int = 1
    first_lead_doubles: tuple[Tile, ...] = (
        Tile(6, 6),
        Tile(5, 5),
        Tile(4, 4),
        Tile(3, 3),
    )
    closing_pass_counts: bool = True

    @classmethod
    def from_dict(cls, data: object) -> RuleSet:
        """Build a rule set from a record's ``rules`` (``None`` = the defaults).

        Raises ``RecordInvalid`` (``record_invalid``, R40) for an unknown key or
        a value of the wrong kind.
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise _invalid(gettext_noop("rules must be an object or null"))
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise _invalid(gettext_noop("unknown rule key %(key)s"), key=unknown[0])
        values: dict[str, Any] = {}
        for key in _WHOLE_NUMBER_KEYS:
            if key in data:
                value = data[key]
                if type(value) is not int or value < 0:
                    raise _invalid(
                        gettext_noop("rule %(key)s must be a whole number >= 0"), key=key
                    )
                if value > MAX_STONES:
                    raise _invalid(
                        gettext_noop("rule %(key)s must be at most %(limit)s"),
                        key=key,
                        limit=MAX_STONES,
                    )
                values[key] = value
        if "closing_pass_counts" in data:
            if type(data["closing_pass_counts"]) is not bool:
                raise _invalid(gettext_noop("rule closing_pass_counts must be true or false"))
            values["closing_pass_counts"] = data["closing_pass_counts"]
        if "first_lead_doubles" in data:
            values["first_lead_doubles"] = _parse_first_lead_doubles(data["first_lead_doubles"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The rule set as a record's ``rules`` object (every key, tiles as ``a-b``)."""
        data: dict[str, Any] = {key: getattr(self, key) for key in _WHOLE_NUMBER_KEYS}
        data["first_lead_doubles"] = [str(t) for t in self.first_lead_doubles]
        data["closing_pass_counts"] = self.closing_pass_counts
        return data


def _parse_first_lead_doubles(raw: object) -> tuple[Tile, ...]:
    if not isinstance(raw, list) or not raw:
        raise _invalid(gettext_noop("rule first_lead_doubles must be a non-empty list of doubles"))
    doubles: list[Tile] = []
    for item in raw:
        try:
            tile = Tile.parse(item)
        except RefereeError:
            raise _invalid(
                gettext_noop("rule first_lead_doubles holds %(tile)s, which is not a tile"),
                tile=str(item),
            ) from None
        if not tile.is_double() or tile in doubles:
            raise _invalid(
                gettext_noop("rule first_lead_doubles must list distinct doubles (%(tile)s)"),
                tile=str(tile),
            )
        doubles.append(tile)
    return tuple(doubles)


def _invalid(template: str, **params: Any) -> RecordInvalid:
    return RecordInvalid(template, rule="R40", **params)


DEFAULT_RULES = RuleSet()
"""The rule set of RULES.md (R40 defaults)."""
