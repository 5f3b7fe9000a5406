"""The demo: ``manage.py load_demo`` loads fixtures/manifest.json into every app (``demo.loader``)."""
