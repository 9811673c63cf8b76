"""What a serving process sets up besides Django: its garbage collector.

Both entry points call it: ``config.wsgi`` (gunicorn, waitress-serve) and ``manage.py
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
