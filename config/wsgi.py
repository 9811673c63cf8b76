"""WSGI entry point; production settings unless DJANGO_SETTINGS_MODULE says otherwise."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from config.chunked import ChunkedBodyApplication
from config.serving import freeze_loaded_objects, tune_garbage_collector
from config.settings.environment import exit_on_configuration_error

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = ChunkedBodyApplication(exit_on_configuration_error(get_wsgi_application))
tune_garbage_collector(settings.GC_THRESHOLD)
freeze_loaded_objects()
