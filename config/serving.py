"""What a serving process sets up besides Django: its garbage collector.

Both entry points call these: ``config.wsgi`` (gunicorn, waitress-serve) and ``manage.py
serve`` (``make run``).
"""

import gc

# gc.set_threshold takes a C int.
MAX_GC_THRESHOLD = 2**31 - 1


def tune_garbage_collector(threshold: int) -> None:
    """Run the cyclic garbage collector's youngest generation every ``threshold`` net
    allocations (Python's default: 700); 0 leaves Python's default alone.

    A request leaves reference cycles behind (Django's and DRF's request and view, a
    serializer and its fields, and what hangs off them: a move's game and its state), which
    only the cyclic collector frees. At 700 it ran every request or two and promoted a
    request's live objects to the older generations, whose collections walk everything
    the worker holds: measured in-process (``time.thread_time``, interleaved with the bare
    INSERT), ≈ 0.2–0.4 ms of a move's CPU at 700, ≈ 0.1 ms at 10,000; the cycles wait a
    few dozen requests longer (a few hundred KB at most). ``GC_THRESHOLD`` in the
    environment sets it, 0 to ``MAX_GC_THRESHOLD`` (``bench/ANALYSIS.md``).
    """
    if threshold > 0:
        gc.set_threshold(threshold, *gc.get_threshold()[1:])


def freeze_loaded_objects() -> int:
    """Load every view (the URLconf) and move what is loaded by now — Django, DRF, the
    apps, their URLs, views and serializers — out of the cyclic collector's reach
    (``gc.freeze``); returns how many objects that was.

    They live as long as the process, yet each collection of the oldest generation walked
    them all: ≈ 170,000 objects, 110–150 ms with every thread of the worker stopped, once
    every couple of thousand requests (measured in-process with ``gc.callbacks``; a few
    percent of a request's CPU, and the worst of the open loop's tail). Only objects made
    after this are collected. Called once the application is built.
    """
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 -- imports every view and its serializers
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
