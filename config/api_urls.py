"""The ``/api/v1/`` root: the referee's API and the league's, composed here (the referee
never names the league), with the OpenAPI schema and docs, under the ``api`` namespace.

The league depends on the referee, never the reverse (import-linter contract
``league-listens``): so neither API's URL conf includes the other's.
"""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from referee.api import urls as referee_api
from referee.api.problems import api_not_found
from scoring.api import urls as league_api

app_name = "api"

urlpatterns = [
    *referee_api.urlpatterns,
    *league_api.urlpatterns,  # league records: clubs, standings, ratings
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    # Last: any other URL, any method, is a 404 problem (never Django's HTML page or an
    # APPEND_SLASH redirect). A plain Django view, so not in the OpenAPI schema.
    re_path(r"^.*$", api_not_found, name="not-found"),
]
