"""``make bench``: the referee's benchmarks on PostgreSQL, written to BENCHMARKS.md.

``python -m bench`` (``bench/__main__.py``) runs them all; each part is a module:
``core`` (the rules core alone), ``load`` (the load process that plays games over
HTTP), ``server`` (the database and gunicorn), ``profiling`` (one move request),
``league`` (standings and histories) and ``report`` (the Markdown). ``settings``
and ``urls`` are the benchmark server's: production's plus the baseline endpoint
(``bench.baseline``), which never ships in the production URLconf.
"""
