"""Root URLconf: the API under /api/v1/; API errors are problem details (referee.api.problems)."""

from django.urls import include, path

urlpatterns = [
    path("api/v1/", include("referee.api.urls")),
]

handler400 = "referee.api.problems.bad_request"
handler403 = "referee.api.problems.permission_denied"
handler404 = "referee.api.problems.page_not_found"
handler500 = "referee.api.problems.server_error"
