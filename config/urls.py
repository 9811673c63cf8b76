"""Root URLconf: the API under /api/v1/, the phone web form at /; API errors are problem details.

``i18n/setlang/`` is Django's ``set_language`` (the pages' language switch).
"""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/v1/", include("referee.api.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("", include("referee.web.urls")),
]

handler400 = "referee.api.problems.bad_request"
handler403 = "referee.api.problems.permission_denied"
handler404 = "referee.api.problems.page_not_found"
handler500 = "referee.api.problems.server_error"
