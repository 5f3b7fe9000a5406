"""The recorded judge: verdicts produced elsewhere and imported (``scoring.verdict_imports``);
a run builds one per system from the database."""

import json
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


class RecordedJudge(OfflineJudge):
    """Verdicts recorded elsewhere (another judge's run, the GENRES authors' release) instead
    of an LLM: no request is ever sent. A triple without a recorded verdict gets a verdict
    marked ``missing``, which the scores leave out; ``missing`` counts them.

    Granularity from a recorded reply follows the authors' released code: n = the number of
    bracketed sub-triples in the reply (``prompts.bracketed_sub_triples``), n = 1 counted as 0.
    """

    name = "recorded"
    prompt_version = "recorded"
    heuristic = False

    def __init__(self, source: str, verdicts: Iterable[RecordedVerdict]) -> None:
        self.model = source  # the name the verdicts were imported under
        self._verdicts = {(verdict.aspect, verdict.text, triple_key(verdict.triple)): verdict for verdict in verdicts}
        self.missing = 0

    def check_support(self, pairs: Pairs) -> list[SupportVerdict]:
        return [self._support(self._lookup("fs", text, triple)) for text, triple in pairs]

    def split(self, pairs: Pairs) -> list[SplitVerdict]:
        return [self._split(self._lookup("gs", text, triple)) for text, triple in pairs]

    def _lookup(self, aspect: str, text: str, triple: Triple) -> RecordedVerdict | None:
        verdict = self._verdicts.get((aspect, text, triple_key(triple)))
        if verdict is None:
            self.missing += 1
        return verdict

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
