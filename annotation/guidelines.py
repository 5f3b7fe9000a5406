"""What annotators read before choosing A, tie or B on each aspect.

Plain data, no Django, keyed by aspect code (display names live in ``scoring.genres.aspects``).
The item page shows one aspect's guideline next to its question; the guidelines page shows all.
"A" is always the extraction on the left of the page and "B" the one on the right; which system
sits on which side is random for every assignment.
"""

from dataclasses import dataclass

GuidelineTriple = tuple[str, str, str]


@dataclass(frozen=True)
class Example:
    text: str
    a_triples: tuple[GuidelineTriple, ...]
    b_triples: tuple[GuidelineTriple, ...]
    verdict: str
    gold: tuple[GuidelineTriple, ...] = ()


@dataclass(frozen=True)
class AspectGuideline:
    code: str
    question: str
    a_better: str
    tie: str
    b_better: str
    example: Example
    revealed_after_first_four: bool = False


GENERAL_RULES = (
    "Judge each aspect on its own: an extraction can win on one aspect and lose on the next.",
    "The position of an extraction means nothing. A and B are shuffled for every item.",
    "More triples is not better in itself. Read what the triples say, not how many there are.",
    "An extraction with no triples earns nothing: it loses to any extraction that does at least "
    "something right on the aspect, and ties with another empty one.",
    "Choose tie when you cannot honestly tell the two apart, or when both are equally good or equally poor.",
)

GUIDELINES = (
    AspectGuideline(
        code="ts",
        question="Which extraction stays closer to what the text is about?",
        a_better="A's triples, taken together, are about the main subjects of the text; "
        "B's wander to side remarks or to things the text does not discuss.",
        tie="Both cover the text's topics about equally well, or drift away about equally.",
        b_better="B's triples keep to the heart of the text while A's dwell on minor or unrelated matters.",
        example=Example(
            text="A phase-3 trial found that the drug velatinib lowered systolic blood pressure by "
            "12 mmHg in adults with resistant hypertension. The trial ran in four hospitals in Lyon.",
            a_triples=(
                ("velatinib", "lowers", "systolic blood pressure"),
                ("velatinib", "treats", "resistant hypertension"),
            ),
            b_triples=(("trial", "ran in", "Lyon"),),
            verdict="A better: the text is about the drug's effect; B only keeps the location, a side detail.",
        ),
    ),
    AspectGuideline(
        code="us",
        question="Which extraction repeats itself less?",
        a_better="Each of A's triples says something new, while B states the same fact more than once, "
        "word for word or in different words.",
        tie="Both repeat themselves to the same degree, or neither repeats anything.",
        b_better="B's triples are all distinct facts while A restates some of its own triples.",
        example=Example(
            text="Canberra is the capital of Australia and lies in the Australian Capital Territory.",
            a_triples=(
                ("Canberra", "capital of", "Australia"),
                ("Canberra", "located in", "Australian Capital Territory"),
            ),
            b_triples=(("Canberra", "capital of", "Australia"), ("Canberra", "is the capital city of", "Australia")),
            verdict="A better: B's second triple is a paraphrase of its first.",
        ),
    ),
    AspectGuideline(
        code="fs",
        question="Which extraction's triples does the text actually support?",
        a_better="More of A's triples are stated or clearly implied by the text; B contains claims "
        "the text does not make or contradicts.",
        tie="Both are supported to the same extent, or both contain comparable errors.",
        b_better="B sticks to what the text says, while A adds unsupported or wrong claims.",
        example=Example(
            text="The physicist Lise Meitner was born in Vienna in 1878 and later worked in Berlin.",
            a_triples=(("Lise Meitner", "born in", "Vienna"), ("Lise Meitner", "worked in", "Berlin")),
            b_triples=(("Lise Meitner", "born in", "Berlin"), ("Lise Meitner", "won", "Nobel Prize")),
            verdict="A better: B swaps the cities and adds a prize the text never mentions. "
            "Judge by the text alone, not by what you know of the world.",
        ),
    ),
    AspectGuideline(
        code="gs",
        question="Which extraction states one fact per triple?",
        a_better="A's triples are atomic: each holds a single fact. Some of B's pack several facts into "
        "one triple that could be split into finer ones.",
        tie="Both are equally fine-grained, or equally coarse.",
        b_better="B breaks the facts into single-fact triples while A lumps several together.",
        example=Example(
            text="Ada Lovelace, born in London in 1815, wrote the first published algorithm.",
            a_triples=(("Ada Lovelace", "born in", "London"), ("Ada Lovelace", "born in year", "1815")),
            b_triples=(("Ada Lovelace", "born in London in 1815 and wrote", "the first published algorithm"),),
            verdict="A better: B's single triple would split into three separate facts.",
        ),
    ),
    AspectGuideline(
        code="cs",
        question="Which extraction captures more of the reference (gold) triples?",
        a_better="A expresses more of the gold triples, in the same or in other words; B misses more of them.",
        tie="Both cover about the same share of the gold triples.",
        b_better="B finds more of the gold facts than A does.",
        example=Example(
            text="The Nile runs north through Sudan and Egypt and ends in the Mediterranean Sea.",
            gold=(
                ("Nile", "flows into", "Mediterranean Sea"),
                ("Nile", "flows through", "Egypt"),
                ("Nile", "flows through", "Sudan"),
            ),
            a_triples=(("Nile", "empties into", "Mediterranean"), ("Nile", "passes through", "Sudan")),
            b_triples=(("Nile", "is", "river"),),
            verdict="A better: A covers two of the three gold facts in its own words, B none. "
            "Triples beyond the gold neither help nor hurt here; the other aspects account for them.",
        ),
        revealed_after_first_four=True,
    ),
)

GUIDELINES_BY_CODE = {guideline.code: guideline for guideline in GUIDELINES}
