"""Django's command line for this site: ``manage.py``, ``python -m genres_site`` and, once the
project is installed with pip, the ``genres-arena`` command all land here."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
