"""The whole reproduction of the paper's tables, timed: ``manage.py reproduce_paper`` on a new database.

Runs ``migrate`` and ``reproduce_paper`` (docs/reproducing.md) in this one process on a
throw-away database, then prints the command's comparison with the printed tables, the wall and
CPU time and the load average before and after (the machine is shared: the figure depends on it).

    python -m benchmarks.reproduce_paper --release ~/GenRES --published tables.json [--datasets cdr,docred]
"""

import argparse
import os
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", required=True, type=Path, help="a clone of the authors' repository")
    parser.add_argument("--published", required=True, type=Path, help="the printed tables (JSON)")
    parser.add_argument("--datasets", default="", help="comma-separated (default: all six)")
    parser.add_argument("--var", help="GENRES_VAR_DIR to use (default: a new temporary directory)")
    arguments = parser.parse_args(argv)

    var_dir = arguments.var or tempfile.mkdtemp(prefix="genres-reproduce-")
    os.environ.update(GENRES_VAR_DIR=var_dir, DJANGO_SETTINGS_MODULE="genres_site.settings")
    os.environ.pop("DATABASE_URL", None)
    load_before = os.getloadavg()
    started, cpu = time.perf_counter(), time.process_time()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command(
        "reproduce_paper",
        str(arguments.release),
        "--published",
        str(arguments.published),
        *(["--datasets", arguments.datasets] if arguments.datasets else []),
    )
    print(
        f"\nmigrate + reproduce_paper: {time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s "
        f"CPU; load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f} (2 cores); "
        f"database in {var_dir}"
    )


if __name__ == "__main__":
    main()
