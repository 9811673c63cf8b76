"""Real threads released together, for the races the suite runs on PostgreSQL.

One helper for every race test: ``run_together(count, work)`` starts ``count``
threads, holds them at a barrier, then runs ``work(index)`` in each (index 0 to
``count - 1``) and returns what each returned or raised, in index order. Each
thread closes its own database connection when it ends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def run_together(
    count: int,
    work: Callable[[int], Any],
    *,
    timeout: float = 60,
    failed: threading.Event | None = None,
) -> list[Any]:
    """Run ``work(0)``…``work(count - 1)`` in threads released together; their results.

    A thread's exception is its result (the test asserts on it). ``failed``, when
    given, is set as soon as one thread raises, so threads waiting for their turn
    can give up. Fails if a thread is still alive after ``timeout`` seconds.
    """
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def target(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = work(index)
        except BaseException as exc:  # noqa: BLE001 - handed to the test to assert on
            results[index] = exc
            if failed is not None:
                failed.set()
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads)
    return results
