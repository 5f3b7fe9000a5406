"""Start-up cost of a command: CPU seconds (user + system) of ``manage.py check`` and ``manage.py import_outputs --help``.

    python -m benchmarks.startup [--runs 5]

Each command runs ``--runs`` times in a child process of its own; the CPU time is the child's,
read from the kernel when it exits (``os.wait4``), so neither this process nor the machine's
other work is counted. Prints the minimum and the median of each, and the machine's load
average before and after: on a busy machine a process waits for a core, which stretches wall
time far more than CPU time.

The children run as an installed copy does, from compiled bytecode (pip compiles it on
install): a first, uncounted run of each command compiles what it imports into a temporary
directory (``PYTHONPYCACHEPREFIX``), which the counted runs read. With PYTHONDONTWRITEBYTECODE
set and no bytecode beside the sources, every command would compile the app's modules anew,
some 0.25 CPU s more.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
COMMANDS = {
    "manage.py check": ["check"],
    "manage.py import_outputs --help": ["import_outputs", "--help"],
}


def load_average():
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def cpu_seconds(arguments, env):
    """User + system CPU seconds of one run of ``manage.py`` with these arguments."""
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(
            [sys.executable, "manage.py", *arguments], cwd=REPOSITORY, env=env, stdout=subprocess.DEVNULL, stderr=errors
        )
        # wait4 reaps the child and gives its own usage; Popen.wait would reap it first.
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode:
            errors.seek(0)
            sys.exit(f"manage.py {' '.join(arguments)} failed:\n{errors.read().decode()}")
    return usage.ru_utime + usage.ru_stime


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="genres-pycache-") as pycache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache
        for command in COMMANDS.values():
            cpu_seconds(command, env)  # compiles the bytecode
        print(f"CPU seconds (user + system) over {arguments.runs} runs; load average {load_average()}")
        for label, command in COMMANDS.items():
            seconds = [cpu_seconds(command, env) for _ in range(arguments.runs)]
            print(f"  {label:<34} min {min(seconds):5.2f} s   median {statistics.median(seconds):5.2f} s", flush=True)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
