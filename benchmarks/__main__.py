"""Run every benchmark module of this package, in name order: ``python -m benchmarks``.

Each runs in a process of its own, so that each sets up Django and its temporary database
from scratch and none measures what another left behind.
"""

import pkgutil
import subprocess
import sys

import benchmarks


def main():
    names = sorted(info.name for info in pkgutil.iter_modules(benchmarks.__path__) if info.name != "__main__")
    failed = []
    for name in names:
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, "-m", f"benchmarks.{name}"]).returncode != 0:
            failed.append(name)
    if failed:
        sys.exit(f"benchmarks that failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
