"""``manage.py replay FILE``: print the result of a game record, or its error object."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext_noop

from referee.engine.errors import RecordInvalid, RefereeError
from referee.engine.records import replay_record

EXIT_REJECTED = 2


class Command(BaseCommand):
    help = (
        "Replay a domeng-record/1 file ('-' for standard input) and print its "
        "domeng-result/1 as JSON. A record that is malformed or that the rules make "
        f"impossible prints its error object instead and exits {EXIT_REJECTED}."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="path of the record, or '-' for standard input")

    def handle(self, *args: Any, **options: Any) -> None:
        path: str = options["file"]
        try:
            result = replay_record(self._load(path))
        except RefereeError as err:
            self._print(err.to_dict())
            sys.exit(EXIT_REJECTED)
        self._print(result)

    def _load(self, path: str) -> object:
        """The parsed JSON of ``path``; an unreadable or non-JSON file is ``record_invalid``."""
        try:
            if path == "-":
                raw = sys.stdin.buffer.read()
            else:
                with open(path, "rb") as file:
                    raw = file.read()
        except OSError as exc:
            raise RecordInvalid(
                gettext_noop("cannot read %(path)s: %(reason)s"),
                path=path,
                reason=exc.strerror or str(exc),
            ) from exc
        try:
            return json.loads(raw)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
            raise RecordInvalid(
                gettext_noop("%(path)s is not JSON: %(reason)s"), path=path, reason=exc
            ) from exc

    def _print(self, data: object) -> None:
        self.stdout.write(json.dumps(data, indent=1, ensure_ascii=False))
