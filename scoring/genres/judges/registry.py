"""The judges a run may name (``get_judge``); the recorded judge is built by the run itself."""

from typing import Any

from scoring.genres.judges.base import Judge
from scoring.genres.judges.heuristic import HeuristicJudge
from scoring.genres.judges.openai_compatible import OpenAIJudge

JUDGES: dict[str, type[HeuristicJudge] | type[OpenAIJudge]] = {"heuristic": HeuristicJudge, "openai": OpenAIJudge}


def get_judge(name: str = "heuristic", **options: Any) -> Judge:
    """The judge registered as ``name``; ``options`` go to its constructor (the heuristic judge
    takes none; see ``OpenAIJudge`` for the other)."""
    try:
        judge_class = JUDGES[name]
    except KeyError:
        raise ValueError(f"unknown judge {name!r}; choose one of {', '.join(JUDGES)}") from None
    return judge_class(**options)
