"""The recorded judge: verdicts produced elsewhere and imported (``scoring.verdict_imports``);
a run builds one per system from the database."""

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from scoring.genres import prompts
from scoring.genres.judges.base import OfflineJudge, Pairs, SplitVerdict, SupportVerdict
from scoring.genres.triples import Triple

MISSING_VERDICT = "no recorded verdict for this triple"


def triple_key(triple: Triple) -> str:
    """How a triple is looked up among recorded verdicts: its elements, exactly, as JSON."""
    return json.dumps(list(triple), ensure_ascii=False)


@dataclass(frozen=True)
class RecordedVerdict:
    """One verdict produced elsewhere: ``supported`` for fs; for gs the judge's ``reply`` (its
    bracketed sub-triples are counted) or, without a reply, the number ``sub_triples``."""

    aspect: str  # "fs" or "gs"
    text: str
    triple: tuple[str, ...]
    supported: bool | None = None
    reply: str = ""
    sub_triples: int | None = None
    occurrence: int = 0  # the triple's occurrence in the output, from 0 (a triple given twice is judged twice)


class RecordedJudge(OfflineJudge):
    """Verdicts recorded elsewhere (another judge's run, the GENRES authors' release) instead
    of an LLM: no request is ever sent. A triple without a recorded verdict gets a verdict
    marked ``missing``, which the scores leave out; ``missing`` counts them.

    Granularity from a recorded reply follows the authors' released code: n = the number of
    bracketed sub-triples in the reply (``prompts.bracketed_sub_triples``), n = 1 counted as 0.

    A triple that occurs k times in one text's output gets, in order, the verdicts recorded for
    its occurrences 0 to k - 1 (the authors' judge answered each occurrence, at temperature 0.3,
    sometimes differently); past the last recorded occurrence, the last one's verdict.
    """

    name = "recorded"
    prompt_version = "recorded"
    heuristic = False

    def __init__(self, source: str, verdicts: Iterable[RecordedVerdict]) -> None:
        self.model = source  # the name the verdicts were imported under
        self._verdicts: dict[tuple[str, str, str], list[RecordedVerdict]] = {}
        for verdict in sorted(verdicts, key=lambda verdict: verdict.occurrence):
            self._verdicts.setdefault((verdict.aspect, verdict.text, triple_key(verdict.triple)), []).append(verdict)
        self.missing = 0

    def check_support(self, pairs: Pairs) -> list[SupportVerdict]:
        return [self._support(verdict) for verdict in self._lookup("fs", pairs)]

    def split(self, pairs: Pairs) -> list[SplitVerdict]:
        return [self._split(verdict) for verdict in self._lookup("gs", pairs)]

    def _lookup(self, aspect: str, pairs: Pairs) -> list[RecordedVerdict | None]:
        """The verdict of each pair; a pair seen before in this call is the triple's next occurrence."""
        seen: Counter[tuple[str, str, str]] = Counter()
        found: list[RecordedVerdict | None] = []
        for text, triple in pairs:
            key = (aspect, text, triple_key(triple))
            recorded = self._verdicts.get(key)
            found.append(recorded[min(seen[key], len(recorded) - 1)] if recorded else None)
            seen[key] += 1
        self.missing += found.count(None)
        return found

    @staticmethod
    def _support(verdict: RecordedVerdict | None) -> SupportVerdict:
        if verdict is None:
            return SupportVerdict(supported=False, parsed=False, reply="", error=MISSING_VERDICT, missing=True)
        assert verdict.supported is not None, "the importers record every fs verdict with supported"
        return SupportVerdict(supported=verdict.supported, parsed=True, reply="true" if verdict.supported else "false")

    @staticmethod
    def _split(verdict: RecordedVerdict | None) -> SplitVerdict:
        if verdict is None:
            return SplitVerdict(n=0, parsed=False, error=MISSING_VERDICT, missing=True)
        if verdict.reply:
            count = prompts.bracketed_sub_triples(verdict.reply)
            return SplitVerdict(n=prompts.finer_triples(count), reply=prompts.keep_reply(verdict.reply))
        assert verdict.sub_triples is not None, "the importers record every gs verdict with a reply or a count"
        count = verdict.sub_triples
        return SplitVerdict(n=prompts.finer_triples(count), reply=f"{count} sub-triple(s), recorded")
