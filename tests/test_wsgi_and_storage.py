"""The serving process's garbage collector (its threshold, what it leaves alone) and the game
table's storage settings."""

from __future__ import annotations

import gc
import io
import os
import subprocess
import sys

import pytest
from django.db import connection

from config.serving import tune_garbage_collector


def test_the_collectors_youngest_threshold_is_raised_and_zero_leaves_it():
    before = gc.get_threshold()
    try:
        tune_garbage_collector(12_345)
        assert gc.get_threshold() == (12_345, *before[1:])
        tune_garbage_collector(0)
        assert gc.get_threshold() == (12_345, *before[1:])
    finally:
        gc.set_threshold(*before)


@pytest.mark.parametrize(("variable", "threshold"), [(None, 10_000), ("4321", 4321), ("0", 700)])
def test_the_wsgi_application_sets_the_threshold_of_gc_threshold(variable, threshold):
    env = {k: v for k, v in os.environ.items() if k != "GC_THRESHOLD"}
    env["DJANGO_SETTINGS_MODULE"] = settings_module = os.environ["DJANGO_SETTINGS_MODULE"]
    if variable is not None:
        env["GC_THRESHOLD"] = variable
    code = "import gc, config.wsgi; print(gc.get_threshold()[0])"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (settings_module, done.stderr[-2000:])
    assert int(done.stdout.split()[-1]) == threshold


def test_the_wsgi_application_keeps_what_it_loaded_out_of_the_collectors_walks():
    env = {**os.environ}
    code = (
        "import gc; before = gc.get_freeze_count(); import config.wsgi, sys; "
        "print(before, gc.get_freeze_count(), 'referee.api.games' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    before, frozen, views_loaded = done.stdout.split()[-3:]
    assert (int(before), views_loaded) == (0, "True")  # the URLconf's views, loaded at start
    assert int(frozen) > 50_000  # Django, DRF and the apps: ≈ 170,000 objects


def test_a_threshold_past_a_c_int_is_a_one_line_configuration_error():
    env = {**os.environ, "GC_THRESHOLD": str(2**31)}
    code = "import config.wsgi"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]
    assert "GC_THRESHOLD" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.django_db  # serve asks whether the first run's link is needed
def test_make_runs_server_sets_the_threshold_too(monkeypatch, settings):
    """``manage.py serve`` (``make run``) builds its own application: it tunes as config.wsgi."""
    import waitress
    from django.core.management import call_command

    seen = []
    monkeypatch.setattr(
        waitress,
        "serve",
        lambda app, **kw: seen.append((gc.get_threshold(), gc.get_freeze_count() > 0)),
    )
    settings.GC_THRESHOLD = 4321
    before = gc.get_threshold()
    try:
        call_command("serve", "--port", "8999", stdout=io.StringIO())
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()  # this test process's objects go back to the collector
    assert seen == [((4321, *before[1:]), True)]


@pytest.mark.django_db
def test_the_game_table_keeps_room_for_in_place_updates_and_its_state_uncompressed():
    if connection.vendor != "postgresql":
        pytest.skip("storage parameters are PostgreSQL's; make test runs on PostgreSQL")
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'referee_game'")
        (options,) = cursor.fetchone()
    assert sorted(options) == ["fillfactor=50", "toast_tuple_target=8160"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/games/", "/api/v1/nope/"])
def test_a_head_answer_has_the_headers_of_get_and_no_body(path):
    """Through the WSGI application as a server calls it (the test client drops HEAD
    bodies itself): waitress sent the body, which a kept-alive client read as the next
    answer (QA)."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory

    def call(method):
        environ = RequestFactory().generic(method, path, secure=True).environ
        seen = {}

        def start_response(status, headers, exc_info=None):
            seen["status"], seen["headers"] = status, dict(headers)

        body = b"".join(WSGIHandler()(environ, start_response))
        return seen["status"], seen["headers"], body

    get_status, get_headers, get_body = call("GET")
    status, headers, body = call("HEAD")
    assert body == b""
    assert status == get_status
    if "Content-Length" in get_headers:
        assert headers["Content-Length"] == get_headers["Content-Length"] == str(len(get_body))
