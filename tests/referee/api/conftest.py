from __future__ import annotations

import pytest
from rest_framework.test import APIClient

SCORE_URL = "/api/v1/records/score/"


@pytest.fixture
def api_client(db: None) -> APIClient:
    """A client of the public API; its throttle counts in the database cache (issue 12)."""
    return APIClient()


@pytest.fixture
def score_url() -> str:
    return SCORE_URL
