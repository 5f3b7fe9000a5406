"""No module of the apps is longer than 500 lines and no function longer than 80: a module that
outgrows it splits along a seam, a function into named steps (docs/architecture.md)."""

import ast
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
APPS = ("core", "genres_site", "scoring", "annotation", "leaderboard", "accounts", "demo")
MODULE_LINES, FUNCTION_LINES = 500, 80
# Written by makemigrations, and the API's description: tables rather than code.
EXCEPTED_FOLDER, EXCEPTED_MODULE = "migrations", "genres_site/openapi.py"


def app_modules():
    for app in APPS:
        for path in sorted((CHECKOUT / app).rglob("*.py")):
            relative = path.relative_to(CHECKOUT).as_posix()
            if EXCEPTED_FOLDER not in relative.split("/") and relative != EXCEPTED_MODULE:
                yield relative, path.read_text(encoding="utf-8")


def test_no_module_is_longer_than_500_lines():
    long = {name: len(source.splitlines()) for name, source in app_modules()}
    assert {name: lines for name, lines in long.items() if lines > MODULE_LINES} == {}


def test_no_function_is_longer_than_80_lines():
    long = {
        f"{name}:{node.name}": node.end_lineno - node.lineno + 1
        for name, source in app_modules()
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert {name: lines for name, lines in long.items() if lines > FUNCTION_LINES} == {}
