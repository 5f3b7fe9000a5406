"""What a triple is.

A triple is exactly three non-empty strings ``[subject, relation, object]``. Anything else
is not a triple: parsers drop it and record a parse warning (see ``postprocess``), and
strict importers refuse the file, naming the record and this reason.
"""

TRIPLE_LENGTH = 3


def triple_problem(item):
    """The reason ``item`` is not a valid triple, or None when it is one."""
    if not isinstance(item, (list, tuple)):
        return f"expected a list of three strings, got {type(item).__name__}"
    if len(item) != TRIPLE_LENGTH:
        return f"expected 3 items (subject, relation, object), got {len(item)}"
    for role, element in zip(("subject", "relation", "object"), item):
        if not isinstance(element, str):
            return f"{role} is {type(element).__name__}, not a string"
        if not element.strip():
            return f"{role} is empty"
        if "\x00" in element:
            # PostgreSQL cannot store NUL in text; refuse it here rather than fail mid-import.
            return f"{role} contains a NUL character"
    return None


def validate_triples(value):
    """Raise ValueError naming the first bad triple of a list of triples."""
    if not isinstance(value, list):
        raise ValueError(f"expected a list of triples, got {type(value).__name__}")
    for index, item in enumerate(value, start=1):
        problem = triple_problem(item)
        if problem:
            raise ValueError(f"triple {index}: {problem}")


def clean_triple(item):
    """A valid triple as a list of stripped strings."""
    return [element.strip() for element in item]
