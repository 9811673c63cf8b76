#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    """Run a management command, with the local settings unless told otherwise."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.conf import settings
    from django.core.management import execute_from_command_line

    from config.settings.environment import exit_on_configuration_error

    # A malformed or missing variable is its one line, not a traceback.
    exit_on_configuration_error(lambda: settings.INSTALLED_APPS)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
