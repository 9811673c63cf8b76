"""Which language a page speaks when the browser names none the project has.

Django's ``LocaleMiddleware`` picks the language of every request: the language switch's
cookie, else the first ``Accept-Language`` tag the project supports (en, fr, pl, id, a
regional variant falling back to its language), else the server's ``LANGUAGE_CODE``. A
club's own pages (its room view, standings and organiser's pages, and the phones' pages
of its games) put the club's language (``scoring.Club.language``) in place of that last
step: the rule is *the browser's choice first, then the club's, then the server's*.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header


def default_language() -> str:
    """A new club's language: the server's ``LANGUAGE_CODE``."""
    return str(settings.LANGUAGE_CODE)


def _supported(tag: str) -> bool:
    try:
        translation.get_supported_language_variant(tag)
    except LookupError:
        return False
    return True


def browser_chose(request: HttpRequest) -> bool:
    """Whether the request names a language the project has: the language switch's cookie,
    or an ``Accept-Language`` tag (``*`` names none)."""
    cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if cookie and _supported(cookie):
        return True
    header = request.META.get("HTTP_ACCEPT_LANGUAGE", "")
    return any(tag != "*" and _supported(tag) for tag, _ in parse_accept_lang_header(header))


def speak_by_default(request: HttpRequest, language: str | None) -> None:
    """Draw this request's page in ``language`` (a club's) unless the browser chose one the
    project has (``browser_chose``); an unknown ``language`` changes nothing."""
    if not language or not _supported(language) or browser_chose(request):
        return
    translation.activate(language)
    request.LANGUAGE_CODE = translation.get_language()  # type: ignore[attr-defined]
