"""The progress bar of the commands that work a chunked run here (score_outputs, generate_outputs)."""

import sys
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.management.base import CommandError
from tqdm import tqdm

Run = TypeVar("Run")


def work_here_with_a_bar(run: Any, work: Callable[..., Run], label: str, kind: str) -> Run:
    """``work(run, on_chunk=...)`` with a bar of chunks, requests and cache hits on stderr; a failure
    becomes a CommandError naming the ``kind`` of run and why."""
    with tqdm(total=run.chunks.count(), unit="chunk", desc=label, file=sys.stderr) as bar:

        def show(progress_run: Any) -> None:
            state = progress_run.progress_state()
            bar.update(state["chunks_done"] - bar.n)
            bar.set_postfix(requests=state["requests"], cache_hits=state["cache_hits"], refresh=False)

        try:
            return work(run, on_chunk=show)
        except Exception as error:
            raise CommandError(f"{kind} {run.pk} failed: {type(error).__name__}: {error}") from error
