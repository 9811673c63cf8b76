"""The OpenAPI schema and its Swagger UI: documented, self-hosted and honest."""

from __future__ import annotations

import json
import re

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from referee import conditional
from referee.api.schema import CONDITIONAL_HEADER, EXAMPLE_RECORD, EXAMPLE_RESULT

PROBLEM = "application/problem+json"
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


def test_the_score_operation_documents_its_record_result_and_problems(api_client, score_url):
    schema = api_client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    document = schema.json()

    operation = document["paths"][score_url]["post"]

    assert operation["requestBody"]["required"] is True
    request = operation["requestBody"]["content"]["application/json"]
    assert request["schema"] == {"$ref": "#/components/schemas/Record"}
    assert request["examples"]
    ok = operation["responses"]["200"]["content"]["application/json"]
    assert ok["schema"] == {"$ref": "#/components/schemas/Result"}
    assert ok["examples"]
    for status in ("400", "422"):
        problem = operation["responses"][status]["content"][PROBLEM]
        assert problem["schema"] == PROBLEM_REF
        assert problem["examples"]
    assert {"Record", "Result", "Problem"} <= document["components"]["schemas"].keys()


def schema_document(api_client):
    schema = api_client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    return schema.json()


def test_the_apis_catch_all_404_route_is_not_documented(api_client):
    paths = schema_document(api_client)["paths"]

    assert all(re.fullmatch(r"/api/v1/[a-z0-9_/{}-]*/", path) for path in paths), sorted(paths)
    assert not any("*" in path or "^" in path for path in paths)


def test_the_list_of_games_is_documented_with_its_fields_and_pages(api_client):
    document = schema_document(api_client)

    operation = document["paths"]["/api/v1/games/"]["get"]

    assert {p["name"] for p in operation["parameters"]} == {"cursor", "page_size"}
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    page = document["components"]["schemas"][ok.rsplit("/", 1)[1]]
    assert set(page["properties"]) == {"next", "previous", "results"}  # a cursor page
    item = page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]
    fields = document["components"]["schemas"][item]["properties"]
    assert set(fields) >= {"id", "status", "created_at", "players", "club", "season", "version"}


def test_the_schema_says_instants_are_utc_and_documents_a_clubs_time_zone(api_client):
    """Issue 28: the API keeps UTC; a club's ``time_zone`` is read and written, its dates
    (``played_after``, ``played_before``) are local."""
    document = schema_document(api_client)
    schemas = document["components"]["schemas"]

    assert "answered in UTC" in document["info"]["description"]
    assert "IANA" in schemas["Club"]["properties"]["time_zone"]["description"]
    assert "time_zone" in schemas["ClubCreate"]["properties"]
    assert "time_zone" in schemas["PatchedClubUpdate"]["properties"]
    standings = document["paths"]["/api/v1/clubs/{slug}/standings/"]["get"]["parameters"]
    after = next(p for p in standings if p["name"] == "played_after")
    assert "local date" in after["description"]


def test_an_events_fields_keep_their_documented_types(api_client):
    schemas = schema_document(api_client)["components"]["schemas"]

    play, pass_ = schemas["MovePlay"]["properties"], schemas["MovePass"]["properties"]
    reveal = schemas["Reveal"]["properties"]

    assert play["seat"]["type"] == pass_["seat"]["type"] == "integer"
    assert play["tile"]["allOf"] == [{"$ref": "#/components/schemas/Tile"}]
    assert schemas["Tile"]["type"] == "string"
    assert play["on"]["type"] == ["integer", "null"]  # OpenAPI 3.1: no `nullable` (issue 31)
    assert pass_["pass"] == {**pass_["pass"], "type": "boolean", "const": True}
    assert reveal["tiles"]["type"] == "array"
    assert reveal["pips"]["type"] == "integer"


def test_a_move_is_a_play_or_a_pass_never_both_nor_neither(api_client):
    """Issue 31: ``oneOf`` a play ``{seat, tile, on?}`` and a pass ``{seat, pass: true}``
    (R9), each refusing any other field, so a body the rules core refuses as neither
    (``record_invalid``) is one the schema refuses too."""
    schemas = schema_document(api_client)["components"]["schemas"]
    prefix = "#/components/schemas/"

    assert schemas["Move"]["oneOf"] == [
        {"$ref": prefix + "MovePlay"},
        {"$ref": prefix + "MovePass"},
    ]
    assert schemas["MovePlay"]["required"] == ["seat", "tile"]
    assert schemas["MovePass"]["required"] == ["seat", "pass"]
    assert "pass" not in schemas["MovePlay"]["properties"]
    assert not {"tile", "on"} & set(schemas["MovePass"]["properties"])
    assert schemas["MovePlay"]["additionalProperties"] is False
    assert schemas["MovePass"]["additionalProperties"] is False


def test_a_records_moves_are_each_a_play_or_a_pass_never_both_nor_neither(api_client):
    """Issue 31: ``anyOf`` a play and a pass, which no move can both be (each refuses the
    other's field), so it says what ``oneOf`` would (R9)."""
    schemas = schema_document(api_client)["components"]["schemas"]
    prefix = "#/components/schemas/"

    assert schemas["RecordRound"]["properties"]["moves"]["items"] == {
        "anyOf": [{"$ref": prefix + "Play"}, {"$ref": prefix + "Pass"}]
    }
    assert schemas["Play"]["additionalProperties"] is False
    assert schemas["Pass"]["additionalProperties"] is False
    assert "tile" in schemas["Play"]["required"]
    assert "tile" not in schemas["Pass"]["properties"]
    assert "pass" in schemas["Pass"]["required"]
    assert "pass" not in schemas["Play"]["properties"]


@pytest.mark.parametrize("path", ["/api/v1/games/", "/api/v1/games/import/"])
def test_a_new_games_answer_links_to_every_operation_on_that_game(api_client, path):
    """Issue 31: the 201 of a game's creation links, by the answer's ``id``, to each
    operation with a ``game_id`` (its state, moves, record, result, rounds…), and to no
    other; every link names an operation of the document."""
    document = schema_document(api_client)
    operations = {
        operation["operationId"]: operation
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    on_a_game = {
        name
        for name, operation in operations.items()
        if any(p["in"] == "path" and p["name"] == "game_id" for p in operation["parameters"])
    }

    links = document["paths"][path]["post"]["responses"]["201"]["links"]

    assert set(links) == on_a_game
    assert {"games_state", "games_moves_create", "games_result", "games_rounds_void"} <= on_a_game
    for name, link in links.items():
        assert link["operationId"] == name
        assert name in operations
        assert link["parameters"] == {"game_id": "$response.body#/id"}


def _bodies(document, *, with_arrays=False):
    """Each operation with a request body (``with_arrays``: one holding an array)."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            if not with_arrays or _holds_an_array(document, operation["requestBody"], set()):
                yield path, method.upper()


def _holds_an_array(document, node, seen):
    if isinstance(node, list):
        return any(_holds_an_array(document, item, seen) for item in node)
    if not isinstance(node, dict):
        return False
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return False
        seen.add(name)
        return _holds_an_array(document, document["components"]["schemas"][name], seen)
    kind = node.get("type")
    if kind == "array" or (isinstance(kind, list) and "array" in kind):
        return True
    return any(_holds_an_array(document, value, seen) for value in node.values())


# Invalid bodies are the mutations of many parts, so more are drawn (100 found the moves'),
# of the bodies holding an array: the values whose invalid forms were not generable.
@pytest.mark.parametrize(
    ("mode", "examples", "with_arrays"), [("positive", 25, False), ("negative", 100, True)]
)
def test_every_request_body_can_be_generated_valid_and_invalid(
    api_client, mode, examples, with_arrays
):
    """Issue 31: every body the schema declares is one schemathesis can generate, valid
    and invalid (a record's moves as ``oneOf`` two ``$ref``s were not: "Cannot generate an
    array with 1 demanded elements" for PUT …/record/ and POST /games/import/)."""
    document = schema_document(api_client)
    schema = schemathesis.openapi.from_dict(document)
    generation = GenerationMode.POSITIVE if mode == "positive" else GenerationMode.NEGATIVE
    operations = sorted(_bodies(document, with_arrays=with_arrays))
    assert ("/api/v1/games/{game_id}/record/", "PUT") in operations

    for path, method in operations:
        strategy = schema[path][method].as_strategy(generation_mode=generation)
        try:
            _draw_from(strategy, examples)()
        except Exception as error:
            error.add_note(f"{method} {path}, {mode}")
            raise


def _draw_from(strategy, examples):
    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def draw(data):
        data.draw(strategy)

    return draw


def test_the_docs_page_loads_everything_from_this_server(client):
    response = client.get("/api/v1/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html), html
    assert not re.search(r"""["'](?:https?:)?//[^"']*(?:cdn|unpkg|jsdelivr)""", html), html


def test_the_documented_example_record_scores_to_the_documented_example_result(
    api_client, score_url
):
    response = api_client.post(score_url, EXAMPLE_RECORD, format="json")

    assert response.status_code == 200
    assert response.json() == EXAMPLE_RESULT


# -- the schema tells the truth (issue 16 items 1, issue 12 item 6) ----------------------------

REF_PREFIX = "#/components/schemas/"
METHODS = ("get", "post", "put", "patch", "delete")


def _view_of(path: str) -> type:
    """The view class answering a schema ``path`` (its parameters filled in)."""
    import re
    import uuid

    from django.urls import resolve

    values = {"game_id": str(uuid.uuid4()), "slug": "club"}
    filled = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "1"), path)
    return resolve(filled).func.view_class  # type: ignore[attr-defined]


def operations(document):
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def refs(node):
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def component_of(document, schema):
    name = schema["$ref"].removeprefix(REF_PREFIX)
    return name, document["components"]["schemas"][name]


def test_every_reference_resolves_however_often_the_schema_is_served(api_client):
    first, second = schema_document(api_client), schema_document(api_client)

    assert first == second
    schemas = second["components"]["schemas"]
    missing = {r for r in refs(second) if r.removeprefix(REF_PREFIX) not in schemas}
    assert missing == set()
    assert {"RecordFormatEnum", "ResultFormatEnum"} <= schemas.keys()


def test_every_body_and_field_is_typed(api_client):
    document = schema_document(api_client)

    untyped = [
        f"{name}.{field}"
        for name, component in document["components"]["schemas"].items()
        for field, schema in component.get("properties", {}).items()
        if not {"type", "$ref", "allOf", "oneOf", "anyOf"} & schema.keys()
    ]
    loose = [
        name
        for name, component in document["components"]["schemas"].items()
        if component.get("additionalProperties") is True
    ]
    free_form = [
        f"{method.upper()} {path} {status}"
        for path, method, operation in operations(document)
        for status, response in operation["responses"].items()
        for content in response.get("content", {}).values()
        if content["schema"].get("type") == "object" and "properties" not in content["schema"]
    ]

    assert untyped == []
    assert free_form == []
    assert loose == ["RefusedPayload"]  # a refused event as sent: malformed, maybe
    assert document["components"]["schemas"]["GameCreated"]["properties"]["state"] == {
        "$ref": REF_PREFIX + "GameState"
    }


def test_the_shared_shapes_are_one_component_each(api_client):
    schemas = schema_document(api_client)["components"]["schemas"]
    text = json.dumps(schemas)

    assert text.count('"passebunge", "cappu"') == 1  # the transfer reasons: TransferReason
    assert text.count('"awaiting_lead", "in_play"') == 1  # RoundStatus
    for name in ("Transfer", "Outcome", "StoredEvent", "Session", "AuditTrail", "Tile"):
        assert name in schemas
    assert schemas["Problem"]["properties"]["state"] == {"$ref": REF_PREFIX + "GameState"}


def test_every_request_body_refuses_unknown_fields_and_says_so(api_client):
    document = schema_document(api_client)

    bodies = [
        component_of(document, content["schema"])
        for _, _, operation in operations(document)
        for content in operation.get("requestBody", {}).get("content", {}).values()
    ]

    def refuses_unknown(body):
        if "oneOf" in body:  # e.g. an import: a record, or a record with its league fields
            return all(
                refuses_unknown(component_of(document, alt)[1] if "$ref" in alt else alt)
                for alt in body["oneOf"]
            )
        return body.get("additionalProperties") is False

    assert len({name for name, _ in bodies}) >= 17
    assert [name for name, body in bodies if not refuses_unknown(body)] == []
    descriptions = {body.get("description", "") for _, body in bodies}
    assert not any("refuses fields it does not know" in d for d in descriptions)


def test_an_unknown_field_is_refused_as_the_schema_says(organiser_client):
    response = organiser_client.post(
        "/api/v1/games/", {"players": ["A", "B", "C", "D", "E"], "colour": "red"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "colour"


def test_every_operation_documents_the_problems_it_can_meet(api_client):
    document = schema_document(api_client)

    gaps = []
    for path, method, operation in operations(document):
        responses = operation["responses"]
        expected = {"406", "429", "503"}
        if "requestBody" in operation:
            expected |= {"400", "413", "415"}
        if operation.get("security"):
            expected |= {"401", "403"}
        if "{" in path:
            expected.add("404")
        gaps += [f"{method.upper()} {path} {s}" for s in sorted(expected - responses.keys())]
        for status, response in responses.items():
            if int(status) >= 400:
                assert list(response["content"]) == [PROBLEM], (path, status)
                assert response["content"][PROBLEM]["schema"] == PROBLEM_REF, (path, status)
                assert response["description"], (path, status)
        for status in ("429", "503"):
            assert responses[status]["headers"]["Retry-After"]["schema"]["type"] == "integer"

    assert gaps == []


def test_writes_document_their_headers_and_stale_versions(api_client):
    paths = schema_document(api_client)["paths"]

    move = paths["/api/v1/games/{game_id}/moves/"]["post"]
    state = paths["/api/v1/games/{game_id}/"]["get"]

    assert {p["name"] for p in move["parameters"] if p["in"] == "header"} == {
        "Idempotency-Key",
        "If-Match",
        "If-None-Match",  # on a write: 412 when it names the current version (RFC 9110)
    }
    assert {"409", "412", "422"} <= move["responses"].keys()
    assert "ETag" in move["responses"]["201"]["headers"]
    assert "If-None-Match" in {p["name"] for p in state["parameters"]}
    assert "content" not in state["responses"]["304"]
    assert "ETag" in state["responses"]["304"]["headers"]


def test_each_operation_lists_only_the_credentials_it_accepts(api_client):
    document = schema_document(api_client)

    security = {
        operation["operationId"]: [next(iter(s), None) for s in operation.get("security", [])]
        for _, _, operation in operations(document)
    }

    assert "security" not in document["paths"]["/api/v1/records/score/"]["post"]
    assert "security" not in document["paths"]["/api/v1/join/"]["post"]
    for organiser_only in ("games_create", "games_list", "games_import", "clubs_create"):
        assert security[organiser_only] == ["tokenAuth", "cookieAuth"], organiser_only
    # A game's organiser operations refuse a phone with 403 before its body (R35–R39).
    refused_to_phones = [
        (path, method)
        for path, method, _operation in operations(document)
        if method.upper() in getattr(_view_of(path), "organiser_only_methods", ())
    ]
    assert len(refused_to_phones) == 11
    for path, method in refused_to_phones:
        operation = document["paths"][path][method]
        assert security[operation["operationId"]] == ["tokenAuth", "cookieAuth"], (path, method)
    assert security["games_moves_create"] == ["tableToken", "tokenAuth", "cookieAuth"]
    assert security["clubs_standings"] == ["tableToken", "tokenAuth", "cookieAuth", None]


def test_a_table_token_is_refused_where_the_schema_leaves_it_out(table):
    response = table.scorekeeper.post("/api/v1/games/", {"players": list("ABCDE")}, format="json")

    assert response.status_code == 403
    assert table.scorekeeper.get(table.url()).status_code == 200  # where it is listed


PAGED = ["/api/v1/clubs/"]
# Lists that grow while they are read page by cursor (issue 32; tests/scoring/api/test_paging.py).
CURSOR_PAGED = [
    "/api/v1/games/",
    "/api/v1/clubs/{slug}/games/",
    "/api/v1/clubs/{slug}/players/{id}/rounds/",
    "/api/v1/clubs/{slug}/players/{id}/games/",
]


@pytest.mark.parametrize("path", CURSOR_PAGED)
def test_cursor_paging_parameters_are_bounded_in_the_schema(api_client, path):
    operation = schema_document(api_client)["paths"][path]["get"]

    bounds = {p["name"]: p["schema"] for p in operation["parameters"]}

    assert bounds["page_size"] == {"type": "integer", "minimum": 1, "maximum": 500}
    assert bounds["cursor"]["maxLength"] == 400
    assert "page" not in bounds  # a page number would shift as the list grows


@pytest.mark.parametrize("path", PAGED)
def test_paging_parameters_are_bounded_in_the_schema(api_client, path):
    operation = schema_document(api_client)["paths"][path]["get"]

    bounds = {p["name"]: p["schema"] for p in operation["parameters"]}

    assert bounds["page_size"] == {"type": "integer", "minimum": 1, "maximum": 500}
    assert bounds["page"]["minimum"] == 1
    assert "404" in operation["responses"]  # a page past the last


@pytest.mark.parametrize("path", PAGED)
@pytest.mark.parametrize(
    "query",
    [
        "page_size=0",
        "page_size=501",
        "page_size=-1",
        "page_size=ten",
        "page_size=1e3",
        "page=0",
        "page=x",
        "page=99999999999999999999",
    ],
)
def test_out_of_range_paging_is_a_400_problem_naming_the_parameter(organiser_client, path, query):
    response = organiser_client.get(f"{path}?{query}")

    assert response.status_code == 400, response.content
    assert response["Content-Type"] == PROBLEM
    assert response.json()["errors"][0]["field"] == query.split("=")[0]


@pytest.mark.parametrize("path", PAGED)
def test_paging_within_the_bounds_is_answered(organiser_client, path):
    assert organiser_client.get(f"{path}?page=1&page_size=500").status_code == 200
    assert organiser_client.get(f"{path}?page_size=1").status_code == 200


def test_closing_a_game_declares_its_if_match_required(api_client):
    """Issue 31: a close without ``If-Match`` is 428 ``precondition_required``, so the
    schema says the header is required (and not blank), not optional."""
    operation = schema_document(api_client)["paths"]["/api/v1/games/{game_id}/close/"]["post"]

    (if_match,) = [p for p in operation["parameters"] if p["name"] == "If-Match"]

    assert if_match["required"] is True
    assert if_match["schema"]["minLength"] == 1
    assert "428" in operation["responses"]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=['"', "3", "W", "/", ",", " ", "\t", "*", "x", "\x80", "\x7f"], max_size=9))
def test_the_conditional_headers_pattern_is_what_the_server_reads(value):
    """Issue 31: ``If-Match``/``If-None-Match`` declare RFC 9110's grammar, ``*`` or a
    list of entity tags (empty is no header), exactly the values ``referee.conditional``
    reads; any other is 400 ``precondition_invalid``, which no schema-valid one meets."""
    try:
        conditional.conditions_of(if_match=value, if_none_match=None)
        read = True
    except conditional.ConditionalHeaderInvalid:
        read = False

    assert bool(re.search(CONDITIONAL_HEADER["pattern"], value)) == read
