"""Triple-check campaigns: humans label single triples (supported by the text? how many facts?),
so that each judge's verdicts can be measured against them (issue 25).

``sampling`` and ``statistics`` are pure; ``models``, ``services``, ``queries`` and ``views``
are the Django side.
"""
