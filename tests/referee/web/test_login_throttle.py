"""Issue 12, item 3: organiser passwords cannot be guessed without limit (django-axes).

The hole: ``/accounts/login/`` and ``/admin/login/`` took any number of wrong passwords.
Now a username is locked from one address after ``AXES_FAILURE_LIMIT`` failures, counted
in the database (every worker, every restart), even against the right password.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import Client

from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"
LIMIT = 3


@pytest.fixture
def limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    return settings


def sign_in(url: str, username: str, password: str, address: str = "198.51.100.9"):
    return Client(REMOTE_ADDR=address).post(url, {"username": username, "password": password})


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_guessing_a_password_locks_that_username_out_even_for_the_right_one(db, limit, url):
    user = UserFactory(username="ida", is_staff=True)
    for _ in range(LIMIT - 1):
        assert sign_in(url, user.username, "guess").status_code == 200  # the form again
    assert sign_in(url, user.username, "guess").status_code == 429  # the last one allowed

    locked = sign_in(url, user.username, PASSWORD)

    assert locked.status_code == 429
    assert "_auth_user_id" not in locked.wsgi_request.session
    assert AccessAttempt.objects.get(username="ida").failures_since_start >= LIMIT


def test_the_lockout_is_per_username_and_address_so_a_club_is_not_locked_out(db, limit):
    UserFactory(username="ida")
    UserFactory(username="ayu")
    for _ in range(LIMIT):
        sign_in("/accounts/login/", "ida", "guess")

    assert sign_in("/accounts/login/", "ayu", PASSWORD).status_code == 302
    assert sign_in("/accounts/login/", "ida", PASSWORD, address="203.0.113.4").status_code == 302


def test_a_right_password_before_the_limit_signs_in_and_resets_the_count(db, limit):
    UserFactory(username="ida")
    for _ in range(LIMIT - 1):
        sign_in("/accounts/login/", "ida", "guess")

    assert sign_in("/accounts/login/", "ida", PASSWORD).status_code == 302
    assert not AccessAttempt.objects.filter(username="ida", failures_since_start__gt=0).exists()
