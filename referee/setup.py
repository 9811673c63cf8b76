"""The first run of a fresh installation: a one-time setup link instead of a terminal.

While the database has no user account, ``manage.py serve`` (``make run``) asks
``setup_link_issue`` for a link and prints it. The page it opens (``scoring.clubs``'
``first_run``) makes the first organiser's account and club, claiming the link first
(``setup_link_claim``) so that of two tabs sending the form only one wins; the link is
dead from then on. Only the key's SHA-256 is stored (``referee.models.hash_token``).
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from referee.models import SetupLink, hash_token


def setup_needed() -> bool:
    """Whether the installation is fresh: no user account at all. One query."""
    return not get_user_model().objects.exists()


@transaction.atomic
def setup_link_issue() -> str | None:
    """A new setup link's key (43 URL-safe characters), or ``None`` once an account
    exists. The unused links of earlier starts are dropped: only the last one printed
    opens the page."""
    if not setup_needed():
        return None
    SetupLink.objects.filter(used_at__isnull=True).delete()
    key = secrets.token_urlsafe(32)
    SetupLink.objects.create(key_hash=hash_token(key))
    return key


def setup_link_valid(key: str) -> bool:
    """Whether ``key`` opens the first-run page: issued, unused, and no account yet."""
    return (
        setup_needed()
        and SetupLink.objects.filter(key_hash=hash_token(key), used_at__isnull=True).exists()
    )


def setup_link_claim(key: str) -> bool:
    """Use the link up, inside the caller's transaction: ``True`` for the one request that
    claims it (a conditional UPDATE: a second tab's finds it used, on PostgreSQL and
    SQLite alike), ``False`` for an unknown, used or out-of-date key."""
    claimed = SetupLink.objects.filter(key_hash=hash_token(key), used_at__isnull=True).update(
        used_at=timezone.now()
    )
    return claimed == 1 and setup_needed()
