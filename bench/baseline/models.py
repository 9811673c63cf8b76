"""The baseline's one table: a row per request, holding the request's JSON body."""

from django.db import models


class Ping(models.Model):
    """One baseline request: its body, as a move's event row holds its payload."""

    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"ping {self.pk}"
