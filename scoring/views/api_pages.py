"""Paged lists and query parameters of the JSON API, shared by every app's list endpoints.

A list answers ``{"count", "page", "page_size", "pages", "next", "previous", KEY: [...]}`` in a
stable order (the caller's query orders it by a unique key), ``?page=`` from 1 and
``?page_size=`` up to :data:`MAX_PAGE_SIZE`; ``next`` and ``previous`` are absolute URLs with
the same filters, or null. A bad parameter is a 400 naming it; a page past the last, a 404.
"""

from collections.abc import Callable, Iterable, Sequence
from functools import wraps
from typing import Any

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse

from scoring.views.api import View, error

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


class QueryRefused(Exception):
    """A query parameter the API cannot take; the message names it and says why (a 400)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def query_errors(view: View) -> View:
    """The view, whose :class:`QueryRefused` becomes the JSON error it names."""

    @wraps(view)
    def refuse_bad_queries(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except QueryRefused as refused:
            return error(str(refused), refused.status)

    return refuse_bad_queries


def whole_number(request: HttpRequest, name: str, default: int | None = None, maximum: int | None = None) -> int | None:
    """The query parameter ``name`` as an integer from 1 (to ``maximum``), ``default`` when absent."""
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
        raise QueryRefused(f"{name} must be a whole number from 1, not {raw[:40]!r}.")
    if maximum is not None and int(raw) > maximum:
        raise QueryRefused(f"{name} is at most {maximum}, not {raw}.")
    return int(raw)


def one_of(request: HttpRequest, name: str, allowed: Sequence[str]) -> str | None:
    """The query parameter ``name``, which must be one of ``allowed``; None when absent."""
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return None
    if raw not in allowed:
        raise QueryRefused(f"{name} must be one of {', '.join(allowed)}, not {raw[:40]!r}.")
    return raw


def _page_url(request: HttpRequest, page: int) -> str:
    query = request.GET.copy()
    query["page"] = str(page)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def paged(
    request: HttpRequest,
    rows: QuerySet[Any] | Sequence[Any],
    key: str,
    record: Callable[[list[Any]], Iterable[dict[str, Any]]],
) -> JsonResponse:
    """One page of ``rows`` (ordered by a unique key), each page's rows turned into records by ``record``."""
    number = whole_number(request, "page", 1)
    size = whole_number(request, "page_size", DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    assert number is not None and size is not None  # both have defaults
    paginator = Paginator(rows, size, allow_empty_first_page=True)
    if number > paginator.num_pages:
        raise QueryRefused(f"No page {number}: there are {paginator.num_pages}.", status=404)
    page = paginator.page(number)
    return JsonResponse(
        {
            "count": paginator.count,
            "page": number,
            "page_size": size,
            "pages": paginator.num_pages,
            "next": _page_url(request, number + 1) if page.has_next() else None,
            "previous": _page_url(request, number - 1) if page.has_previous() else None,
            key: list(record(list(page.object_list))),
        }
    )
