"""The benchmark server's URLconf: the production one plus ``/bench/baseline/``."""

from django.urls import path

from bench.baseline.views import BaselineView
from config.urls import handler400, handler403, handler404, handler500, urlpatterns

urlpatterns = [path("bench/baseline/", BaselineView.as_view(), name="bench-baseline"), *urlpatterns]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
