"""``POST /bench/baseline/``: parse a JSON body, INSERT it in one transaction, answer 201.

The least a DRF write can do on this stack (same middleware, renderer,
exception handler and connection handling as the API); no authentication.
The load benchmark reports a move's cost as a multiple of this one.
"""

from typing import Any

from django.db import transaction
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bench.baseline.models import Ping


class BaselineView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    def post(self, request: Request) -> Response:
        with transaction.atomic():
            ping = Ping.objects.create(payload=request.data)
        return Response({"id": ping.pk}, status=201)
