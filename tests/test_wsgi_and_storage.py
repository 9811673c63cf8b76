"""The serving process's garbage collector and the game table's storage settings."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest
from django.db import connection

from config.wsgi import tune_garbage_collector


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


@pytest.mark.django_db
def test_the_game_table_keeps_room_for_in_place_updates_and_its_state_uncompressed():
    if connection.vendor != "postgresql":
        pytest.skip("storage parameters are PostgreSQL's; make test runs on PostgreSQL")
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'referee_game'")
        (options,) = cursor.fetchone()
    assert sorted(options) == ["fillfactor=50", "toast_tuple_target=8160"]
