"""The OpenAPI schema and its Swagger UI: generated, valid, self-hosted, and honest."""

from __future__ import annotations

import re

from django.core.management import call_command

from referee.api.schema import EXAMPLE_RECORD, EXAMPLE_RESULT

PROBLEM = "application/problem+json"
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


def test_the_schema_generates_and_validates_without_warnings(tmp_path):
    out = tmp_path / "openapi.yaml"

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))

    assert "Domeng referee API" in out.read_text()


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

    assert {p["name"] for p in operation["parameters"]} == {"page", "page_size"}
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    page = document["components"]["schemas"][ok.rsplit("/", 1)[1]]
    item = page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]
    fields = document["components"]["schemas"][item]["properties"]
    assert set(fields) >= {"id", "status", "created_at", "players", "club", "season", "version"}


def test_an_events_fields_keep_their_documented_types(api_client):
    schemas = schema_document(api_client)["components"]["schemas"]

    move, reveal = schemas["Move"]["properties"], schemas["Reveal"]["properties"]

    assert move["seat"]["type"] == "integer"
    assert move["tile"] == {"$ref": "#/components/schemas/Tile"}
    assert schemas["Tile"]["type"] == "string"
    assert (move["on"]["type"], move["on"]["nullable"]) == ("integer", True)
    assert move["pass"]["type"] == "boolean"
    assert reveal["tiles"]["type"] == "array"
    assert reveal["pips"]["type"] == "integer"
    assert "seat" in schemas["Move"]["required"]


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
