"""A chunked request body (no ``Content-Length``) is read like any other (issue 31)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import override_settings

from config.chunked import ChunkedBodyApplication, is_chunked

RECORD = {
    "format": "domeng-record/1",
    "players": ["Andi", "Besse", "Cakra", "Daeng", "Evi"],
    "rounds": [{"moves": [{"seat": 2, "tile": "6-6"}]}],
}


@pytest.fixture
def _keep_the_test_transaction() -> Any:
    """Like Django's test client: a WSGI call must not close the test's connection."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def _environ(body: bytes, **extra: str) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/v1/records/score/",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "HTTP_HOST": "localhost",
        "CONTENT_TYPE": "application/json",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
        **extra,
    }


def _call(app: Any, environ: dict[str, Any]) -> tuple[str, bytes]:
    status: list[str] = []
    body = b"".join(app(environ, lambda s, headers, exc_info=None: status.append(s)))
    return status[0], body


def test_only_a_chunked_body_without_a_length_is_chunked():
    assert is_chunked({"HTTP_TRANSFER_ENCODING": "chunked"})
    assert is_chunked({"HTTP_TRANSFER_ENCODING": "gzip, Chunked", "CONTENT_LENGTH": ""})
    assert not is_chunked({"HTTP_TRANSFER_ENCODING": "chunked", "CONTENT_LENGTH": "3"})
    assert not is_chunked({})


@pytest.mark.django_db
@pytest.mark.usefixtures("_keep_the_test_transaction")
def test_a_chunked_record_is_scored_not_read_as_empty():
    app = ChunkedBodyApplication(get_wsgi_application())
    body = json.dumps(RECORD).encode()
    status, answer = _call(app, _environ(body, HTTP_TRANSFER_ENCODING="chunked"))
    assert status.startswith("200"), answer
    assert json.loads(answer)["format"] == "domeng-result/1"


@pytest.mark.django_db
@pytest.mark.usefixtures("_keep_the_test_transaction")
def test_without_the_wrapper_the_same_body_is_lost():
    """What the wrapper is for: Django alone reads no ``CONTENT_LENGTH`` as no body."""
    body = json.dumps(RECORD).encode()
    status, _answer = _call(
        get_wsgi_application(), _environ(body, HTTP_TRANSFER_ENCODING="chunked")
    )
    assert not status.startswith("200")


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=10)
def test_a_chunked_body_is_read_no_further_than_one_byte_past_the_limit():
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(length=environ["CONTENT_LENGTH"], body=environ["wsgi.input"].read())
        start_response("200 OK", [])
        return []

    ChunkedBodyApplication(app)(
        {"HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input": io.BytesIO(b"x" * 100)}, lambda *a: None
    )
    assert seen == {"length": "11", "body": b"x" * 11}


# A socket or coroutine of an earlier asyncio test torn down by the garbage collector
# while this one runs is reported here as unraisable (seen only in the whole suite on a
# loaded machine); what this test asserts is unaffected.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_served_application_is_wrapped():
    import config.wsgi

    assert isinstance(config.wsgi.application, ChunkedBodyApplication)
