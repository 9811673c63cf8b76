"""ASGI entry point; production settings unless DJANGO_SETTINGS_MODULE says otherwise."""

import os

from django.core.asgi import get_asgi_application

from config.settings.environment import exit_on_configuration_error

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = exit_on_configuration_error(get_asgi_application)
