"""The one write the web form needs beyond ``referee.services``: looking a join code up.

A phone types (or scans) the join code first and picks its seat by name
second, so the code is checked before a token exists. Wrong codes count
towards the same lockout as ``referee.services.table_join`` (the same cache
counter), so the two-step join is no easier to brute-force than the API.
"""

from __future__ import annotations

from django.core.cache import cache

from referee import services
from referee.exceptions import JoinCodeInvalid, JoinLockedOut
from referee.models import Game


def normalise_join_code(text: str) -> str:
    """``k7qh-2mxp 9r`` → ``K7QH2MXP9R``: as ``table_join`` reads a code."""
    return "".join(ch for ch in text.upper() if ch.isalnum())


def join_code_check(*, join_code: str, client: str) -> Game:
    """The open game named by ``join_code``, for its seat picker.

    Raises ``join_code_invalid`` (and counts the failure for ``client``) and,
    after ``services.JOIN_FAILURES_ALLOWED`` failures, ``join_locked_out``.
    """
    lock_key = f"join-failures:{client}"  # the counter services.table_join keeps
    if cache.get(lock_key, 0) >= services.JOIN_FAILURES_ALLOWED:
        raise JoinLockedOut()
    game = Game.objects.filter(
        join_code=normalise_join_code(join_code), status=Game.Status.OPEN
    ).first()
    if game is None:
        try:
            cache.incr(lock_key)
        except ValueError:
            cache.set(lock_key, 1, services.JOIN_LOCKOUT_SECONDS)
        raise JoinCodeInvalid()
    return game
