"""Run every benchmark module of this package, in name order: ``python -m benchmarks``.

Each runs in a process of its own, so that each sets up Django and its temporary database
from scratch and none measures what another left behind.
"""

import pkgutil
import subprocess
import sys

import benchmarks

# Modules `make bench` does not run, and why.
NOT_RUN = {
    "endpoint": "the local endpoint judge_stage starts, not a benchmark",
    "reproduce_paper": "needs a clone of the paper's repository: python -m benchmarks.reproduce_paper --release PATH",
    "paper_rankings": "needs a clone of the paper's repository and its printed tables: "
    "python -m benchmarks.paper_rankings --release PATH --paper published-tables.json",
    "paper_scale": "needs a clone of the paper's repository and its printed tables: "
    "python -m benchmarks.paper_scale --release PATH --paper published-tables.json",
}


def main():
    names = sorted(info.name for info in pkgutil.iter_modules(benchmarks.__path__) if info.name != "__main__")
    failed = []
    for name in names:
        if name in NOT_RUN:
            print(f"== {name}: not run, {NOT_RUN[name]}", flush=True)
            continue
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, "-m", f"benchmarks.{name}"]).returncode != 0:
            failed.append(name)
    if failed:
        sys.exit(f"benchmarks that failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
