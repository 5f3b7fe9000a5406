"""The guidelines as annotators read them: the guidelines page, and the pieces of it that the item
page and the practice round show (each aspect's guideline under its question, all of them in the
panel that G opens). The same for everyone: each is rendered once per process."""

from functools import cache

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET

from annotation.guidelines import GENERAL_RULES, GUIDELINES, GUIDELINES_BY_CODE
from annotation.models import Aspect


@cache
def guideline_html(code: str) -> str:
    """One aspect's guideline as the item page shows it: the same on every item, so rendered once per process."""
    return render_to_string("annotation/annotate_guideline.html", {"guideline": GUIDELINES_BY_CODE[code]})


@cache
def guidelines_html() -> str:
    """The rules and every aspect's guideline, for the item page's guidelines panel: rendered once per process."""
    return render_to_string("annotation/guidelines_body.html", guidelines_context())


def guidelines_context() -> dict[str, object]:
    guidelines = [{"code": g.code, "name": Aspect(g.code).label, "guideline": g} for g in GUIDELINES]
    return {"guidelines": guidelines, "general_rules": GENERAL_RULES}


@login_required
@require_GET
def annotate_guidelines(request: HttpRequest) -> HttpResponse:
    return render(request, "annotation/guidelines.html", guidelines_context())
