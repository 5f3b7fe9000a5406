"""What every judge shares: its two tasks, the verdicts it gives and the fs and gs they make,
the ``Judge`` protocol, and what a judge that sends no request says of requests."""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from scoring.genres.openai_backend import (
    Usage,
)
from scoring.genres.triples import Triple

SUPPORT = "support"
SPLIT = "split"
TASKS = (SUPPORT, SPLIT)
# The aspect each task scores: prompt templates are given per aspect.
ASPECT_OF_TASK = {SUPPORT: "fs", SPLIT: "gs"}


@dataclass(frozen=True)
class SupportVerdict:
    supported: bool
    parsed: bool
    reply: str
    error: str = ""
    missing: bool = False  # recorded verdicts only: none was recorded for this triple


@dataclass(frozen=True)
class SplitVerdict:
    n: int  # finer triples, with n = 1 already counted as 0
    sub_triples: list[list[str]] = field(default_factory=list)
    parsed: bool = True
    reply: str = ""
    error: str = ""
    missing: bool = False  # recorded verdicts only: none was recorded for this triple

    @property
    def score(self) -> float:
        return math.exp(-self.n)


Verdict = TypeVar("Verdict", SupportVerdict, SplitVerdict)


def _judged(verdicts: Sequence[Verdict]) -> list[Verdict] | None:
    """The verdicts that exist; None when the text has triples but none has a verdict."""
    judged = [verdict for verdict in verdicts if not verdict.missing]
    return judged if judged or not verdicts else None


def factualness(verdicts: Sequence[SupportVerdict]) -> float | None:
    """fs of one text: the share of its triples' verdicts that say supported; 0 without triples.

    A missing (recorded) verdict is left out; a text with none left is None, out of the mean.
    """
    judged = _judged(verdicts)
    if judged is None:
        return None
    return sum(verdict.supported for verdict in judged) / len(judged) if judged else 0.0


def granularity(verdicts: Sequence[SplitVerdict]) -> float | None:
    """gs of one text: the mean of e^(-n) over its triples' verdicts; 0 without triples.

    A missing (recorded) verdict is left out; a text with none left is None, out of the mean.
    """
    judged = _judged(verdicts)
    if judged is None:
        return None
    return sum(verdict.score for verdict in judged) / len(judged) if judged else 0.0


@dataclass(frozen=True)
class RequestCount:
    """What judging a batch would take: shown, with a cost estimate, before a run starts."""

    judgements: int
    requests: int  # distinct requests the batch needs (identical questions are asked once)
    cached: int  # of which answered by the cache

    @property
    def to_send(self) -> int:
        return self.requests - self.cached


# Each item a judge is asked about: a text and one of its triples.
Pairs = Sequence[tuple[str, Triple]]
# A request body as sent (less the model) and cached, and a response as read: JSON objects.
Payload = dict[str, Any]


class Judge(Protocol):
    name: str
    model: str
    prompt_version: str
    heuristic: bool

    def check_support(self, pairs: Pairs) -> list[SupportVerdict]: ...

    def split(self, pairs: Pairs) -> list[SplitVerdict]: ...

    def count_requests(self, pairs: Pairs, task: str) -> RequestCount: ...

    @property
    def usage(self) -> Usage: ...


def check_task(task: str) -> None:
    if task not in TASKS:
        raise ValueError(f"unknown judge task {task!r}; choose one of {', '.join(TASKS)}")


class OfflineJudge:
    """What a judge that sends no request answers about requests and their cost."""

    def count_requests(self, pairs: Pairs, task: str) -> RequestCount:
        check_task(task)
        return RequestCount(judgements=len(pairs), requests=0, cached=0)

    @property
    def usage(self) -> Usage:
        return Usage()
