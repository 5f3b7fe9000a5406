"""Start-up imports no heavy library: loading the apps, ``manage.py check``, the URLconf and the
ASGI application (which a web process loads at start) and the apps' command modules (all that
``manage.py <command> --help`` imports) leave them to the functions that use them, so no command
pays for them before it starts. ``python -m benchmarks.startup`` measures what start-up costs."""

import json
import os
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
# From 0.07 to 1.5 CPU s each to import (nltk alone pulls in scipy, sklearn and pandas). numpy
# (0.15 s) is not among them: the models and the scoring library's settings import it.
HEAVY = (
    "nltk",
    "scipy",
    "sklearn",
    "pandas",
    "pyarrow",
    "plotly",
    "gensim",
    "krippendorff",
    "twisted",
    "uvloop",
    "httpx",
    "httpx2",
    "aiohttp",
    "openai",
    "torch",
    "sentence_transformers",
)

# Run in a fresh interpreter: this one has imported everything the suite needs. A meta path
# finder that finds nothing sees every first import, and notes the modules running at that moment.
START_UP = """
import json
import sys

heavy, chains = set(sys.argv[1:]), {}


class FirstImports:
    def find_spec(self, name, path=None, target=None):
        package = name.partition(".")[0]
        if package in heavy and package not in chains:
            frames, frame = [], sys._getframe(1)
            while frame:
                if frame.f_code.co_name == "<module>" or not frames and "importlib" not in frame.f_code.co_filename:
                    frames.append(f"{frame.f_globals.get('__name__')}.{frame.f_code.co_name}".removesuffix(".<module>"))
                frame = frame.f_back
            chains[package] = " -> ".join([*reversed(frames[:-1]), name])  # [-1]: this script
        return None


sys.meta_path.insert(0, FirstImports())

import django
from django.core.management import call_command, get_commands, load_command_class
from django.urls import get_resolver

django.setup()
call_command("check")
get_resolver().url_patterns
import genres_site.asgi  # what a web process serves: the websocket consumers besides the views
for command, app in get_commands().items():
    if app in {"scoring", "annotation", "leaderboard"}:
        load_command_class(app, command)
loaded = {package: chains.get(package, "before start-up") for package in heavy if package in sys.modules}
print(json.dumps(loaded))
"""


def test_start_up_imports_no_heavy_library():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "genres_site.settings"}
    completed = subprocess.run(
        [sys.executable, "-c", START_UP, *HEAVY], cwd=CHECKOUT, env=env, capture_output=True, text=True, check=True
    )
    loaded = json.loads(completed.stdout.splitlines()[-1])
    assert not loaded, "imported at start-up:\n" + "\n".join(f"{package}: {chain}" for package, chain in loaded.items())
