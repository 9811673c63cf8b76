"""Settings of the benchmark server: production's, plus the baseline endpoint and pooling.

Everything else is ``config.settings.production`` as deployed (DEBUG off, the
same middleware, secrets and hosts from the environment, SSL redirect on: the
load process sends ``X-Forwarded-Proto: https`` as the TLS proxy would).

``BENCH_DB_CONNECTIONS`` says how a worker holds its database connections:

- ``pool`` (default): psycopg 3's connection pool, as Django 5.2 supports it
  (``DATABASES["default"]["OPTIONS"]["pool"]``), one pool per worker process of
  ``BENCH_POOL_SIZE`` connections (the worker's thread count);
- ``persistent``: one connection per thread kept for ``CONN_MAX_AGE`` seconds.
"""

from config.settings.production import *  # noqa: F403
from config.settings.production import DATABASES, INSTALLED_APPS, env

INSTALLED_APPS = [*INSTALLED_APPS, "bench.baseline"]
ROOT_URLCONF = "bench.urls"

BENCH_DB_CONNECTIONS = env.choice("BENCH_DB_CONNECTIONS", ("pool", "persistent"), default="pool")
if BENCH_DB_CONNECTIONS == "pool":
    size = env.int("BENCH_POOL_SIZE", default=4, minimum=1)
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django refuses a pool with persistent connections
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": size,
        "max_size": size,
        "timeout": 30,
    }
else:  # persistent
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=600)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
