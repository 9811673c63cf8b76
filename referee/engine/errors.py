"""Rule violations the referee reports, one exception class per error code.

Every error carries a stable snake_case ``code`` (never changes), the rule id
of RULES.md it enforces (``rule``, e.g. ``"R7"``; ``None`` for a fault of the
file format itself), where it happened (``round``: 1-based, ``None`` for the
record's header; ``move``: 0-based index in that round's moves, ``None`` when
the fault is elsewhere) and an English message built from a translatable
template (``template`` % ``params``). The Django layer translates the template
with gettext; the core itself imports nothing from Django.

A message that carries a number is plural-aware: its template is marked with
``ngettext_noop(singular, plural)`` and the Django layer picks the form for
the number (``ngettext``; Polish has three). Where the game knows its players'
names (a record, a stored game), ``with_names`` lets every seat a message
names read "seat 2 (Besse)" instead of "seat 2".

Codes are listed in RECORD.md ("Errors"); the order in which they are checked
is RULES.md R34.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

SEAT_PARAMS = frozenset({"seat", "turn", "leader"})
"""The parameters of a message that name a seat (when their value is a seat number 0–4)."""


def gettext_noop(message: str) -> str:
    """Mark ``message`` for translation without translating it (like Django's)."""
    return message


class PluralTemplate(str):
    """A message template with a plural form: it is its singular, and ``plural`` and
    ``number`` (the parameter holding the number that chooses the form) ride along."""

    plural: str
    number: str

    def __new__(cls, singular: str, plural: str, number: str = "count") -> PluralTemplate:
        template = super().__new__(cls, singular)
        template.plural = plural
        template.number = number
        return template


def ngettext_noop(singular: str, plural: str, *, number: str = "count") -> PluralTemplate:
    """Mark a plural-aware message for translation (like ``ngettext_noop``); ``number``
    names the parameter whose number chooses the form (English: 1 → singular)."""
    return PluralTemplate(singular, plural, number)


class RefereeError(Exception):
    """A record, event or move that the rules (or the record format) forbid.

    ``malformed`` is true for input that is not well formed at all (HTTP 400)
    and false for well-formed input that the position forbids (HTTP 422/409).
    """

    code: ClassVar[str] = "record_invalid"
    rule: str | None = None
    malformed: ClassVar[bool] = False

    def __init__(
        self,
        template: str,
        *,
        rule: str | None = None,
        round: int | None = None,
        move: int | None = None,
        contradicts: dict[str, int | None] | None = None,
        choices: list[int] | None = None,
        **params: Any,
    ) -> None:
        self.template = template
        self.plural: str | None = getattr(template, "plural", None)
        self.number: str | None = getattr(template, "number", None)
        self.params = params
        self.names: tuple[str, ...] | None = None
        if rule is not None:
            self.rule = rule
        self.round = round
        self.move = move
        self.contradicts = contradicts
        self.choices = choices
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The English message (the template with its parameters filled in)."""
        return self.render(lambda text: text, _english_plural)

    def render(
        self,
        gettext: Callable[[str], str],
        ngettext: Callable[[str, str, int], str],
    ) -> str:
        """The message through ``gettext``/``ngettext`` (a plural-aware template chooses
        its form by ``params[number]``), seats named as ``with_names`` gave them."""
        if self.plural is not None and self.number is not None:
            text = ngettext(self.template, self.plural, int(self.params[self.number]))
        else:
            text = gettext(self.template)
        return text % self.display_params() if self.params else text

    def display_params(self) -> dict[str, Any]:
        """``params`` with each seat number followed by its player's name, if known:
        ``{"seat": 2}`` → ``{"seat": "2 (Besse)"}``."""
        if not self.names:
            return dict(self.params)
        shown = dict(self.params)
        for key in SEAT_PARAMS & shown.keys():
            seat = shown[key]
            if type(seat) is int and 0 <= seat < len(self.names):
                shown[key] = f"{seat} ({self.names[seat]})"
        return shown

    def with_names(self, names: Sequence[str]) -> RefereeError:
        """Return this error naming its seats' players (``names``: seat 0 to 4)."""
        if self.names is None:
            self.names = tuple(names)
            self.args = (self.message,)
        return self

    def at(self, *, round: int | None, move: int | None = None) -> RefereeError:
        """Return this error located at ``round``/``move`` (fills only what is unset)."""
        if self.round is None:
            self.round = round
        if self.move is None:
            self.move = move
        return self

    def to_dict(self, detail: str | None = None) -> dict[str, Any]:
        """The error object of RECORD.md: code, rule, round, move, detail[, contradicts]
        [, choices: the open-end values an ``end_required`` play may go on, R11]."""
        data: dict[str, Any] = {
            "code": self.code,
            "rule": self.rule,
            "round": self.round,
            "move": self.move,
            "detail": self.message if detail is None else detail,
        }
        if self.contradicts is not None:
            data["contradicts"] = dict(self.contradicts)
        if self.choices is not None:
            data["choices"] = list(self.choices)
        return data


def _english_plural(singular: str, plural: str, number: int) -> str:
    return singular if number == 1 else plural


class RecordInvalid(RefereeError):
    """The record (or an event) is not of the documented shape."""

    code = "record_invalid"
    malformed = True


class TileInvalid(RefereeError):
    """R1: a tile that is not written ``a-b``, ``a|b`` or ``[a|b]`` with 0 ≤ a, b ≤ 6."""

    code = "tile_invalid"
    rule = "R1"
    malformed = True


class NotYourTurn(RefereeError):
    """R8: a seat moved out of clockwise turn."""

    code = "not_your_turn"
    rule = "R8"


class WrongLeader(RefereeError):
    """R6: a later round was led by a seat other than the CAMAT / previous winner."""

    code = "wrong_leader"
    rule = "R6"


class TileAlreadyPlayed(RefereeError):
    """R1, R30: the tile was already played in this round."""

    code = "tile_already_played"
    rule = "R1"


class TileDoesNotMatch(RefereeError):
    """R7: the tile carries neither open end's value."""

    code = "tile_does_not_match"
    rule = "R7"


class EndRequired(RefereeError):
    """R11: the tile fits two open ends of different values and ``on`` is missing."""

    code = "end_required"
    rule = "R11"


class EndMismatch(RefereeError):
    """R11: ``on`` names no open end, or an end the tile does not carry."""

    code = "end_mismatch"
    rule = "R11"


class OpeningTileInvalid(RefereeError):
    """R5, R30, R40: a lead that the first-lead rule forbids, or a pass as a lead."""

    code = "opening_tile_invalid"
    rule = "R5"


class TileNotInHand(RefereeError):
    """R31: a tile outside the seat's declared hand, or declared by another seat."""

    code = "tile_not_in_hand"
    rule = "R31"


class PassWithPlayableTile(RefereeError):
    """R31: a seat with a declared hand passed while holding a playable tile."""

    code = "pass_with_playable_tile"
    rule = "R31"


class SleepingTilePlayed(RefereeError):
    """R32: a tile that the game's first lead asserted sleeping was played or revealed."""

    code = "sleeping_tile_played"
    rule = "R32"


class ContradictsPass(RefereeError):
    """R32: a seat played or revealed a tile carrying a value it passed on earlier."""

    code = "contradicts_pass"
    rule = "R32"


class RoundOver(RefereeError):
    """R30: an event after the round ended (other than the next round's lead)."""

    code = "round_over"
    rule = "R30"


class RevealInvalid(RefereeError):
    """R33: a reveal or pip sum that cannot be right, or a reveal outside a blocked round."""

    code = "reveal_invalid"
    rule = "R33"


class RevealMissing(RefereeError):
    """R18: a blocked round was followed by another before the table counted its pips."""

    code = "reveal_missing"
    rule = "R18"


class RulingInvalid(RefereeError):
    """R35, R36: an organiser's ruling that cannot stand (a void without its reason, an
    adjustment a giver cannot pay, on a round still in play, from a seat to itself)."""

    code = "ruling_invalid"
    rule = "R36"


ERROR_CLASSES: tuple[type[RefereeError], ...] = (
    RecordInvalid,
    TileInvalid,
    NotYourTurn,
    WrongLeader,
    TileAlreadyPlayed,
    TileDoesNotMatch,
    EndRequired,
    EndMismatch,
    OpeningTileInvalid,
    TileNotInHand,
    PassWithPlayableTile,
    SleepingTilePlayed,
    ContradictsPass,
    RoundOver,
    RevealInvalid,
    RevealMissing,
    RulingInvalid,
)
"""Every error class, in the order of RECORD.md's list of codes."""

ERROR_CODES: tuple[str, ...] = tuple(cls.code for cls in ERROR_CLASSES)
