"""OpenAPI documentation of the API's bodies: the record, the result and the problem envelope.

The shapes are those of RECORD.md and are written as JSON Schema (OpenAPI 3.0
dialect) because the rules engine, not a serializer, validates a record: a DRF
serializer here would be a second, diverging validator. The serializer classes
below carry no fields and validate nothing; they only give each schema a
component name through ``JsonSchemaExtension``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers

from referee.api.problems import PROBLEM_CONTENT_TYPE

Schema = dict[str, Any]

SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": 4}
NULLABLE_SEAT: Schema = {**SEAT, "nullable": True}
STONES: Schema = {"type": "integer", "minimum": 0}
TILE: Schema = {
    "type": "string",
    "pattern": r"^([0-6]-[0-6]|[0-6]\|[0-6]|\[[0-6]\|[0-6]\])$",
    "description": "A tile written `a-b`, `a|b` or `[a|b]`, halves in either order (R1).",
    "example": "6-4",
}
SEAT_KEYS = 'Keys are seats written as strings, `"0"` to `"4"`.'

PLAY: Schema = {
    "type": "object",
    "title": "Play",
    "required": ["seat", "tile"],
    "properties": {
        "seat": SEAT,
        "tile": TILE,
        "on": {
            "type": "integer",
            "minimum": 0,
            "maximum": 6,
            "description": "The value of the open end the tile goes on; needed only when "
            "the tile fits two open ends of different values (R11).",
        },
    },
}
PASS: Schema = {
    "type": "object",
    "title": "Pass",
    "required": ["seat", "pass"],
    "properties": {"seat": SEAT, "pass": {"type": "boolean", "enum": [True]}},
}

ADJUSTMENT: Schema = {
    "type": "object",
    "description": "Stones moved by the organiser after a round's awards (R36): nobody gives "
    "more than they hold; never elects a CAMAT.",
    "required": ["from", "to", "stones", "reason"],
    "properties": {
        "from": {"oneOf": [{"type": "string", "enum": ["table"]}, SEAT]},
        "to": {"oneOf": [{"type": "string", "enum": ["table"]}, SEAT]},
        "stones": {"type": "integer", "minimum": 1},
        "reason": {"type": "string", "minLength": 1},
    },
}


RECORD: Schema = {
    "type": "object",
    "description": "A game record (`domeng-record/1`): the seats and every event, in order.",
    "required": ["format", "players", "rounds"],
    "properties": {
        "format": {"type": "string", "enum": ["domeng-record/1"]},
        "players": {
            "type": "array",
            "description": "Seat 0 to seat 4, clockwise (R3).",
            "items": {"type": "string", "minLength": 1},
            "minItems": 5,
            "maxItems": 5,
        },
        "rules": {
            "type": "object",
            "nullable": True,
            "description": "Overrides of the default rule set (R40); unknown keys are an error.",
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
        },
        "rounds": {
            "type": "array",
            "description": "Only the last round may be unfinished.",
            "items": {
                "type": "object",
                "required": ["moves"],
                "properties": {
                    "moves": {"type": "array", "items": {"oneOf": [PLAY, PASS]}},
                    "hands": {
                        "type": "object",
                        "nullable": True,
                        "description": "Declared hands (R31): seat → its five tiles. " + SEAT_KEYS,
                        "additionalProperties": {
                            "type": "array",
                            "items": TILE,
                            "minItems": 5,
                            "maxItems": 5,
                        },
                    },
                    "reveal": {
                        "type": "object",
                        "nullable": True,
                        "description": "Blocked round only (R18): seat → the tiles it still "
                        "holds. " + SEAT_KEYS,
                        "additionalProperties": {"type": "array", "items": TILE},
                    },
                    "pips": {
                        "type": "object",
                        "nullable": True,
                        "description": "Blocked round only (R18): seat → its remaining pip "
                        "sum, for seats not in `reveal`. " + SEAT_KEYS,
                        "additionalProperties": {"type": "integer", "minimum": 0},
                    },
                    "void": {
                        "type": "object",
                        "nullable": True,
                        "description": "The organiser voided the round (R35): its events are "
                        "only checked for form, it moves no stone.",
                        "required": ["reason"],
                        "properties": {"reason": {"type": "string", "minLength": 1}},
                    },
                    "adjustments": {
                        "type": "array",
                        "nullable": True,
                        "description": "Stones moved by the organiser after the round (R36).",
                        "items": ADJUSTMENT,
                    },
                    "substitutes": {
                        "type": "object",
                        "nullable": True,
                        "description": "From this round on, seat → who sits it (R38). " + SEAT_KEYS,
                        "additionalProperties": {"type": "string", "minLength": 1},
                    },
                },
            },
        },
    },
}

RESULT: Schema = {
    "type": "object",
    "description": "What the rules conclude from a record (`domeng-result/1`).",
    "required": ["format", "rounds"],
    "properties": {
        "format": {"type": "string", "enum": ["domeng-result/1"]},
        "rounds": {
            "type": "array",
            "items": {
                "type": "object",
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
                    "number": {"type": "integer", "minimum": 1},
                    "void": {
                        "type": "boolean",
                        "description": "Voided by the organiser (R35): it names nothing and "
                        "moves no stone but its adjustments.",
                    },
                    "leader": NULLABLE_SEAT,
                    "ending": {
                        "type": "string",
                        "nullable": True,
                        "enum": ["cappu", "blocked", None],
                        "description": "`null` while the round is still in play.",
                    },
                    "finish": {
                        "type": "string",
                        "nullable": True,
                        "enum": ["plain", "ceki", "pollo", None],
                        "description": "How a FIRST CAPPU finished (R14–R16); else `null`.",
                    },
                    "first_cappu": NULLABLE_SEAT,
                    "manguno": NULLABLE_SEAT,
                    "mattikkeng": {"type": "array", "items": SEAT},
                    "cucuq": NULLABLE_SEAT,
                    "winner": NULLABLE_SEAT,
                    "remaining_pips": {
                        "type": "array",
                        "nullable": True,
                        "items": {"type": "integer", "minimum": 0},
                        "minItems": 5,
                        "maxItems": 5,
                    },
                    "transfers": {
                        "type": "array",
                        "description": "Every movement of stones, in order (R23).",
                        "items": {
                            "type": "object",
                            "required": ["move", "from", "to", "stones", "reason"],
                            "properties": {
                                "move": {
                                    "type": "integer",
                                    "minimum": 0,
                                    "nullable": True,
                                    "description": "The pass's index in `moves`; `null` for "
                                    "the end-of-round award and an adjustment.",
                                },
                                "from": {
                                    "oneOf": [{"type": "string", "enum": ["table"]}, SEAT],
                                },
                                "to": {
                                    "oneOf": [{"type": "string", "enum": ["table"]}, SEAT],
                                    "description": "A seat; `table` only for an adjustment.",
                                },
                                "stones": {"type": "integer", "minimum": 1},
                                "reason": {
                                    "type": "string",
                                    "enum": [
                                        "pass",
                                        "passebunge",
                                        "cappu",
                                        "ceki",
                                        "pollo",
                                        "manguno",
                                        "mattikkeng",
                                        "adjustment",
                                    ],
                                },
                            },
                        },
                    },
                    "camat_elected": NULLABLE_SEAT,
                    "after": {
                        "type": "object",
                        "description": "The state once the round (and any CAMAT reset, R25) "
                        "is complete; for an unfinished round, the state now.",
                        "required": ["table", "stones", "camat", "next_leader"],
                        "properties": {
                            "table": STONES,
                            "stones": {
                                "type": "array",
                                "items": STONES,
                                "minItems": 5,
                                "maxItems": 5,
                            },
                            "camat": NULLABLE_SEAT,
                            "next_leader": NULLABLE_SEAT,
                        },
                    },
                },
            },
        },
    },
}

PROBLEM: Schema = {
    "type": "object",
    "description": "Every error of the API: RFC 9457 problem details "
    "(`application/problem+json`) with a stable machine-readable `code`. A rule "
    "violation adds `rule`, `round` and `move` (and `contradicts` for R32); a "
    "request that fails field validation adds `errors`.",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {
            "type": "string",
            "format": "uri",
            "description": "Identifies the problem type: `urn:domeng:problem:` + `code`.",
        },
        "title": {"type": "string", "description": "Short summary of the problem type."},
        "status": {"type": "integer", "description": "The HTTP status code."},
        "detail": {"type": "string", "description": "What went wrong, in the request's language."},
        "code": {
            "type": "string",
            "description": "Stable snake_case code; never changes (RECORD.md lists the "
            "referee's codes; `parse_error`, `invalid`, `not_found`, `method_not_allowed`, "
            "`unsupported_media_type`, `not_acceptable`, `throttled`, `server_error`, … "
            "come from HTTP).",
        },
        "rule": {
            "type": "string",
            "nullable": True,
            "description": "Rule id of RULES.md, e.g. `R7`; `null` for a fault of the format.",
        },
        "round": {
            "type": "integer",
            "minimum": 1,
            "nullable": True,
            "description": "1-based round; `null` for the record's header.",
        },
        "move": {
            "type": "integer",
            "minimum": 0,
            "nullable": True,
            "description": "0-based index in that round's `moves`; `null` when elsewhere.",
        },
        "contradicts": {
            "type": "object",
            "description": "The earlier event this one contradicts (R32).",
            "properties": {
                "round": {"type": "integer", "minimum": 1},
                "move": {"type": "integer", "minimum": 0, "nullable": True},
            },
        },
        "errors": {
            "type": "array",
            "description": "Field errors.",
            "items": {
                "type": "object",
                "required": ["field", "code", "detail"],
                "properties": {
                    "field": {
                        "type": "string",
                        "nullable": True,
                        "description": "Dotted path of the field; `null` for the whole body.",
                    },
                    "code": {"type": "string"},
                    "detail": {"type": "string"},
                },
            },
        },
    },
}


# -- stored games: what ``referee.selectors.game_state`` and the services answer ----------

TRANSFER: Schema = RESULT["properties"]["rounds"]["items"]["properties"]["transfers"]["items"]
TRANSFERS: Schema = {"type": "array", "items": TRANSFER}
NAMED: Schema = {
    "type": "array",
    "items": {"type": "string"},
    "description": "The table's words: PASS, PASSEBUNGE, MAPPAKULING, FIRST CAPPU, CEKI, "
    "POLLO, MANGUNO, MATTIKKENG, CUCUQ, CAMAT.",
}
PIPS: Schema = {"type": "integer", "minimum": 0, "maximum": 6}
DATE_TIME: Schema = {"type": "string", "format": "date-time"}
EVENT_KIND: Schema = {
    "type": "string",
    "enum": ["move", "hand", "reveal", "void", "adjustment", "substitute"],
    "description": "An event of play, or an organiser's ruling (R35, R36, R38).",
}
# The event's own fields, in record form (RECORD.md): a play, a pass, a hand, a reveal.
EVENT_FIELDS: Schema = {
    "seat": SEAT,
    "tile": TILE,
    "on": {**PIPS, "nullable": True},
    "pass": {"type": "boolean"},
    "tiles": {"type": "array", "items": TILE, "nullable": True},
    "pips": {"type": "integer", "minimum": 0},
    "ruling": {
        "type": "object",
        "description": "A ruling's fields as the organiser entered them (R35, R36, R38).",
    },
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
        "number": {"type": "integer", "minimum": 1},
        "ending": {"type": "string", "nullable": True, "enum": ["cappu", "blocked", None]},
        "finish": {"type": "string", "nullable": True, "enum": ["plain", "ceki", "pollo", None]},
        "void": {
            "type": "object",
            "nullable": True,
            "description": "The organiser voided the round (R35), and why.",
            "properties": {"reason": {"type": "string"}},
        },
        "named": NAMED,
        "first_cappu": NULLABLE_SEAT,
        "manguno": NULLABLE_SEAT,
        "mattikkeng": {"type": "array", "items": SEAT},
        "cucuq": NULLABLE_SEAT,
        "winner": NULLABLE_SEAT,
        "remaining_pips": {
            "type": "array",
            "nullable": True,
            "items": {"type": "integer", "minimum": 0},
            "minItems": 5,
            "maxItems": 5,
        },
        "transfers": TRANSFERS,
        "camat_elected": NULLABLE_SEAT,
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
            "description": "Increases with every change; the `ETag`.",
        },
        "status": {"type": "string", "enum": ["open", "closed"]},
        "session": {
            "type": "integer",
            "minimum": 1,
            "nullable": True,
            "description": "The open sitting (R27), if any.",
        },
        "table": STONES,
        "camat": NULLABLE_SEAT,
        "turn": NULLABLE_SEAT,
        "round": {
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
            ],
            "properties": {
                "number": {"type": "integer", "minimum": 1},
                "status": {
                    "type": "string",
                    "enum": ["awaiting_lead", "in_play", "awaiting_reveals"],
                },
                "leader": NULLABLE_SEAT,
                "chain": {
                    "type": "array",
                    "items": TILE,
                    "description": "Left to right, each tile as laid.",
                },
                "ends": {
                    "type": "array",
                    "nullable": True,
                    "items": PIPS,
                    "minItems": 2,
                    "maxItems": 2,
                },
                "playable": {
                    "type": "object",
                    "description": "Open end's value → the tiles that can still go on it.",
                    "additionalProperties": {"type": "array", "items": TILE},
                },
                "awaiting_reveal": {"type": "array", "items": SEAT},
                "previous": {
                    **OUTCOME,
                    "nullable": True,
                    "description": "Before a round's lead: how the last one ended.",
                },
                "outcome": {**OUTCOME, "nullable": True},
            },
        },
        "seats": {
            "type": "array",
            "minItems": 5,
            "maxItems": 5,
            "items": {
                "type": "object",
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
                    "tiles_played": {"type": "array", "items": TILE},
                    "tiles_left": {"type": "integer", "minimum": 0, "maximum": 5},
                    "passed_on": {"type": "array", "items": PIPS},
                    "has_declared": {"type": "boolean"},
                    "hand": {"type": "array", "items": TILE, "nullable": True},
                },
            },
        },
        "last_events": {
            "type": "array",
            "description": "The round's last events (at most 12), oldest first.",
            "items": {
                "type": "object",
                "required": ["position", "kind", "round", "seat", "named", "transfers"],
                "properties": {
                    "position": {"type": "integer", "minimum": 0},
                    "kind": EVENT_KIND,
                    "round": {"type": "integer", "minimum": 1},
                    **EVENT_FIELDS,
                    "seat": {
                        **NULLABLE_SEAT,
                        "description": "`null` for a void or an adjustment (R35, R36).",
                    },
                    "named": NAMED,
                    "transfers": TRANSFERS,
                    "entered_by": {"type": "string"},
                },
            },
        },
    },
}

STORED_EVENT: Schema = {
    "type": "object",
    "description": "A stored event: its fields in record form (a declared hand's `tiles` "
    "left out), where it stands in the game, and who entered it when.",
    "required": ["position", "kind", "round", "entered_by", "created_at"],
    "properties": {
        "position": {"type": "integer", "minimum": 0},
        "kind": EVENT_KIND,
        "round": {"type": "integer", "minimum": 1},
        **EVENT_FIELDS,
        "entered_by": {"type": "string"},
        "created_at": {**DATE_TIME, "nullable": True},
        "named": NAMED,
        "transfers": TRANSFERS,
    },
}

EVENT_RESULT: Schema = {
    "type": "object",
    "description": "The stored event, what it caused and the new state.",
    "required": ["event", "effects", "state"],
    "properties": {
        "event": STORED_EVENT,
        "effects": {
            "type": "object",
            "required": ["round", "named", "transfers", "round_ended", "settled", "camat_elected"],
            "properties": {
                "round": {"type": "integer", "minimum": 1},
                "named": NAMED,
                "transfers": TRANSFERS,
                "round_ended": {"type": "boolean"},
                "settled": {"type": "boolean"},
                "camat_elected": NULLABLE_SEAT,
            },
        },
        "state": {"$ref": "#/components/schemas/GameState"},
    },
}

CORRECTION_RESULT: Schema = {
    "type": "object",
    "description": "The correction (the audit trail keeps the events it replaced) and the "
    "new state.",
    "required": ["correction", "state"],
    "properties": {
        "correction": {
            "type": "object",
            "nullable": True,
            "description": "`null` when the correction changed nothing (nothing was stored).",
            "required": ["kind", "entered_by", "created_at", "reason", "replaced", "replacement"],
            "properties": {
                "id": {"type": "integer"},
                "kind": {
                    "type": "string",
                    "enum": [
                        "undo",
                        "amend",
                        "correct",
                        "void",
                        "adjust",
                        "substitute",
                        "seat",
                        "replace",
                    ],
                },
                "changes": {
                    "type": "array",
                    "description": "What it did, event by event (R37): `op` `amend`, "
                    "`insert` or `remove`, the event's `position`, `round` and `kind`, the "
                    "payload it `replaced` and the new `payload` (a hand's tiles hidden, R31).",
                    "items": {"type": "object"},
                },
                "entered_by": {"type": "string"},
                "created_at": DATE_TIME,
                "reason": {"type": "string"},
                "replaced": {"type": "array", "items": STORED_EVENT},
                "replacement": {**STORED_EVENT, "nullable": True},
            },
        },
        "state": {"$ref": "#/components/schemas/GameState"},
    },
}


class JsonSchemaDocument(serializers.Serializer[Any]):
    """A documentation-only body: ``JsonSchemaExtension`` publishes ``json_schema`` as is."""

    component_name: ClassVar[str]
    json_schema: ClassVar[Schema]


class RecordDocument(JsonSchemaDocument):
    component_name = "Record"
    json_schema = RECORD


class ResultDocument(JsonSchemaDocument):
    component_name = "Result"
    json_schema = RESULT


class ProblemDocument(JsonSchemaDocument):
    component_name = "Problem"
    json_schema = PROBLEM


class GameStateDocument(JsonSchemaDocument):
    component_name = "GameState"
    json_schema = GAME_STATE


class EventResultDocument(JsonSchemaDocument):
    component_name = "EventResult"
    json_schema = EVENT_RESULT


class CorrectionResultDocument(JsonSchemaDocument):
    component_name = "CorrectionResult"
    json_schema = CORRECTION_RESULT


class JsonSchemaExtension(OpenApiSerializerExtension):
    """Publish a ``JsonSchemaDocument`` as the component ``component_name``."""

    target_class = JsonSchemaDocument
    match_subclasses = True

    def get_name(self, auto_schema: Any, direction: Any) -> str:
        return str(self.target.component_name)

    def map_serializer(self, auto_schema: Any, direction: Any) -> Schema:
        return dict(self.target.json_schema)


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
                "detail": "JSON parse error - Expecting value: line 1 column 1 (char 0)",
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

PROBLEM_RESPONSE_GENERIC = OpenApiResponse(
    response=ProblemDocument,
    description="An RFC 9457 problem with a stable `code` (and, for a rule violation, the "
    "rule id, round and move). 409/412 after a stale version carry the current `state`.",
)


# -- corrections of any round and the organiser's rulings (R35–R38) ------------------------


class AdjustmentDocument(JsonSchemaDocument):
    component_name = "Adjustment"
    json_schema = ADJUSTMENT
