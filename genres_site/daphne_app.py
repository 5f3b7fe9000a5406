"""daphne's app, for its ``runserver`` (which serves the websockets too in development), without its server.

daphne's own AppConfig module imports ``daphne.server``, and with it twisted (0.4 CPU s), in every
process that loads the apps, so as to install twisted's reactor before anything else imports one.
Here only ``runserver`` serves with daphne, and its command module imports the server itself
(before anything imports twisted: nothing else in the app does). daphne's system check
(daphne.E001) is left out: it accepts only daphne's own AppConfig. What it checks still holds:
this app is listed before ``django.contrib.staticfiles``, so its ``runserver`` is the one run.
"""

from django.apps import AppConfig


class DaphneConfig(AppConfig):
    name = "daphne"
    verbose_name = "Daphne"
