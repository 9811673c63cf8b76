"""Root URLconf: the API under /api/v1/, the phone web form at /; API errors are problem details.

Every URL under ``/api/`` that no API view answers is a 404 problem (``api_not_found``),
whatever the method and whether or not ``DEBUG`` is on.

``i18n/setlang/`` is Django's ``set_language`` (the pages' language switch).
"""

from django.contrib import admin
from django.urls import include, path, re_path

from referee.api.problems import api_not_found

urlpatterns = [
    path("api/v1/", include("config.api_urls")),  # ends with its own catch-all 404
    re_path(r"^api(?:/|$)", api_not_found),  # any other /api/ URL: a 404 problem too
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("", include("scoring.web")),  # the league's pages (club standings)
    path("", include("referee.web.urls")),
]

handler400 = "referee.api.problems.bad_request"
handler403 = "referee.api.problems.permission_denied"
handler404 = "referee.api.problems.page_not_found"
handler500 = "referee.api.problems.server_error"
