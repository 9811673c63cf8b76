"""OpenAPI documentation of the API's bodies: the record, the result, the table's state,
the audit trail and the problem envelope, as reusable components.

The shapes are those of RECORD.md and of ``referee.selectors.game_state``, written as JSON
Schema (OpenAPI 3.0 dialect) because the rules engine, not a serializer, validates a record
and builds a state: a DRF serializer here would be a second, diverging validator. Each
shape is one named component (``COMPONENTS``) that the others reference with ``ref``; the
postprocessing hook ``add_components`` publishes them all, so any operation (or a new one)
can point at ``ref("GameState")`` or return one of the ``…Document`` serializers below.
Those serializers carry no fields and validate nothing; they only name a component through
``JsonSchemaExtension``.

``AutoSchema`` (``DEFAULT_SCHEMA_CLASS``) adds what every operation shares: the problems
any request can meet (401/403 with credentials, 404 with a path, 406, 413/415 with a body,
429, 503 with ``Retry-After``), the one kind of credential the view accepts, and
``additionalProperties: false`` on the bodies that refuse unknown fields
(``StrictSerializer``).
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from django.core.exceptions import ImproperlyConfigured
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema_field,
)
from rest_framework import serializers

from referee.api.problems import PROBLEM_CONTENT_TYPE
from referee.conditional import CONDITIONAL_HEADER_PATTERN
from referee.engine.strategies import STRATEGIES

Schema = dict[str, Any]

COMPONENT_PREFIX = "#/components/schemas/"


def ref(name: str, **siblings: Any) -> Schema:
    """A reference to the component ``name``; ``nullable=True`` (OpenAPI 3.0) wraps it in
    ``allOf`` so that the flag is not a sibling of ``$ref`` (which 3.0 ignores)."""
    if siblings:
        return {"allOf": [{"$ref": COMPONENT_PREFIX + name}], **siblings}
    return {"$ref": COMPONENT_PREFIX + name}


@extend_schema_field(ref("GameStatus"))
class GameStatusField(serializers.CharField):
    """A game's status, ``open`` or ``closed`` (the ``GameStatus`` component)."""


# -- values ----------------------------------------------------------------------------------

SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": 4}
NULLABLE_SEAT: Schema = {**SEAT, "nullable": True}
STONES: Schema = {"type": "integer", "minimum": 0}
PIPS: Schema = {"type": "integer", "minimum": 0, "maximum": 6}
PIP_SUM: Schema = {"type": "integer", "minimum": 0, "maximum": 60}
ROUND_NUMBER: Schema = {"type": "integer", "minimum": 1}
POSITION: Schema = {"type": "integer", "minimum": 0}
DATE_TIME: Schema = {"type": "string", "format": "date-time"}
TILE_SCHEMA: Schema = {
    "type": "string",
    "pattern": r"^([0-6]-[0-6]|[0-6]\|[0-6]|\[[0-6]\|[0-6]\])$",
    "description": "A tile written `a-b`, `a|b` or `[a|b]`, halves in either order (R1).",
    "example": "6-4",
}
TILE: Schema = ref("Tile")
TILES: Schema = {"type": "array", "items": TILE}
SEAT_KEYS = 'Keys are seats written as strings, `"0"` to `"4"`.'
SEAT_KEY: Schema = {"type": "string", "pattern": "^[0-4]$"}
"""A map's key that is a seat (``propertyNames``): JSON object keys are strings."""
NAMED_OUTCOMES = [
    "PASS",
    "PASSEBUNGE",
    "MAPPAKULING",
    "FIRST CAPPU",
    "CEKI",
    "POLLO",
    "MANGUNO",
    "MATTIKKENG",
    "CUCUQ",
    "CAMAT",
]
NAMED: Schema = {
    "type": "array",
    "items": ref("NamedOutcome"),
    "description": "The table's words for what happened, in order.",
}
TRANSFERS: Schema = {
    "type": "array",
    "items": ref("Transfer"),
    "description": "Every movement of stones, in order (R23).",
}
REMAINING_PIPS: Schema = {
    "type": "array",
    "nullable": True,
    "items": PIP_SUM,
    "minItems": 5,
    "maxItems": 5,
    "description": "Blocked round (R18): each seat's remaining pip sum; else `null`.",
}

# -- a record (RECORD.md) --------------------------------------------------------------------

PLAY: Schema = {
    "type": "object",
    "description": "A play: the seat lays a tile on the chain (R6–R8, R11).",
    "required": ["seat", "tile"],
    "additionalProperties": False,
    "properties": {
        "seat": SEAT,
        "tile": TILE,
        "on": {
            **PIPS,
            "description": "The value of the open end the tile goes on; needed only when "
            "the tile fits two open ends of different values (R11).",
        },
    },
}
PASS: Schema = {
    "type": "object",
    "description": "A pass: the seat holds no tile that fits (R9, R10).",
    "required": ["seat", "pass"],
    "additionalProperties": False,
    "properties": {"seat": SEAT, "pass": {"type": "boolean", "description": "Always `true`."}},
}
RULE_SET: Schema = {
    "type": "object",
    "description": "Overrides of the default rule set (R40), fixed for the game's life; "
    "unknown keys are an error (`record_invalid`).",
    "additionalProperties": False,
    "properties": {
        "starting_stones": STONES,
        "pass_stones": STONES,
        "passebunge_stones": STONES,
        "cucuq_stones": STONES,
        "ceki_stones": STONES,
        "pollo_stones": STONES,
        "manguno_stones": STONES,
        "manguno_reduced_stones": STONES,
        "first_lead_doubles": {"type": "array", "items": TILE, "minItems": 1},
        "closing_pass_counts": {"type": "boolean"},
    },
}
RECORD_ROUND: Schema = {
    "type": "object",
    "description": "One round of a record: its events in order, and what the table "
    "declared or revealed.",
    "required": ["moves"],
    "additionalProperties": False,
    "properties": {
        # ``anyOf``: a play (``tile``, no ``pass``) and a pass (``pass``, no ``tile``) are
        # disjoint, so it says what ``oneOf`` would; an array of ``oneOf`` two ``$ref``s is
        # one whose invalid values schemathesis cannot generate (issue 31).
        "moves": {"type": "array", "items": {"anyOf": [ref("Play"), ref("Pass")]}},
        "hands": {
            "type": "object",
            "nullable": True,
            "description": "Declared hands (R31): seat → its five tiles. " + SEAT_KEYS,
            "propertyNames": SEAT_KEY,
            "additionalProperties": {"type": "array", "items": TILE, "minItems": 5, "maxItems": 5},
        },
        "reveal": {
            "type": "object",
            "nullable": True,
            "description": "Blocked round only (R18): seat → the tiles it still holds. "
            + SEAT_KEYS,
            "propertyNames": SEAT_KEY,
            "additionalProperties": TILES,
        },
        "pips": {
            "type": "object",
            "nullable": True,
            "description": "Blocked round only (R18): seat → its remaining pip sum, for "
            "seats not in `reveal`. " + SEAT_KEYS,
            "propertyNames": SEAT_KEY,
            "additionalProperties": PIP_SUM,
        },
        "void": {
            "type": "object",
            "nullable": True,
            "description": "The organiser voided the round (R35): its events are only "
            "checked for form, it moves no stone.",
            "required": ["reason"],
            "additionalProperties": False,
            "properties": {"reason": {"type": "string", "minLength": 1}},
        },
        "adjustments": {
            "type": "array",
            "nullable": True,
            "description": "Stones moved by the organiser after the round (R36).",
            "items": ref("RecordAdjustment"),
        },
        "substitutes": {
            "type": "object",
            "nullable": True,
            "description": "From this round on, seat → who sits it (R38). " + SEAT_KEYS,
            "propertyNames": SEAT_KEY,
            "additionalProperties": {"type": "string", "minLength": 1},
        },
    },
}

ADJUSTMENT: Schema = {
    "type": "object",
    "description": "Stones moved by the organiser after a round's awards (R36): nobody gives "
    "more than they hold; never elects a CAMAT.",
    "required": ["from", "to", "stones", "reason"],
    "additionalProperties": False,
    "properties": {
        "from": ref("TransferSource"),
        "to": ref("TransferSource"),
        "stones": {"type": "integer", "minimum": 1},
        "reason": {"type": "string", "minLength": 1},
    },
}


RECORD: Schema = {
    "type": "object",
    "description": "A game record (`domeng-record/1`): the seats and every event, in order.",
    "required": ["format", "players", "rounds"],
    "additionalProperties": False,
    "properties": {
        "format": {"type": "string", "enum": ["domeng-record/1"]},
        "players": {
            "type": "array",
            "description": "Seat 0 to seat 4, clockwise (R3).",
            "items": {"type": "string", "minLength": 1},
            "minItems": 5,
            "maxItems": 5,
        },
        "rules": ref("RuleSet", nullable=True),
        "rounds": {
            "type": "array",
            "description": "Only the last round may be unfinished.",
            "items": ref("RecordRound"),
        },
    },
}

# -- a result (RECORD.md) --------------------------------------------------------------------

TRANSFER: Schema = {
    "type": "object",
    "description": "Stones moving from the table or a seat to a seat (R23).",
    "required": ["move", "from", "to", "stones", "reason"],
    "properties": {
        "move": {
            **POSITION,
            "nullable": True,
            "description": "The pass's index in the round's `moves`; `null` for the "
            "end-of-round award and an adjustment (R36).",
        },
        "from": ref("TransferSource"),
        "to": ref("TransferSource", description="A seat; `table` only for an adjustment (R36)."),
        "stones": {"type": "integer", "minimum": 1},
        "reason": ref("TransferReason"),
    },
}
STANDING_AFTER: Schema = {
    "type": "object",
    "description": "The state once the round (and any CAMAT reset, R25) is complete; for "
    "an unfinished round, the state now.",
    "required": ["table", "stones", "camat", "next_leader"],
    "properties": {
        "table": STONES,
        "stones": {"type": "array", "items": STONES, "minItems": 5, "maxItems": 5},
        "camat": NULLABLE_SEAT,
        "next_leader": NULLABLE_SEAT,
    },
}
RESULT_ROUND: Schema = {
    "type": "object",
    "description": "What the rules conclude from one round.",
    "required": [
        "number",
        "leader",
        "ending",
        "finish",
        "first_cappu",
        "manguno",
        "mattikkeng",
        "cucuq",
        "winner",
        "remaining_pips",
        "transfers",
        "camat_elected",
        "after",
        "void",
    ],
    "properties": {
        "number": ROUND_NUMBER,
        "void": {
            "type": "boolean",
            "description": "Voided by the organiser (R35): it names nothing and moves no stone "
            "but its adjustments.",
        },
        "leader": NULLABLE_SEAT,
        "ending": ref(
            "RoundEnding", nullable=True, description="`null` while the round is still in play."
        ),
        "finish": ref(
            "CappuFinish",
            nullable=True,
            description="How a FIRST CAPPU finished (R14–R16); else `null`.",
        ),
        "first_cappu": NULLABLE_SEAT,
        "manguno": NULLABLE_SEAT,
        "mattikkeng": {"type": "array", "items": SEAT},
        "cucuq": NULLABLE_SEAT,
        "winner": NULLABLE_SEAT,
        "remaining_pips": REMAINING_PIPS,
        "transfers": TRANSFERS,
        "camat_elected": NULLABLE_SEAT,
        "after": ref("StandingAfter"),
        "verification": ref(
            "RoundVerification",
            description="A stored game's result only (`GET /games/{id}/result/`): the round's "
            "verification at the table.",
        ),
    },
}
RESULT: Schema = {
    "type": "object",
    "description": "What the rules conclude from a record (`domeng-result/1`).",
    "required": ["format", "rounds"],
    "properties": {
        "format": {"type": "string", "enum": ["domeng-result/1"]},
        "rounds": {"type": "array", "items": ref("ResultRound")},
    },
}

# -- the problem envelope --------------------------------------------------------------------

PROBLEM: Schema = {
    "type": "object",
    "description": "Every error of the API: RFC 9457 problem details "
    "(`application/problem+json`) with a stable machine-readable `code`. A rule "
    "violation adds `rule`, `round` and `move` (and `contradicts` for R32, `choices` for "
    "`end_required`, R11); a "
    "request that fails field validation adds `errors`; a stale write (409 "
    "`version_mismatch`, 412 `precondition_failed`) adds the current `state`, from "
    "which the client catches up.",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {
            "type": "string",
            "format": "uri",
            "description": "Identifies the problem type: `urn:domeng:problem:` + `code`.",
        },
        "title": {"type": "string", "description": "Short summary of the problem type."},
        "status": {
            "type": "integer",
            "minimum": 400,
            "maximum": 599,
            "description": "The HTTP status code.",
        },
        "detail": {"type": "string", "description": "What went wrong, in the request's language."},
        "code": {
            "type": "string",
            "description": "Stable snake_case code; never changes (RECORD.md lists the "
            "referee's codes; `parse_error`, `invalid`, `not_found`, `method_not_allowed`, "
            "`unsupported_media_type`, `not_acceptable`, `throttled`, "
            "`request_too_large`, `database_busy`, … come from HTTP).",
        },
        "rule": {
            "type": "string",
            "nullable": True,
            "description": "Rule id of RULES.md, e.g. `R7`; `null` for a fault of the format.",
        },
        "round": {
            **ROUND_NUMBER,
            "nullable": True,
            "description": "1-based round; `null` for the record's header.",
        },
        "move": {
            **POSITION,
            "nullable": True,
            "description": "0-based index in that round's `moves`; `null` when elsewhere.",
        },
        "contradicts": ref("Contradiction"),
        "choices": {
            "type": "array",
            "items": PIPS,
            "minItems": 2,
            "maxItems": 2,
            "description": "`end_required` (R11): the values of the two open ends the play at "
            "`round`/`move` fits; a correction may answer with that event's `on` in the same "
            "batch.",
        },
        "parameter": {
            "type": "string",
            "description": "The query parameter refused (`invalid_query`): not one the "
            "operation takes, or a value its schema does not allow.",
        },
        "errors": {
            "type": "array",
            "description": "Field errors.",
            "items": ref("FieldError"),
        },
        "state": ref("GameState"),
        "player": {
            "type": "integer",
            "description": "The club's player refused (`player_not_in_club`, `player_merged`).",
        },
        "merged_into": {
            "type": "integer",
            "description": "`player_merged`: the player to name instead.",
        },
        "game": {
            "type": "string",
            "format": "uuid",
            "description": "`player_seated_elsewhere` (R38): the open game the player sits in.",
        },
        "club": {
            "type": "string",
            "description": "`last_organiser`: the club that would be left without one.",
        },
    },
}
CONTRADICTION: Schema = {
    "type": "object",
    "description": "The earlier event this one contradicts (R32).",
    "required": ["round"],
    "properties": {
        "round": ROUND_NUMBER,
        "move": {**POSITION, "nullable": True},
    },
}
FIELD_ERROR: Schema = {
    "type": "object",
    "description": "One refused field of a request.",
    "required": ["field", "code", "detail"],
    "properties": {
        "field": {
            "type": "string",
            "nullable": True,
            "description": "Dotted path of the field; `null` for the whole body.",
        },
        "code": {"type": "string", "description": "Stable code, e.g. `required`, `invalid`."},
        "detail": {"type": "string"},
    },
}

# -- stored games: what ``referee.selectors.game_state`` and the services answer ----------

# The event's own fields, in record form (RECORD.md): a play, a pass, a hand, a reveal.
EVENT_FIELDS: Schema = {
    "seat": SEAT,
    "tile": TILE,
    "on": {**PIPS, "nullable": True},
    "pass": {"type": "boolean"},
    "tiles": {**TILES, "nullable": True},
    "pips": PIP_SUM,
    # The organiser's rulings (R35, R36, R38) name their round and give their reason.
    "round": ROUND_NUMBER,
    "reason": {"type": "string"},
    "from": ref("TransferSource"),
    "to": ref("TransferSource"),
    "stones": {"type": "integer", "minimum": 1},
    "name": {"type": "string"},
    "player": {
        "type": "integer",
        "nullable": True,
        "description": "A substitute's club player id (R38); `null` for a guest.",
    },
    "side": {
        "type": "string",
        "enum": ["left", "right"],
        "readOnly": True,
        "description": "A stored play's side of the chain, as the referee placed it: the arm "
        "grown from the lead's lower half (`left`) or its higher (`right`). Kept so that a "
        "correction of an earlier tile leaves the tile where it lies (R11); never sent.",
    },
}
EVENT_KIND: Schema = ref("EventKind")
EVENT_PAYLOAD: Schema = {
    "type": "object",
    "description": "An event's fields in record form: a play `{seat, tile, on?}`, a pass "
    "`{seat, pass}`, a declared hand `{seat, tiles}` (`tiles` is `null` for every reader "
    "but the declaring seat, R31), a reveal `{seat, tiles}` or `{seat, pips}` (R18); a "
    "ruling: a void `{round, reason}` (R35), an adjustment `{round, from, to, stones, "
    "reason}` (R36), a substitute `{round, seat, name}` (R38).",
    "properties": EVENT_FIELDS,
}

OUTCOME: Schema = {
    "type": "object",
    "description": "How a round ended (R14–R21) and the stones it moved. While a blocked "
    "round waits for reveals, `winner`, `remaining_pips` and `cucuq` are `null`. A voided "
    "round (R35) has `ending` `null` and its `void`.",
    "required": [
        "number",
        "ending",
        "finish",
        "named",
        "first_cappu",
        "manguno",
        "mattikkeng",
        "cucuq",
        "winner",
        "remaining_pips",
        "transfers",
        "camat_elected",
    ],
    "properties": {
        "number": ROUND_NUMBER,
        "ending": ref("RoundEnding", nullable=True, description="`null` for a round voided (R35)."),
        "finish": ref("CappuFinish", nullable=True),
        "named": NAMED,
        "first_cappu": NULLABLE_SEAT,
        "manguno": NULLABLE_SEAT,
        "mattikkeng": {"type": "array", "items": SEAT},
        "cucuq": NULLABLE_SEAT,
        "winner": NULLABLE_SEAT,
        "remaining_pips": REMAINING_PIPS,
        "transfers": TRANSFERS,
        "camat_elected": NULLABLE_SEAT,
        "chain": {
            "type": "array",
            "items": {"type": "string", "example": "6-6"},
            "description": "The round's chain as it ended, left end first (a round voided "
            "by the organiser, R35: as it stood when voided).",
        },
        "void": {
            "type": "object",
            "description": "Only on a round the organiser voided (R35): why.",
            "required": ["reason"],
            "additionalProperties": False,
            "properties": {"reason": {"type": "string", "minLength": 1}},
        },
        "verification": ref(
            "RoundVerification",
            description="As `previous`: the settled round's verification at the table.",
        ),
    },
}
ROUND_VERIFICATION: Schema = {
    "type": "object",
    "description": "A settled round's verification at the table (issue 11): a phone of another "
    "seat than the one that entered its last event confirms it or disputes it with a reason; "
    "the organiser resolves a dispute by correcting the round (R37), voiding it (R35) or "
    "marking it confirmed. A later change of the round's events resets a confirmation "
    "(`unverified`) and, made by the organiser, resolves a dispute. Verified = `confirmed` or "
    "`resolved`.",
    "required": ["status", "seat", "reason", "resolution", "note", "updated_at"],
    "properties": {
        "status": {"type": "string", "enum": ["unverified", "confirmed", "disputed", "resolved"]},
        "seat": {
            **NULLABLE_SEAT,
            "description": "The seat whose phone confirmed or disputed it.",
        },
        "reason": {
            "type": "string",
            "nullable": True,
            "maxLength": 200,
            "description": "Why it was disputed (kept once resolved).",
        },
        "resolution": {
            "type": "string",
            "nullable": True,
            "enum": ["confirmed", "corrected", "voided", None],
            "description": "How the organiser resolved it.",
        },
        "note": {"type": "string", "nullable": True, "maxLength": 200},
        "updated_at": {**DATE_TIME, "nullable": True},
    },
    "example": {
        "status": "disputed",
        "seat": 2,
        "reason": "Daeng's 3-4 was entered as 3-5",
        "resolution": None,
        "note": None,
        "updated_at": "2026-11-30T19:42:05+00:00",
    },
}
VERIFICATION_RESULT: Schema = {
    "type": "object",
    "description": "The round's verification after the request, and the new state.",
    "required": ["round", "verification", "state"],
    "properties": {
        "round": ROUND_NUMBER,
        "verification": ref("RoundVerification"),
        "state": ref("GameState"),
    },
}
ROUND_STATE: Schema = {
    "type": "object",
    "description": "The round in play, or the next one while waiting for its lead.",
    "required": [
        "number",
        "status",
        "leader",
        "chain",
        "ends",
        "playable",
        "awaiting_reveal",
        "previous",
        "verification",
    ],
    "properties": {
        "number": ROUND_NUMBER,
        "status": ref("RoundStatus"),
        "leader": NULLABLE_SEAT,
        "chain": {**TILES, "description": "Left to right, each tile as laid."},
        "ends": {
            "type": "array",
            "nullable": True,
            "items": PIPS,
            "minItems": 2,
            "maxItems": 2,
            "description": "The chain's two open ends; `null` before the lead.",
        },
        "playable": {
            "type": "object",
            "description": 'Open end\'s value (`"0"` to `"6"`) → the tiles that can still '
            "go on it.",
            "propertyNames": {"type": "string", "pattern": "^[0-6]$"},
            "additionalProperties": TILES,
        },
        "awaiting_reveal": {"type": "array", "items": SEAT},
        "previous": ref(
            "Outcome", nullable=True, description="Before a round's lead: how the last one ended."
        ),
        "outcome": ref("Outcome", nullable=True, description="How this round ended, once it has."),
        "verification": ref(
            "RoundVerification",
            nullable=True,
            description="`null`: this round is not settled (the settled one is `previous`).",
        ),
    },
}
SEAT_STATE: Schema = {
    "type": "object",
    "description": "One seat as the table sees it.",
    "required": [
        "seat",
        "name",
        "stones",
        "is_camat",
        "tiles_played",
        "tiles_left",
        "passed_on",
        "has_declared",
        "hand",
    ],
    "properties": {
        "seat": SEAT,
        "name": {"type": "string"},
        "stones": STONES,
        "is_camat": {"type": "boolean"},
        "tiles_played": TILES,
        "tiles_left": {"type": "integer", "minimum": 0, "maximum": 5},
        "passed_on": {
            "type": "array",
            "items": PIPS,
            "description": "End values this seat passed on this round (R9).",
        },
        "has_declared": {"type": "boolean"},
        "hand": {
            **TILES,
            "nullable": True,
            "description": "The declared hand, to its own seat's phone while the round is in "
            "play and to everyone once it is over (R31); else `null`.",
        },
        "computer": ref(
            "Strategy",
            nullable=True,
            description="A computer seat's strategy (R39); `null` for a person.",
        ),
    },
}
TABLE_EVENT: Schema = {
    "type": "object",
    "description": "One of the round's last events with what it caused.",
    "required": ["position", "kind", "round", "seat", "named", "transfers"],
    "properties": {
        "position": POSITION,
        "kind": EVENT_KIND,
        "round": ROUND_NUMBER,
        **EVENT_FIELDS,
        "seat": {
            **NULLABLE_SEAT,
            "description": "`null` for a void or an adjustment (R35, R36).",
        },
        "named": NAMED,
        "transfers": TRANSFERS,
        "entered_by": {"type": "string"},
        "ruling": ref("Ruling"),
    },
}
RULING: Schema = {
    "type": "object",
    "description": "An organiser's ruling as entered, its seat aside: a void `{round, reason}` "
    "(R35), an adjustment `{round, from, to, stones, reason}` (R36), a substitute `{round, "
    "name, player?}` (R38).",
    "required": ["round"],
    "additionalProperties": False,
    "properties": {
        "round": ROUND_NUMBER,
        "reason": {"type": "string"},
        "from": ref("TransferSource"),
        "to": ref("TransferSource"),
        "stones": {"type": "integer", "minimum": 1},
        "name": {"type": "string"},
        "player": {
            "type": "integer",
            "nullable": True,
            "description": "The club's player id of a substitute; `null` for a guest.",
        },
    },
}
GAME_STATE: Schema = {
    "type": "object",
    "description": "What the table sees now. `turn` is the seat that must move, or `null` "
    "before the game's first lead (the holder of the highest first-lead double leads, R5) "
    "and while a blocked round waits for reveals. A seat's `hand` is shown only to that "
    "seat's phone while the round is in play (R31), to everyone once it is over.",
    "required": [
        "id",
        "version",
        "status",
        "session",
        "table",
        "camat",
        "turn",
        "round",
        "seats",
        "last_events",
    ],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "version": {
            "type": "integer",
            "minimum": 0,
            "description": 'Increases with every change; the `ETag` is `"<version>"`.',
        },
        "status": ref("GameStatus"),
        "session": {
            "type": "integer",
            "minimum": 1,
            "nullable": True,
            "description": "The open sitting (R27), if any.",
        },
        "table": {**STONES, "description": "Stones on the table."},
        "camat": NULLABLE_SEAT,
        "turn": NULLABLE_SEAT,
        "round": ref("RoundState"),
        "seats": {"type": "array", "minItems": 5, "maxItems": 5, "items": ref("SeatState")},
        "last_events": {
            "type": "array",
            "description": "The round's last events (at most 12), oldest first.",
            "items": ref("TableEvent"),
        },
    },
}
STORED_EVENT: Schema = {
    "type": "object",
    "description": "A stored event: its fields in record form (a declared hand's `tiles` "
    "left out), where it stands in the game, and who entered it when.",
    "required": ["position", "kind", "round", "entered_by", "created_at"],
    "properties": {
        "position": POSITION,
        "kind": EVENT_KIND,
        "round": ROUND_NUMBER,
        **EVENT_FIELDS,
        "entered_by": {"type": "string"},
        "created_at": {**DATE_TIME, "nullable": True},
        "named": NAMED,
        "transfers": TRANSFERS,
    },
}
EFFECTS: Schema = {
    "type": "object",
    "description": "What an event caused: the named outcomes (PASSEBUNGE, CEKI, "
    "MANGUNO…), the stones it moved, whether it ended or settled the round, the CAMAT "
    "it elected (R24).",
    "required": ["round", "named", "transfers", "round_ended", "settled", "camat_elected"],
    "properties": {
        "round": ROUND_NUMBER,
        "named": NAMED,
        "transfers": TRANSFERS,
        "round_ended": {"type": "boolean"},
        "settled": {"type": "boolean"},
        "camat_elected": NULLABLE_SEAT,
    },
}
EVENT_RESULT: Schema = {
    "type": "object",
    "description": "The stored event, what it caused and the new state.",
    "required": ["event", "effects", "state"],
    "properties": {
        "event": ref("StoredEvent"),
        "effects": ref("Effects"),
        "state": ref("GameState"),
    },
}
CORRECTION: Schema = {
    "type": "object",
    "description": "An undo or an amendment; the events it replaced stay in the audit trail.",
    "required": ["kind", "entered_by", "created_at", "reason", "replaced", "replacement"],
    "properties": {
        "id": {
            "type": "integer",
            "description": "The correction's id in the audit trail (`revoked_by`); not on an "
            "undo's answer.",
        },
        "changes": {
            "type": "array",
            "description": "What it changed, event by event (R37).",
            "items": ref("AppliedChange"),
        },
        "kind": ref("CorrectionKind"),
        "entered_by": {"type": "string"},
        "created_at": DATE_TIME,
        "reason": {"type": "string"},
        "replaced": {"type": "array", "items": ref("StoredEvent")},
        "replacement": ref("StoredEvent", nullable=True),
    },
}
CORRECTION_RESULT: Schema = {
    "type": "object",
    "description": "The correction (the audit trail keeps the events it replaced) and the "
    "new state.",
    "required": ["correction", "state"],
    "properties": {
        "correction": ref(
            "Correction",
            nullable=True,
            description="`null` for a correction that changed nothing (nothing was stored).",
        ),
        "state": ref("GameState"),
    },
}
SESSION: Schema = {
    "type": "object",
    "description": "A sitting of the game (R27): stones, the CAMAT and the next leader "
    "carry over from one to the next.",
    "required": ["number", "started_at"],
    "properties": {
        "number": {"type": "integer", "minimum": 1},
        "started_at": DATE_TIME,
        "ended_at": {**DATE_TIME, "nullable": True, "description": "`null` while it is open."},
    },
}
AUDIT_EVENT: Schema = {
    "type": "object",
    "description": "An event as entered, live or revoked.",
    "required": ["position", "kind", "round", "payload", "entered_by", "created_at", "revoked_by"],
    "properties": {
        "position": POSITION,
        "kind": EVENT_KIND,
        "round": ROUND_NUMBER,
        "payload": ref("EventPayload"),
        "entered_by": {"type": "string"},
        "created_at": DATE_TIME,
        "revoked_by": {
            "type": "integer",
            "nullable": True,
            "description": "The `id` of the correction that revoked it; `null` while live.",
        },
    },
}
AUDIT_CORRECTION: Schema = {
    "type": "object",
    "description": "A correction as logged: who entered it, why and when.",
    "required": ["id", "kind", "entered_by", "reason", "created_at", "replacement_position"],
    "properties": {
        "changes": {
            "type": "array",
            "description": "What the correction changed, event by event (R37): each with its "
            "`op` and what it replaced; a declared hand's tiles are never shown (R31).",
            "items": ref("AppliedChange"),
        },
        "id": {"type": "integer"},
        "kind": ref("CorrectionKind"),
        "entered_by": {"type": "string"},
        "reason": {"type": "string"},
        "created_at": DATE_TIME,
        "replacement_position": {
            **POSITION,
            "nullable": True,
            "description": "An amendment's new event; `null` for an undo.",
        },
    },
}
CORRECTION_CHANGE: Schema = {
    "type": "object",
    "description": "One change of a correction (R37): `amend` the event at `position` "
    "(`replaced` → `payload`), `insert` one (`payload`), `remove` one (`replaced`); or "
    "(`seat`, R38) a seat re-seated: its `previous` name and player, its new `name` and "
    "`player`. Payloads are in record form, a declared hand's `tiles` `null` (R31).",
    "required": ["op"],
    "additionalProperties": False,
    "properties": {
        "op": {"type": "string", "enum": ["amend", "insert", "remove", "seat"]},
        "position": POSITION,
        "round": ROUND_NUMBER,
        "kind": EVENT_KIND,
        "payload": ref("EventPayload"),
        "replaced": ref("EventPayload"),
        "seat": SEAT,
        "previous": {
            "type": "object",
            "required": ["name", "player"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string"},
                "player": {"type": "integer", "nullable": True},
            },
        },
        "name": {"type": "string"},
        "player": {"type": "integer", "nullable": True},
    },
}
AUDIT_REFUSAL: Schema = {
    "type": "object",
    "description": "An event the referee refused. Its `payload` and `detail` are `null` "
    "where they could give away a declared hand (R31).",
    "required": ["kind", "payload", "code", "rule", "detail", "entered_by", "created_at"],
    "properties": {
        "kind": EVENT_KIND,
        "payload": ref("RefusedPayload", nullable=True),
        "code": {"type": "string", "description": "The problem's `code`."},
        "rule": {"type": "string", "nullable": True},
        "detail": {"type": "string", "nullable": True},
        "entered_by": {"type": "string"},
        "created_at": DATE_TIME,
    },
}
REFUSED_PAYLOAD: Schema = {
    "type": "object",
    "description": "The refused event's fields exactly as they were sent (`seat`, `tile`, "
    '`on`, `pass`, `tiles`, `pips`): possibly malformed — `"seat": "2"`, `"tile": '
    "null` — since that may be why it was refused. The one body of the API that is not "
    "typed field by field.",
    "additionalProperties": True,
}
AUDIT_ALERT: Schema = {
    "type": "object",
    "description": "A phone that probed declared hands (R31): refused moves against them or "
    "undos of another seat's moves, `count` times; or (`shared`, once a round) a declared "
    "hand, entered by `entered_by`, that shares tiles with the declared hands of `seats`: "
    "accepted like any declaration, each of those seats judged by its own hand, until the "
    "organiser keeps one and clears the other by a correction. `tiles` (the tiles shared) "
    "is shown to the organiser alone, `null` to a seat's phone.",
    "required": ["kind", "entered_by", "seats", "count", "round", "tiles", "created_at"],
    "properties": {
        "kind": {"type": "string", "enum": ["refusals", "undos", "shared"]},
        "entered_by": {"type": "string"},
        "seats": {"type": "array", "items": SEAT},
        "count": {"type": "integer", "minimum": 1},
        "round": {"type": "integer", "minimum": 1, "nullable": True},
        "tiles": {"type": "array", "items": TILE, "nullable": True},
        "created_at": DATE_TIME,
    },
}
AUDIT_COUNTS: Schema = {
    "type": "object",
    "description": "How many entries each list holds in all pages.",
    "required": ["events", "corrections", "refused", "alerts"],
    "properties": {
        name: {"type": "integer", "minimum": 0}
        for name in ("events", "corrections", "refused", "alerts")
    },
}
AUDIT_TRAIL: Schema = {
    "type": "object",
    "description": "Every event (live and revoked), every correction, every refused event and "
    "every alert, a page of each.",
    "required": ["events", "corrections", "refused", "alerts", "counts", "page", "next"],
    "properties": {
        "events": {"type": "array", "items": ref("AuditEvent")},
        "corrections": {"type": "array", "items": ref("AuditCorrection")},
        "refused": {"type": "array", "items": ref("AuditRefusal")},
        "alerts": {"type": "array", "items": ref("AuditAlert")},
        "counts": ref("AuditCounts"),
        "page": {"type": "integer", "minimum": 1},
        "next": {
            "type": "string",
            "format": "uri",
            "nullable": True,
            "description": "The next page while one list has more; else `null`.",
        },
    },
}
GAME_IMPORT: Schema = {
    "description": "A record to store (`domeng-record/1`), or `{record, players?, played_at?}`:"
    " `players` names the seats by the club's player ids (or guests' names), `played_at` "
    "dates its rounds in the league.",
    "oneOf": [
        ref("Record"),
        {
            "type": "object",
            "required": ["record"],
            "additionalProperties": False,
            "properties": {
                "record": ref("Record"),
                "players": {
                    "type": "array",
                    "minItems": 5,
                    "maxItems": 5,
                    "items": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string"}]},
                },
                "played_at": {**DATE_TIME, "nullable": True},
            },
        },
    ],
}


def _enum(description: str, values: list[Any]) -> Schema:
    return {"type": "string", "enum": values, "description": description}


COMPONENTS: dict[str, Schema] = {
    "Tile": TILE_SCHEMA,
    "NamedOutcome": _enum(
        "A named outcome, as the table calls it (never translated).", NAMED_OUTCOMES
    ),
    "TransferReason": _enum(
        "Why stones moved (R23): a pass, a PASSEBUNGE, the FIRST CAPPU's award, CEKI, POLLO, "
        "MANGUNO, a MATTIKKENG's shortfall, or the organiser's adjustment (R36).",
        ["pass", "passebunge", "cappu", "ceki", "pollo", "manguno", "mattikkeng", "adjustment"],
    ),
    "TransferSource": {
        "description": 'Where stones come from: `"table"` or a seat (0–4).',
        "oneOf": [{"type": "string", "enum": ["table"]}, SEAT],
    },
    "Strategy": _enum("A computer seat's strategy (R39): its name.", sorted(STRATEGIES)),
    "RoundEnding": _enum("A FIRST CAPPU (R14) or a blocked round (R17).", ["cappu", "blocked"]),
    "CappuFinish": _enum(
        "How the FIRST CAPPU went out: plain (R14), CEKI (R15) or POLLO (R16).",
        ["plain", "ceki", "pollo"],
    ),
    "RoundStatus": _enum(
        "Waiting for the lead, in play, or blocked and waiting for reveals (R18).",
        ["awaiting_lead", "in_play", "awaiting_reveals"],
    ),
    "GameStatus": _enum("An open game takes events; a closed one never again.", ["open", "closed"]),
    "EventKind": _enum(
        "A play or pass (`move`), a declared hand (`hand`, R31), a reveal (`reveal`, R18), "
        "or the organiser's ruling: `void` (R35), `adjustment` (R36), `substitute` (R38).",
        ["move", "hand", "reveal", "void", "adjustment", "substitute"],
    ),
    "CorrectionKind": _enum(
        "An undo, an amendment, a batch correction (R37), a void (R35), an adjustment (R36), "
        "a substitute or a re-seating (R38), or a record replaced.",
        ["undo", "amend", "correct", "void", "adjust", "substitute", "seat", "replace"],
    ),
    "RecordAdjustment": ADJUSTMENT,
    "Transfer": TRANSFER,
    "Play": PLAY,
    "Pass": PASS,
    "RuleSet": RULE_SET,
    "RecordRound": RECORD_ROUND,
    "Record": RECORD,
    "StandingAfter": STANDING_AFTER,
    "ResultRound": RESULT_ROUND,
    "Result": RESULT,
    "Problem": PROBLEM,
    "Contradiction": CONTRADICTION,
    "FieldError": FIELD_ERROR,
    "EventPayload": EVENT_PAYLOAD,
    "Outcome": OUTCOME,
    "RoundVerification": ROUND_VERIFICATION,
    "VerificationResult": VERIFICATION_RESULT,
    "RoundState": ROUND_STATE,
    "SeatState": SEAT_STATE,
    "TableEvent": TABLE_EVENT,
    "GameState": GAME_STATE,
    "StoredEvent": STORED_EVENT,
    "Effects": EFFECTS,
    "EventResult": EVENT_RESULT,
    "Correction": CORRECTION,
    "AppliedChange": CORRECTION_CHANGE,
    "Ruling": RULING,
    "CorrectionResult": CORRECTION_RESULT,
    "Session": SESSION,
    "AuditEvent": AUDIT_EVENT,
    "AuditCorrection": AUDIT_CORRECTION,
    "AuditRefusal": AUDIT_REFUSAL,
    "RefusedPayload": REFUSED_PAYLOAD,
    "AuditTrail": AUDIT_TRAIL,
    "AuditAlert": AUDIT_ALERT,
    "AuditCounts": AUDIT_COUNTS,
    "GameImport": GAME_IMPORT,
}


def add_components(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """drf-spectacular postprocessing hook: register every component of ``COMPONENTS`` (a
    fresh copy each time: the enum hook that runs next rewrites what it is given, and
    rebuilds ``components`` from the registry)."""
    registered = {name for name, kind in generator.registry._components}
    for (name, _kind), resolved in generator.registry._components.items():
        target = resolved.object
        if name in COMPONENTS and not (
            isinstance(target, JsonSchemaDocument)
            or (isinstance(target, type) and issubclass(target, JsonSchemaDocument))
        ):
            # A serializer named like a component would silently replace it (a request body
            # standing in for a response): rename the serializer.
            raise ImproperlyConfigured(f"the component {name} is also a serializer's name")
    for name, component in COMPONENTS.items():
        if name not in registered:  # a ``JsonSchemaDocument`` registered it already
            generator.registry.register(
                ResolvedComponent(
                    name=name,
                    type=ResolvedComponent.SCHEMA,
                    object=name,
                    schema=copy.deepcopy(component),
                )
            )
    result["components"] = generator.registry.build(spectacular_settings.APPEND_COMPONENTS)
    return result


GAME_CREATED = "#/components/schemas/GameCreated"


def game_links(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """drf-spectacular postprocessing hook: OpenAPI links from each answer that creates a
    game (``GameCreated``: ``POST /games/``, ``POST /games/import/``) to every operation on
    that game, its ``game_id`` the answer's ``id`` (issue 31: what a client, and
    schemathesis' stateful phase, follows from a new game to its state, moves, record,
    result and rounds)."""
    paths = result.get("paths", {})
    on_a_game = sorted(
        operation["operationId"]
        for item in paths.values()
        for operation in item.values()
        if isinstance(operation, dict)
        and "operationId" in operation
        and any(
            parameter.get("in") == "path" and parameter.get("name") == "game_id"
            for parameter in operation.get("parameters", [])
        )
    )
    for item in paths.values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for answer in operation.get("responses", {}).values():
                body = answer.get("content", {}).get("application/json", {}).get("schema")
                if body != {"$ref": GAME_CREATED}:
                    continue
                answer["links"] = {
                    target: {
                        "operationId": target,
                        "parameters": {"game_id": "$response.body#/id"},
                        "description": "The game this answer created.",
                    }
                    for target in on_a_game
                }
    return result


def _nullable_to_null_type(node: Any) -> Any:
    """One schema node, and everything below it, with OpenAPI 3.0's ``nullable: true``
    written as OpenAPI 3.1 (JSON Schema 2020-12) says: ``null`` among its types (and in
    the ``enum``), or a ``{"type": "null"}`` alternative beside a ``$ref``, ``oneOf`` or
    ``anyOf``."""
    if isinstance(node, list):
        return [_nullable_to_null_type(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _nullable_to_null_type(value) for key, value in node.items()}
    if list(node) == ["allOf"] and len(node["allOf"]) == 1:  # a wrapper with no siblings
        return node["allOf"][0]
    if not isinstance(node.get("nullable"), bool):
        return node
    nullable = node.pop("nullable")
    if not nullable:
        return node
    null: Schema = {"type": "null"}
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    if "type" in node:
        types = node["type"] if isinstance(node["type"], list) else [node["type"]]
        node["type"] = types if "null" in types else [*types, "null"]
    elif "$ref" in node:
        node = {"oneOf": [{"$ref": node.pop("$ref")}, null], **node}
    elif "allOf" in node and len(node["allOf"]) == 1:
        node = {"oneOf": [node.pop("allOf")[0], null], **node}
    elif "oneOf" in node or "anyOf" in node:
        key = "oneOf" if "oneOf" in node else "anyOf"
        # drf-spectacular's enum hook may have added its ``NullEnum`` already.
        if not any(item in (null, {"$ref": COMPONENT_PREFIX + "NullEnum"}) for item in node[key]):
            node[key] = [*node[key], null]
    elif "enum" not in node:
        raise ImproperlyConfigured(f"a nullable schema without a type: {node}")
    return node


def null_types(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """drf-spectacular postprocessing hook, the last: the document is OpenAPI 3.1
    (``OAS_VERSION``), whose schemas have no ``nullable``; every ``nullable: true`` written
    here in the 3.0 manner (the components above, ``extend_schema_field``) becomes a
    ``null`` type, so that a strict validator accepts the ``null`` the server sends and
    refuses it where the field cannot be ``null``."""
    return {key: _nullable_to_null_type(value) for key, value in result.items()}


class JsonSchemaDocument(serializers.Serializer[Any]):
    """A documentation-only body: ``JsonSchemaExtension`` publishes the component
    ``component_name`` of ``COMPONENTS``."""

    component_name: ClassVar[str]
    json_schema: ClassVar[Schema | None] = None  # a body of its own, outside ``COMPONENTS``

    @classmethod
    def document(cls) -> Schema:
        """The component's schema: ``json_schema``, else ``COMPONENTS[component_name]``."""
        return cls.json_schema if cls.json_schema is not None else COMPONENTS[cls.component_name]


class RecordDocument(JsonSchemaDocument):
    component_name = "Record"


class ResultDocument(JsonSchemaDocument):
    component_name = "Result"


class ProblemDocument(JsonSchemaDocument):
    component_name = "Problem"


class GameStateDocument(JsonSchemaDocument):
    component_name = "GameState"


class VerificationResultDocument(JsonSchemaDocument):
    component_name = "VerificationResult"


class EventResultDocument(JsonSchemaDocument):
    component_name = "EventResult"


class CorrectionResultDocument(JsonSchemaDocument):
    component_name = "CorrectionResult"


class SessionDocument(JsonSchemaDocument):
    component_name = "Session"


class AuditTrailDocument(JsonSchemaDocument):
    component_name = "AuditTrail"


class GameImportDocument(JsonSchemaDocument):
    component_name = "GameImport"


class RuleSetDocument(JsonSchemaDocument):
    component_name = "RuleSet"


class JsonSchemaExtension(OpenApiSerializerExtension):
    """Publish a ``JsonSchemaDocument`` as the component ``component_name``."""

    target_class = JsonSchemaDocument
    match_subclasses = True

    def get_name(self, auto_schema: Any, direction: Any) -> str:
        return str(self.target.component_name)

    def map_serializer(self, auto_schema: Any, direction: Any) -> Schema:
        return copy.deepcopy(self.target.document())


class StrictSerializerExtension(OpenApiSerializerExtension):
    """A request body that refuses unknown fields (``StrictSerializer``, 400 ``unknown_field``)
    says so: ``additionalProperties: false``."""

    target_class = "referee.api.serializers.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> Schema:
        schema: Schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        from referee.api.schema_limits import declare_text_limits

        declare_text_limits(self.target, schema)
        if not type(self.target).__dict__.get("__doc__"):
            schema.pop("description", None)  # a base class's docstring says nothing of it
        return schema


# -- what every operation shares: problems, credentials, headers ------------------------------

PROBLEM_DESCRIPTIONS: dict[int, str] = {
    400: "Malformed request (`parse_error`, `invalid` with `errors`, `unknown_field`, "
    "`invalid_query` naming the `parameter`, `record_invalid`, `tile_invalid`…): nothing "
    "was applied.",
    401: "No credentials, or a token that is unknown or revoked (`not_authenticated`, "
    "`authentication_failed`).",
    403: "These credentials may not do this (`permission_denied`, `seat_not_allowed`, "
    "`not_club_organiser`…).",
    404: "No such resource, not one these credentials can see, or a page past the last "
    "(`not_found`).",
    406: "No representation matches `Accept` (`not_acceptable`).",
    409: "Conflicts with the stored state (`version_mismatch` with the current `state`, "
    "`game_closed`, `nothing_to_undo`…): nothing was applied.",
    412: "`If-Match` names an older version (`precondition_failed`): nothing was applied; "
    "the problem carries the current `state`.",
    428: "This write must name the version it was made on (`precondition_required`): send "
    "`If-Match` with the state's ETag.",
    413: "The body is larger than the server takes (`request_too_large`).",
    415: "The body is not `application/json` (`unsupported_media_type`).",
    422: "Refused by the rules (`code` and `rule`, e.g. `not_your_turn`, R8) or an "
    "`Idempotency-Key` reused with another body (`idempotency_key_reused`): nothing was "
    "applied.",
    429: "Too many requests (`throttled`, `join_locked_out`): wait `Retry-After` seconds.",
    503: "The database could not take the request now (`database_busy`): nothing was "
    "applied; retry after `Retry-After` seconds.",
}
GENERIC_PROBLEM_DESCRIPTION = (
    "An RFC 9457 problem with a stable `code` (and, for a rule violation, the rule id, round "
    "and move). 409/412 after a stale version carry the current `state`."
)
PROBLEM_RESPONSE_GENERIC = OpenApiResponse(
    response=ProblemDocument, description=GENERIC_PROBLEM_DESCRIPTION
)


def problems(*statuses: int) -> dict[tuple[int, str], OpenApiResponse]:
    """``extend_schema(responses=…)`` entries for these statuses: the ``Problem`` body as
    ``application/problem+json``, each with its standard description. The statuses every
    operation shares (401, 403, 404, 406, 413, 415, 429, 503…) are added by ``AutoSchema``;
    name here the ones peculiar to an operation (409, 412, 422…)."""
    return {
        (status, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            response=ProblemDocument, description=PROBLEM_DESCRIPTIONS.get(status, "")
        )
        for status in statuses
    }


RETRY_AFTER_HEADER = OpenApiParameter(
    "Retry-After",
    {"type": "integer", "minimum": 1},
    OpenApiParameter.HEADER,
    response=[429, 503],
    description="Seconds to wait before trying again.",
)
ETAG_HEADER = OpenApiParameter(
    "ETag",
    {"type": "string", "pattern": r'^"\d+"$', "example": '"7"'},
    OpenApiParameter.HEADER,
    response=[200, 201, 304],
    description='The state\'s version as an entity tag, `"<version>"`: send it back as '
    "`If-Match` (writes) or `If-None-Match` (reads).",
)
READ_ETAG_HEADER = OpenApiParameter(
    "ETag",
    {"type": "string", "pattern": r'^"\d+\.[0-9a-f]{16}"$', "example": '"7.3f9c1a0b5d2e4f68"'},
    OpenApiParameter.HEADER,
    response=[200, 304],
    description='The entity tag of the body you get, `"<version>.<digest>"` (issue 27): '
    "callers whose bodies differ (a phone's own declared hand, the organiser's view of a "
    "blocked round) never share one. Send it back as `If-None-Match` (reads) or `If-Match` "
    "(writes: only its version is compared).",
)
# RFC 9110 §13.1, as ``referee.conditional`` reads it (one grammar, defined there); an
# optional header may also be empty, which is no header.
CONDITIONAL_HEADER: Schema = {"type": "string", "pattern": CONDITIONAL_HEADER_PATTERN}
IF_NONE_MATCH_HEADER = OpenApiParameter(
    "If-None-Match",
    {**CONDITIONAL_HEADER, "maxLength": 1024},
    OpenApiParameter.HEADER,
    required=False,
    description="The `ETag` last seen (or a list, or `*`): while your body is still the one "
    'it names the answer is 304 with no body. A bare `"<version>"` or another caller\'s '
    "tag gets the body.",
)
PRIVATE_CACHE_CONTROL = "private, no-store"
CACHE_CONTROL_HEADERS = {
    "always": OpenApiParameter(
        "Cache-Control",
        {"type": "string", "enum": [PRIVATE_CACHE_CONTROL]},
        OpenApiParameter.HEADER,
        response=True,
        description="Every answer depends on who asks (issue 27): no shared cache may keep "
        "it for another caller, and it is not stored.",
    ),
    "unless_public": OpenApiParameter(
        "Cache-Control",
        {"type": "string", "enum": [PRIVATE_CACHE_CONTROL]},
        OpenApiParameter.HEADER,
        response=True,
        description="`private, no-store` on every answer that depends on who asks: a "
        "private club's records (an outsider gets 404 for the same URL), every error and "
        "every write. Absent on a published club's 200, which is the same for everyone and "
        "may be cached.",
    ),
}
"""The ``Cache-Control`` response header of an operation whose view says how private its
answers are (``cache_privacy``: the game views' ``PerViewer``, the league's ``LeagueCaching``)."""
ORGANISER_SCHEMES = ("tokenAuth", "cookieAuth")
IF_MATCH_HEADER = OpenApiParameter(
    "If-Match",
    {**CONDITIONAL_HEADER, "example": '"7"'},
    OpenApiParameter.HEADER,
    required=False,
    description='`*` or the state\'s ETag (`"<version>"`), or a list of entity tags; compared '
    'strongly (RFC 9110 §13.1.1: a weak tag such as `W/"3"` never matches). A stale one gets '
    "412 and the current state, and nothing is applied; a malformed one 400 "
    "(`precondition_invalid`).",
)
NO_TAG_IF_MATCH_HEADER = OpenApiParameter(
    "If-Match",
    {**CONDITIONAL_HEADER, "example": "*"},
    OpenApiParameter.HEADER,
    required=False,
    description="This resource has no entity tag: `*` holds, a list of entity tags gets 412 "
    "(`precondition_failed`) and nothing is applied; an unknown resource is 404 first.",
)


def _names(parameters: list[Any]) -> set[str]:
    """The names of ``extend_schema`` parameters (``OpenApiParameter`` objects)."""
    return {p.name for p in parameters if isinstance(p, OpenApiParameter)}


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's ``AutoSchema`` with what every operation of this API shares.

    - Credentials: an operation lists only those its permissions accept. A table token
      (``tableToken``) is an anonymous user to DRF, so it is left out where a signed-in
      user is required (``IsOrganiser``, ``IsAuthenticated``, writes under
      ``IsAuthenticatedOrReadOnly``, a game view's ``organiser_only_methods``); an
      operation open to everyone with no authenticator (``records_score``) has no
      ``security`` at all.
    - Problems: each status a request can meet whatever the view (``PROBLEM_DESCRIPTIONS``)
      is documented with the ``Problem`` body, unless the view documents it itself; 429 and
      503 with ``Retry-After``.
    - Caching: a view with ``cache_privacy`` declares ``Cache-Control`` on every response
      (``CACHE_CONTROL_HEADERS``).
    """

    def get_description(self) -> str:  # type: ignore[override]  # drf-spectacular's own
        """The operation's ``extend_schema`` description, else the view's own docstring — never
        one a view inherits from a mixin (written for developers, not integrators)."""
        if not type(self.view).__dict__.get("__doc__"):
            return ""
        return str(super().get_description())

    def get_auth(self) -> list[Schema]:
        auth: list[Schema] = super().get_auth()
        if self._needs_a_user():
            auth = [a for a in auth if a and not set(a) - set(ORGANISER_SCHEMES)]
        return [] if auth == [{}] else auth

    def _needs_a_user(self) -> bool:
        from rest_framework import permissions

        from referee.api.auth import IsOrganiser

        if self.method in getattr(self.view, "organiser_only_methods", ()):
            return True  # a phone gets 403 before its body is read (``GameMixin``)
        kinds = [type(p) for p in self.view.get_permissions()]
        if any(issubclass(k, (IsOrganiser, permissions.IsAuthenticated)) for k in kinds):
            return True
        return permissions.IsAuthenticatedOrReadOnly in kinds and (
            self.method not in permissions.SAFE_METHODS
        )

    def get_override_parameters(self) -> list[Any]:
        extra = [RETRY_AFTER_HEADER]
        privacy = getattr(self.view, "cache_privacy", None)
        if privacy in CACHE_CONTROL_HEADERS:
            extra.append(CACHE_CONTROL_HEADERS[privacy])
        declared = super().get_override_parameters()
        if self._is_write() and "If-Match" not in _names(declared):
            extra.append(self._if_match_header())
        return [*declared, *extra]

    def _is_write(self) -> bool:
        return self.method in ("POST", "PUT", "PATCH", "DELETE")

    def _if_match_header(self) -> OpenApiParameter:
        """Every write honours ``If-Match`` (``referee.middleware``): a game's against its
        version (``checks_conditions``), any other against no entity tag at all."""
        if getattr(self.view, "checks_conditions", False):
            return IF_MATCH_HEADER
        return NO_TAG_IF_MATCH_HEADER

    def _get_response_bodies(self, direction: Any = "response") -> Schema:
        responses: Schema = super()._get_response_bodies(direction)
        for status in self._shared_problem_statuses():
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(
                    ProblemDocument, str(status), [PROBLEM_CONTENT_TYPE], direction
                )
        for code, response in responses.items():
            if code.isdigit() and int(code) >= 400:
                if response.get("description") in ("", GENERIC_PROBLEM_DESCRIPTION):
                    response["description"] = PROBLEM_DESCRIPTIONS.get(
                        int(code), GENERIC_PROBLEM_DESCRIPTION
                    )
        return dict(sorted(responses.items()))

    def _shared_problem_statuses(self) -> list[int]:
        has_body = self.method in ("POST", "PUT", "PATCH") and bool(self._get_request_body())
        # 400 on every operation: a malformed If-Match/If-None-Match (``precondition_invalid``)
        # or a control character in a header (``text_invalid``) is refused on any route.
        statuses = [400, 406, 429, 503]
        if has_body:
            statuses += [413, 415]
        elif self._is_write():
            statuses.append(413)  # a body sent anyway is measured before it is ignored
        if self._is_write():
            statuses.append(412)  # ``If-Match`` (``_if_match_header``)
            # ``idempotency_key_reused``: every write honours Idempotency-Key (the store is
            # the middleware's), declared or not on the operation.
            statuses.append(422)
        if self.view.get_authenticators():
            statuses += [401, 403]
        if "{" in self.path or (self._is_list_view() and self._get_paginator()):
            statuses.append(404)  # no such resource, or a page past the last one
        return statuses


# A game in progress (RECORD.md's example): seat 4's pass is a PASSEBUNGE (R10),
# paid 2 stones from the table (R23a); seat 1 is to play.
EXAMPLE_RECORD: Schema = {
    "format": "domeng-record/1",
    "players": ["Andi", "Besse", "Cakra", "Daeng", "Evi"],
    "rules": {"starting_stones": 25},
    "rounds": [
        {
            "moves": [
                {"seat": 2, "tile": "6-6"},
                {"seat": 3, "tile": "4-6"},
                {"seat": 4, "pass": True},
                {"seat": 0, "tile": "4-1", "on": 4},
            ]
        }
    ],
}

EXAMPLE_RESULT: Schema = {
    "format": "domeng-result/1",
    "rounds": [
        {
            "number": 1,
            "leader": 2,
            "ending": None,
            "finish": None,
            "first_cappu": None,
            "manguno": None,
            "mattikkeng": [],
            "cucuq": None,
            "winner": None,
            "remaining_pips": None,
            "transfers": [
                {"move": 2, "from": "table", "to": 4, "stones": 2, "reason": "passebunge"}
            ],
            "camat_elected": None,
            "after": {"table": 23, "stones": [0, 0, 0, 0, 2], "camat": None, "next_leader": 1},
            "void": False,
        }
    ],
}

RECORD_EXAMPLES = [
    OpenApiExample("A round in progress", value=EXAMPLE_RECORD, request_only=True),
]

RESULT_RESPONSE = OpenApiResponse(
    response=ResultDocument,
    description="The result of replaying the record.",
    examples=[OpenApiExample("A round in progress", value=EXAMPLE_RESULT, response_only=True)],
)

MALFORMED_RESPONSE = OpenApiResponse(
    response=ProblemDocument,
    description="The body is not JSON, or not a well-formed record (`record_invalid`, "
    "`tile_invalid`).",
    examples=[
        OpenApiExample(
            "Not JSON",
            response_only=True,
            status_codes=["400"],
            media_type=PROBLEM_CONTENT_TYPE,
            value={
                "type": "urn:domeng:problem:parse_error",
                "title": "Malformed request",
                "status": 400,
                "detail": "JSON parse error - the body is not valid JSON (line 1, column 1).",
                "code": "parse_error",
            },
        ),
        OpenApiExample(
            "Unknown record format",
            response_only=True,
            status_codes=["400"],
            media_type=PROBLEM_CONTENT_TYPE,
            value={
                "type": "urn:domeng:problem:record_invalid",
                "title": "Malformed record",
                "status": 400,
                "detail": "unknown record format 'domeng-record/9'",
                "code": "record_invalid",
                "rule": None,
                "round": None,
                "move": None,
            },
        ),
    ],
)

IMPOSSIBLE_RESPONSE = OpenApiResponse(
    response=ProblemDocument,
    description="A well-formed record that the rules make impossible: the first faulty "
    "event, its rule id and where it is (RULES.md R34 orders the checks).",
    examples=[
        OpenApiExample(
            "Not your turn",
            response_only=True,
            status_codes=["422"],
            media_type=PROBLEM_CONTENT_TYPE,
            value={
                "type": "urn:domeng:problem:not_your_turn",
                "title": "Refused by the rules",
                "status": 422,
                "detail": "seat 2 played, but it is seat 1's turn",
                "code": "not_your_turn",
                "rule": "R8",
                "round": 1,
                "move": 1,
            },
        ),
    ],
)


class MoveSerializerExtension(StrictSerializerExtension):
    """A move's body is a play or a pass, never both nor neither (R9): ``oneOf`` the
    components ``MovePlay`` (``{seat, tile, on?}``) and ``MovePass`` (``{seat, pass:
    true}``), each with ``expected_version`` (issue 31). The fields stay the serializer's;
    the rules core judges them (``record_invalid`` for a body that is neither)."""

    target_class = "referee.api.serializers.MoveSerializer"
    match_subclasses = False
    priority = 1

    def map_serializer(self, auto_schema: Any, direction: Any) -> Schema:
        schema = super().map_serializer(auto_schema, direction)
        fields = schema["properties"]
        shared = {name: fields[name] for name in ("expected_version", "seat")}
        shapes = {
            "MovePlay": {
                "description": "A play: the seat lays `tile`, on the end `on` if it fits two "
                "ends of different values (R11).",
                "required": ["seat", "tile"],
                "properties": {**shared, "tile": fields["tile"], "on": fields["on"]},
            },
            "MovePass": {
                "description": "A pass: the seat holds no tile that fits (R9).",
                "required": ["seat", "pass"],
                "properties": {**shared, "pass": {**fields["pass"], "const": True}},
            },
        }
        choices = []
        for name, shape in shapes.items():
            component = ResolvedComponent(
                name=name,
                type=ResolvedComponent.SCHEMA,
                object=name,
                schema={"type": "object", **shape, "additionalProperties": False},
            )
            auto_schema.registry.register_on_missing(component)
            choices.append(component.ref)
        return {"description": schema.get("description", ""), "oneOf": choices}
