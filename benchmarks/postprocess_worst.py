"""Worst cases of the raw-reply post-processor: seconds per MB of adversarial reply.

CPU seconds per MB (robust to the machine's load) and wall seconds. Each input is one reply made of a repeated unit (and a variant whose every unit differs, so
that nothing read once can be reused): runs and nests of brackets, quotes, unterminated lists,
commas, and valid single-quoted triples. The size limit is lifted (``max_chars``) so that the
whole reply is read; with the default limit a reply is read only up to MAX_REPLY_CHARS.

With ``--baseline REV`` the post-processor of that git revision runs the same inputs at
``--baseline-mb`` (it was super-linear: a whole MB takes minutes), and the ratio is printed
side by side. Prints the machine's load average before and after: compare ratios, not seconds.

    python -m benchmarks.postprocess_worst [--mb 1] [--baseline d78e316 --baseline-mb 0.1]
"""

import argparse
import os
import subprocess
import time
import types
from collections.abc import Callable
from pathlib import Path

from scoring.genres import postprocess


def repeated(unit, size):
    return unit * (size // len(unit))


def numbered(pattern, size):
    """``pattern`` with {} replaced by a counter, repeated up to ``size`` characters."""
    pieces, length, number = [], 0, 0
    while length < size:
        piece = pattern.format(number)
        pieces.append(piece)
        length += len(piece)
        number += 1
    return "".join(pieces)


CASES = {
    "nested brackets, repeated": lambda size: repeated("[[[[[[[['a', b]]]]]]]],", size),
    "nested brackets, each different": lambda size: numbered("[[[[[[[['a{}', b]]]]]]]],", size),
    "one nest as deep as the reply": lambda size: "[" * (size // 2) + "]" * (size // 2),
    "a run of opening brackets": lambda size: "[" * size,
    "a run of closing brackets": lambda size: "]" * size,
    "quotes and apostrophes": lambda size: repeated("['a', '", size),
    "unterminated lists of triples": lambda size: repeated("[['a', 'b', 'c'], [", size),
    "comma lists of bare words": lambda size: numbered("[a{}, b, c], ", size),
    "quoted lists of four strings": lambda size: numbered('["a{}", "b", "c", "d"], ', size),
    "valid single-quoted triples": lambda size: numbered("['s{}', 'r', 'o'],\n", size),
}


def baseline_module(revision):
    """The post-processor as it was at ``revision`` (from git), as a module of its own."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "show", f"{revision}:scoring/genres/postprocess.py"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType(f"postprocess_{revision}")
    exec(compile(source, f"{revision}:scoring/genres/postprocess.py", "exec"), module.__dict__)
    return module


def seconds(extract: Callable, reply: str, **options: int) -> tuple[float, float, int, int]:
    """Wall and CPU seconds ``extract`` takes on ``reply``, and the triples and warnings it gives."""
    wall, cpu = time.perf_counter(), time.process_time()
    triples, warnings = extract(reply, **options)
    return time.perf_counter() - wall, time.process_time() - cpu, len(triples), len(warnings)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0, help="Size of each reply in MB (default 1).")
    parser.add_argument("--baseline", help="A git revision whose post-processor runs beside this one.")
    parser.add_argument("--baseline-mb", type=float, default=0.1, help="Reply size for the baseline (default 0.1).")
    arguments = parser.parse_args(argv)
    size = int(arguments.mb * 1_000_000)
    old = baseline_module(arguments.baseline) if arguments.baseline else None
    print(f"load average before: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    header = f"{'reply of ' + format(arguments.mb, 'g') + ' MB':<34} {'CPU s/MB':>8} {'wall s/MB':>9} {'triples':>8} {'warnings':>8}"
    if old:
        header += f"   at {arguments.baseline_mb:g} MB: {arguments.baseline} CPU s/MB, this CPU s/MB, ratio"
    print(header)
    worst = 0.0
    for name, make in CASES.items():
        reply = make(size)
        wall, cpu, triples, warnings = seconds(postprocess.extract_triples, reply, max_chars=len(reply))
        megabytes = len(reply) / 1e6
        worst = max(worst, cpu / megabytes)
        line = f"{name:<34} {cpu / megabytes:8.2f} {wall / megabytes:9.2f} {triples:8,} {warnings:8,}"
        if old:
            small = make(int(arguments.baseline_mb * 1_000_000))
            old_per_mb = seconds(old.extract_triples, small)[1] / (len(small) / 1e6)
            new_per_mb = seconds(postprocess.extract_triples, small, max_chars=len(small))[1] / (len(small) / 1e6)
            line += f"   {old_per_mb:8.2f} {new_per_mb:8.2f} {old_per_mb / new_per_mb:7.1f}×"
        print(line, flush=True)
    print(f"worst: {worst:.2f} CPU s per MB")
    limit = postprocess.MAX_REPLY_CHARS
    _, cpu, _, warnings = seconds(postprocess.extract_triples, CASES["nested brackets, each different"](size))
    print(f"with the default limit ({limit:,} characters read): {cpu:.2f} CPU s for the {arguments.mb:g} MB reply")
    print(f"load average after: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
