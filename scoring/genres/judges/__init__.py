"""The judges behind factualness (fs) and granularity (gs).

A judge answers two questions about one triple at a time, in batches:

- ``check_support(pairs)``: is the triple supported by its text? -> ``SupportVerdict``
- ``split(pairs)``: into how many finer triples does it split? -> ``SplitVerdict``

where ``pairs`` is a list of ``(text, triple)``. A text's scores come from its verdicts:

- fs = share of its triples judged supported (``factualness``);
- gs = mean over its triples of e^(-n), n the number of finer triples, where n = 1 counts as
  0, so an atomic triple scores 1 (``granularity``);
- a text without triples scores fs = gs = 0: an empty answer earns nothing.

A reply that cannot be read, or a request that failed for good, gives a verdict with
``parsed=False`` that scores as not supported / not split, keeps the reply (or the error) for
display, and is counted by the caller; it never stops the batch.

Two judges are registered (``registry.get_judge``):

- ``heuristic`` (``heuristic.py``): offline rules, no LLM; ``heuristic=True`` so pages label its
  scores as such.
- ``openai`` (``openai_compatible.py``): an LLM behind any OpenAI-compatible endpoint, with the
  prompts of ``prompts.py`` or a researcher's own prompt templates (``prompts.PromptTemplate``).

A third, ``RecordedJudge`` (``recorded.py``), answers from verdicts produced elsewhere and
imported; a run builds one per system from the database (``scoring.verdict_imports``).
``base.py`` holds what they share: the verdicts, ``factualness``, ``granularity`` and the
``Judge`` protocol.
"""
