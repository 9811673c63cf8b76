"""``manage.py serve``: the referee for a real table, under waitress (``make run``).

Prints where the phones and the organiser open it, with a QR code of the phones'
address in the terminal (and, on a database with no account yet, the first run's
one-time link, ``referee.setup``, made anew at each start), then serves until Ctrl-C. Run it with
``config.settings.table`` (DEBUG off, whitenoise): ``make run`` does.
"""

from __future__ import annotations

import io
from typing import Any

import segno
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.core.wsgi import get_wsgi_application
from django.db import DatabaseError
from django.urls import reverse

from config.serving import freeze_loaded_objects, tune_garbage_collector
from referee.setup import setup_link_issue
from referee.web import lan


class Command(BaseCommand):
    help = "Serve the referee at a table with waitress; print the phones' address and QR code."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="0.0.0.0: every interface")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--threads", type=int, default=8, help="waitress worker threads")
        parser.add_argument(
            "--dry-run", action="store_true", help="print the addresses, do not serve"
        )

    def handle(self, *args: Any, host: str, port: int, threads: int, **options: Any) -> None:
        if settings.DEBUG:
            self.stderr.write(
                "WARNING: DEBUG is on: every phone would see debug pages. "
                "Use config.settings.table (make run)."
            )
        here = f"http://127.0.0.1:{port}/"
        on_lan = not lan.is_loopback(host)
        address = lan.lan_address() if host in {"0.0.0.0", "::", ""} else host
        self.stdout.write(f"Domeng referee: {here} on this computer (organiser: {here}games/)")
        if on_lan and address and not lan.is_loopback(address):
            phones = f"http://{address}:{port}/"
            self.stdout.write(f"Phones at the table (same Wi-Fi): {phones}")
            self.stdout.write(f"Organiser's page for the phones' QR code: {phones}games/")
            qr = io.StringIO()
            segno.make(phones, error="m").terminal(out=qr, compact=True)
            self.stdout.write(qr.getvalue(), ending="")
        elif on_lan:
            self.stdout.write(
                "No network address found: connect this computer to the table's Wi-Fi "
                "(or set DOMENG_LAN_HOST) so the phones can reach it."
            )
        else:
            self.stdout.write(
                "Only this computer can open it. For the table's phones: make run LAN=1 "
                "(listens on the Wi-Fi and prints the address and a QR code)."
            )
        self._first_run(here)
        if options["dry_run"]:
            return
        from waitress import serve

        self.stdout.write("Ctrl-C stops it.")
        self.stdout.flush()
        try:
            application = get_wsgi_application()
            tune_garbage_collector(settings.GC_THRESHOLD)  # as config.wsgi does
            freeze_loaded_objects()
            serve(application, host=host, port=port, threads=threads, ident="domeng")
        except KeyboardInterrupt:
            self.stdout.write("Stopped.")

    def _first_run(self, here: str) -> None:
        """Print the first run's one-time link while the database has no account."""
        try:
            key = setup_link_issue()
        except DatabaseError:  # not migrated yet: make run migrates first
            self.stderr.write("The database is not ready: run manage.py migrate first.")
            return
        if key is None:
            return
        path = reverse("league:first-run", kwargs={"key": key}).lstrip("/")
        self.stdout.write(
            f"First run: open {here}{path} to create the organiser's account and the club "
            "(this link works once; a new one is printed at each start until then)."
        )
