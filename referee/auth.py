"""Sign-in for organisers: django-axes throttles it before any password is checked."""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend  # type: ignore[import-untyped]
from django.http import HttpRequest


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' lockout check for every sign-in that comes with an HTTP request.

    A sign-in without a request (``manage.py`` commands, the test client's ``login``)
    cannot be guessed over the network, so there is nothing to throttle: it is left to
    the next backend instead of failing as axes' own backend does.
    """

    def authenticate(  # type: ignore[override]
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)  # type: ignore[no-any-return,func-returns-value]
