from __future__ import annotations

import pytest
from rest_framework.test import APIClient

SCORE_URL = "/api/v1/records/score/"


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def score_url() -> str:
    return SCORE_URL
