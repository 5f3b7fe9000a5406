"""Template tags of the item page."""

from django import template
from django.template import Context

from annotation.gold_matches import gold_matches

register = template.Library()


@register.simple_tag(takes_context=True)
def triple_rows(context: Context, triples: list[list[str]], against_gold: bool = True) -> list[dict[str, str]]:
    """The triples as rows for annotation/annotate_triples.html, each with the numbers of the gold
    triples it soft-matches (as the page numbers them, from 1). Before the gold is shown (no
    ``gold_triples`` in the page), and for the gold list itself, none."""
    gold = context.get("gold_triples") if against_gold else None
    matches = gold_matches(triples, gold or [])
    return [
        {"subject": subject, "relation": relation, "object": object_, "gold": " ".join(str(p + 1) for p in matched)}
        for (subject, relation, object_), matched in zip(triples, matches, strict=True)
    ]
