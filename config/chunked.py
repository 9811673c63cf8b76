"""Request bodies sent with ``Transfer-Encoding: chunked`` and no ``Content-Length``.

Django reads ``CONTENT_LENGTH`` bytes of ``wsgi.input`` and takes a body without it as
empty (issue 31: a chunked JSON body was answered as if nothing had been sent). The WSGI
server has undone the chunking already (PEP 3333); ``ChunkedBodyApplication`` reads what
it gives, up to one byte more than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (a larger body is then
Django's 413, as when it is announced), and hands it on with its length.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings

WSGIApplication = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class ChunkedBodyApplication:
    """Wrap a WSGI application: a chunked body gets its ``CONTENT_LENGTH``."""

    def __init__(self, application: WSGIApplication) -> None:
        self.application = application

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if is_chunked(environ):
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2**31
            body = environ["wsgi.input"].read(limit + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.application(environ, start_response)


def is_chunked(environ: dict[str, Any]) -> bool:
    """Whether the request's body is chunked and its length not given."""
    encoding = environ.get("HTTP_TRANSFER_ENCODING", "")
    return "chunked" in encoding.lower() and not environ.get("CONTENT_LENGTH")
