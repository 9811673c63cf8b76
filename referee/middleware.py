"""Text that crosses the edge in a URL or a header, checked before any view sees it."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.translation import gettext

from referee.api.parsers import text_fault
from referee.api.problems import problem, problem_response


class EdgeTextMiddleware:
    """400 for a path, query parameter or header holding NUL, a control character or a lone
    surrogate, or a query text over ``MAX_TEXT_LENGTH`` (``text_invalid``/``text_too_long``:
    a problem under ``/api/``, a plain 400 page elsewhere). A body is the parser's
    (``referee.api.parsers``) or the form's business."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        fault = self.fault(request)
        if fault is None:
            return self.get_response(request)
        if request.path_info.startswith("/api/"):
            detail = gettext("A text of the request's URL or headers cannot be kept.")
            return problem_response(problem(400, fault, detail))
        return HttpResponseBadRequest()

    @staticmethod
    def fault(request: HttpRequest) -> str | None:
        texts = [request.path_info]
        for key, values in request.GET.lists():
            texts.append(key)
            texts.extend(values)
        for text in texts:
            if (fault := text_fault(text)) is not None:
                return fault
        for key, value in request.META.items():
            # A header's bytes arrive as Latin-1, so UTF-8 text in it shows C1 controls:
            # only C0 controls (NUL…) are refused there.
            if key.startswith("HTTP_") and isinstance(value, str):
                if any(ord(ch) < 0x20 and ch != "\t" or ord(ch) == 0x7F for ch in value):
                    return "text_invalid"
        return None
