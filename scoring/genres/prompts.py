"""The two judge prompts behind factualness (fs) and granularity (gs), and how replies are read.

Following the GENRES method, each request judges ONE triple:

- support: a few-shot true/false check of a triple against the source text;
- split: a few-shot request to rewrite a triple as the finer triples it contains, ending
  with a line ``Granularity: N``. The source text is left out of this prompt: granularity is
  a property of how the triple is phrased, and showing the text invites the model to add facts
  the triple never stated. (It also lets one reply serve the same triple in every text.)

A triple is shown as a JSON list (``json.dumps``), so quotes inside elements stay escaped and
the model sees exactly where each element starts and ends.

Every prompt exists in two renderings of the same content: one string for completion models
(``*-instruct``) and a list of chat messages, few-shot examples as earlier turns.
``PROMPT_VERSION`` is recorded with every score: change it whenever the wording, the examples,
the parameters or the parsing change, so that scores from different prompts are never mixed.
"""

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.genres.triples import Triple, triple_problem

PROMPT_VERSION = "genres-judge-2026.1"

# Replies are kept for display; a misbehaving endpoint must not fill the database.
MAX_KEPT_REPLY_CHARS = 2000

SUPPORT_INSTRUCTION = (
    "You check relation triples against a source text. A triple [subject, relation, object] is "
    "supported when the text states it, or when it follows directly from what the text states. It "
    "is not supported when the text contradicts it, says something else, or does not mention it; "
    "what you know from elsewhere does not count. Answer with one word: True if the text supports "
    "the triple, False if it does not."
)

SUPPORT_EXAMPLES = (
    (
        "The Danube rises in the Black Forest and flows through ten countries, among them Austria "
        "and Hungary, before it empties into the Black Sea.",
        ["Danube", "flows into", "Black Sea"],
        "True",
    ),
    (
        "Ada Lovelace worked with Charles Babbage on his proposed Analytical Engine and wrote what "
        "is often called the first published algorithm for it.",
        ["Ada Lovelace", "designed", "Analytical Engine"],
        "False",
    ),
    (
        "Aspirin blocks the enzyme cyclooxygenase, and with it the synthesis of prostaglandins, "
        "which lowers fever and eases pain.",
        ["aspirin", "inhibits", "cyclooxygenase"],
        "True",
    ),
    (
        "The novel first appeared in September 1937, printed by George Allen & Unwin in London.",
        ["George Allen & Unwin", "headquartered in", "Oxford"],
        "False",
    ),
)

SPLIT_INSTRUCTION = (
    "You judge how fine-grained a relation triple is. Rewrite the triple [subject, relation, "
    "object] as the smallest separate facts it states, each one a triple of its own: split lists "
    "and coordinations in the subject or the object, and give a qualifier such as a date or a "
    "place its own triple. Add nothing that the triple does not say. A triple that states a single "
    "fact stays as it is. Write one triple per line as a JSON list, then finish with the line "
    '"Granularity: N", where N is the number of triples you wrote.'
)

SPLIT_EXAMPLES = (
    (
        ["Marie Curie", "won", "the Nobel Prize in Physics and the Nobel Prize in Chemistry"],
        [
            ["Marie Curie", "won", "the Nobel Prize in Physics"],
            ["Marie Curie", "won", "the Nobel Prize in Chemistry"],
        ],
    ),
    (
        ["Lake Baikal", "located in", "Siberia"],
        [["Lake Baikal", "located in", "Siberia"]],
    ),
    (
        ["The Beatles", "formed in", "Liverpool in 1960"],
        [["The Beatles", "formed in", "Liverpool"], ["The Beatles", "formed in year", "1960"]],
    ),
    (
        ["metformin, sitagliptin and insulin", "treat", "type 2 diabetes"],
        [
            ["metformin", "treat", "type 2 diabetes"],
            ["sitagliptin", "treat", "type 2 diabetes"],
            ["insulin", "treat", "type 2 diabetes"],
        ],
    ),
)

SUPPORT_CUE = "Supported:"
SPLIT_CUE = "Finer triples:"


@dataclass(frozen=True)
class Prompt:
    """One request's content: an instruction, worked examples, and the question asked."""

    instruction: str
    examples: tuple[tuple[str, str], ...]  # (question, answer) pairs
    question: str
    # Between a question's cue and its answer in the completion rendering.
    answer_separator: str

    def as_completion(self) -> str:
        shown = [f"{question}{self.answer_separator}{answer}" for question, answer in self.examples]
        return "\n\n".join([self.instruction, *shown, self.question])

    def as_messages(self) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.instruction}]
        for question, answer in self.examples:
            messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
        messages.append({"role": "user", "content": self.question})
        return messages


def show_triple(triple: Triple) -> str:
    return json.dumps(list(triple), ensure_ascii=False)


def _support_question(text: str, triple: Triple) -> str:
    return f"Text: {text}\nTriple: {show_triple(triple)}\n{SUPPORT_CUE}"


def _split_question(triple: Triple) -> str:
    return f"Triple: {show_triple(triple)}\n{SPLIT_CUE}"


def _split_answer(sub_triples: Sequence[Triple]) -> str:
    lines = [show_triple(sub_triple) for sub_triple in sub_triples]
    return "\n".join([*lines, f"Granularity: {len(sub_triples)}"])


# The worked examples as (question, answer), written once: every prompt of a task shares them.
SUPPORT_SHOTS = tuple((_support_question(text, example), answer) for text, example, answer in SUPPORT_EXAMPLES)
SPLIT_SHOTS = tuple((_split_question(example), _split_answer(sub_triples)) for example, sub_triples in SPLIT_EXAMPLES)


def support_prompt(text: str, triple: Triple) -> Prompt:
    return Prompt(
        instruction=SUPPORT_INSTRUCTION,
        examples=SUPPORT_SHOTS,
        question=_support_question(text, triple),
        answer_separator=" ",
    )


def split_prompt(triple: Triple) -> Prompt:
    return Prompt(
        instruction=SPLIT_INSTRUCTION,
        examples=SPLIT_SHOTS,
        question=_split_question(triple),
        answer_separator="\n",
    )


# Generation parameters are part of the prompt (and of its version): they shape the reply.
SUPPORT_MAX_TOKENS = 8
SPLIT_MAX_TOKENS = 400
# Every answer is free of blank lines, so a blank line means the model moved on to invent
# another example.
COMPLETION_STOP = ["\n\n"]


# Reading replies -------------------------------------------------------------------------

_VERDICT_WORDS = {"true": True, "yes": True, "false": False, "no": False}
_NEGATIONS = {"not", "isn't", "isnt"}
_WORD = re.compile(r"[a-z']+")


def parse_support(reply: str) -> tuple[bool, bool]:
    """(supported, parsed) from a support reply.

    The first of the words true/false/yes/no decides, case and punctuation ignored ("**True.**",
    "yes, it does"). Yes/no count because chat models often answer a check that way. A "not"
    right before the word turns it around ("not true"). A reply with none of the four words is
    unparseable and scores as not supported.
    """
    words = _WORD.findall(reply.lower())
    for position, word in enumerate(words):
        if word in _VERDICT_WORDS:
            verdict = _VERDICT_WORDS[word]
            if position and words[position - 1] in _NEGATIONS:
                verdict = not verdict
            return verdict, True
    return False, False


_GRANULARITY = re.compile(r"granularity\s*[:=]\s*\**\s*(\d{1,6})", re.IGNORECASE)
_BRACKETED = re.compile(r"\[[^\[\]]*\]")


def listed_triples(reply: str) -> list[list[str]]:
    """The well-formed JSON triples written in a reply, in order."""
    found = []
    for candidate in _BRACKETED.findall(reply):
        try:
            item = json.loads(candidate)
        except ValueError:
            continue
        if triple_problem(item) is None:
            found.append([element.strip() for element in item])
    return found


def finer_triples(count: int) -> int:
    """n of a triple split into ``count`` parts: n = 1 (the triple is its own only part) counts as
    0, so an atomic triple is not split."""
    return 0 if count == 1 else count


def parse_split(reply: str) -> tuple[int, list[list[str]], bool]:
    """(n, sub_triples, parsed) from a split reply.

    The number after "Granularity:" decides; without one, the number of triples listed does.
    n = 1 (the triple is its own only part) counts as 0: an atomic triple is not split. A reply
    with neither is unparseable and scores as not split (n = 0).
    """
    sub_triples = listed_triples(reply)
    stated = _GRANULARITY.search(reply)
    if stated:
        count = int(stated.group(1))
    elif sub_triples:
        count = len(sub_triples)
    else:
        return 0, [], False
    return finer_triples(count), sub_triples, True


def bracketed_sub_triples(reply: str) -> int:
    """The number of sub-triples in a granularity reply, as the GENRES authors' released code
    counts them: the bracketed items, min of the "[" and "]" counts (a stray bracket adds none).

    The caller maps n = 1 to 0, as for every split: a triple that is its own only part is atomic.
    """
    return min(reply.count("["), reply.count("]"))


def keep_reply(reply: str) -> str:
    """A reply shortened to what is worth storing and showing."""
    return reply if len(reply) <= MAX_KEPT_REPLY_CHARS else reply[:MAX_KEPT_REPLY_CHARS] + " [...]"


# Prompt templates from files ---------------------------------------------------------------

# A researcher's own judge prompt, one file per aspect, in the placeholder syntax of the GENRES
# authors' prompt files, so theirs run unchanged: $TEXT$ stands for the source text, $TRIPLE$
# for the triple written as json.dumps writes it (ASCII-escaped, as their scripts sent it).
TEXT_PLACEHOLDER = "$TEXT$"
TRIPLE_PLACEHOLDER = "$TRIPLE$"
TEMPLATE_PLACEHOLDERS = {"fs": (TEXT_PLACEHOLDER, TRIPLE_PLACEHOLDER), "gs": (TRIPLE_PLACEHOLDER,)}
MAX_TEMPLATE_CHARS = 100_000
_PLACEHOLDER = re.compile(r"\$(TEXT|TRIPLE)\$")


class TemplateError(ValueError):
    """A prompt template that cannot be used; the message says why."""


@dataclass(frozen=True)
class PromptTemplate:
    """A judge prompt for one aspect ("fs" or "gs"), read from a file.

    The text is kept without its surrounding whitespace, as the authors' scripts read theirs.
    A template is the whole prompt: the completion prompt, or the one user message for chat.
    """

    aspect: str
    text: str

    def __post_init__(self) -> None:
        if self.aspect not in TEMPLATE_PLACEHOLDERS:
            raise TemplateError(f"a prompt template is for fs or gs, not {self.aspect!r}")
        object.__setattr__(self, "text", self.text.strip())
        if len(self.text) > MAX_TEMPLATE_CHARS:
            raise TemplateError(
                f"the {self.aspect} prompt template has {len(self.text):,} characters; at most {MAX_TEMPLATE_CHARS:,}"
            )
        if "\x00" in self.text:
            raise TemplateError(f"the {self.aspect} prompt template contains a NUL character")
        missing = [placeholder for placeholder in TEMPLATE_PLACEHOLDERS[self.aspect] if placeholder not in self.text]
        if missing:
            raise TemplateError(
                f"the {self.aspect} prompt template lacks the placeholder{'s' if len(missing) > 1 else ''} "
                f"{' and '.join(missing)}; it needs {' and '.join(TEMPLATE_PLACEHOLDERS[self.aspect])}"
            )

    @classmethod
    def from_file(cls, aspect: str, path: str | Path) -> "PromptTemplate":
        try:
            with open(path, encoding="utf-8") as template_file:
                text = template_file.read(MAX_TEMPLATE_CHARS + 1)
        except UnicodeDecodeError as error:
            raise TemplateError(f"the {aspect} prompt template {path} is not UTF-8 text: {error}") from None
        except OSError as error:
            raise TemplateError(f"cannot read the {aspect} prompt template {path}: {error.strerror}") from None
        return cls(aspect, text)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def render(self, text: str, triple: Triple) -> str:
        """The prompt for one question. One pass: a text that itself holds "$TRIPLE$" stays as it is."""
        values = {"TEXT": text, "TRIPLE": json.dumps(list(triple))}
        return _PLACEHOLDER.sub(lambda match: values[match.group(1)], self.text)


def templates_from_texts(texts: Mapping[str, str]) -> list[PromptTemplate]:
    """The templates of ``{aspect: template text}``, checked (``TemplateError``)."""
    return [PromptTemplate(aspect, text) for aspect, text in sorted(texts.items())]
