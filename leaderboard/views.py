"""Leaderboard pages, their JSON and CSV downloads, read from the last built snapshot.

Nothing is built here (``leaderboard.jobs`` builds); a variant never built answers that it is
being built and queues its build. Rendered HTML is cached per build of a snapshot.
"""

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from annotation.exports import PARQUET_TYPE
from core.permissions import VIEW_OUTPUTS
from leaderboard import access, contents, exports, jobs
from leaderboard.metric_battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from scoring.models import Dataset
from scoring.queries import datasets_with_counts
from scoring.views.api import allow_methods, token_user

# Rendered parts of a snapshot live until a build replaces it, or this long without a reader.
RENDERED_FOR = 3600

View = Callable[..., HttpResponse]

# Sections of the dataset page that the live refresh re-renders, and what each depends on.
SECTIONS = {
    "verdict": ("judgements", "scores"),
    "scores": ("scores",),
    "significance": ("scores",),
    "human": ("judgements",),
    "comparison": ("judgements", "scores"),
    "triple_checks": ("judgements", "scores"),
}


def leaderboard_view(json: bool = False) -> Callable[[View], View]:
    """Apply the access rules: sign-in (or, for the JSON and CSV, an API token) unless public, and
    never a dataset the user annotates blind."""

    def decorator(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, name: str | None = None, **kwargs: Any) -> HttpResponse:
            if json and "Authorization" in request.headers:
                # A script reads as its token's user, under the same rules as the pages.
                user = token_user(request)
                if isinstance(user, JsonResponse):
                    return user
                request.user = user
            if access.needs_sign_in(request.user):
                if json:
                    return JsonResponse({"error": "Sign in to read leaderboards."}, status=401)
                return redirect_to_login(request.get_full_path())
            if name is None:
                return view(request, **kwargs)
            dataset = get_object_or_404(Dataset, name=name)
            try:
                access.check_visible(request.user, dataset)
            except access.LeaderboardHidden as hidden:
                if json:
                    return JsonResponse({"error": str(hidden)}, status=403)
                return render(
                    request, "leaderboard/refused.html", {"dataset": dataset, "reason": str(hidden)}, status=403
                )
            try:
                return view(request, dataset, **kwargs)
            except contents.LeaderboardError as error:
                if json:
                    return JsonResponse({"error": str(error)}, status=400)
                return render(
                    request, "leaderboard/refused.html", {"dataset": dataset, "reason": str(error)}, status=400
                )

        if json:
            # Another method gets the JSON 405 of the API, not the CSRF check's HTML 403: a view
            # that only reads has nothing to protect from cross-site requests.
            return csrf_exempt(allow_methods("GET")(wrapped))
        return require_GET(wrapped)

    return decorator


def _snapshot(request: HttpRequest, dataset: Dataset, *deferred: str) -> Snapshot | None:
    """The last built snapshot of the setting and margin asked for; None (and a build queued) when never built."""
    setting_key, margin = _variant(request)
    snapshot = Snapshot.objects.variant(dataset, setting_key, margin).defer(*deferred).first()
    if snapshot is None:
        contents.check_setting(dataset, setting_key)
    jobs.ask_for_variant(dataset.pk, setting_key, margin, built=snapshot is not None)
    return snapshot


def _variant(request: HttpRequest) -> tuple[str, float]:
    """The scoring setting (empty: the newest) and margin a request asks for."""
    return request.GET.get("setting", ""), contents.parse_margin(request.GET.get("margin"))


def _being_built(request: HttpRequest, dataset: Dataset) -> JsonResponse:
    message = f"The {dataset.name} leaderboard is being built; it will be ready in a moment."
    progress = jobs.variant_progress(dataset.pk, *_variant(request))
    return JsonResponse({"building": True, "message": message, "progress": progress}, status=202)


def _rendered(
    snapshot: Snapshot, part: str, links: dict[str, str], personal: tuple[str, str], render: Callable[[], object]
) -> Any:
    """``render()`` once per build of the snapshot, part, links and the user's own links (``score_run``,
    ``system_pages``) (SQLite may reuse a deleted row's id)."""
    variant = (snapshot.pk, snapshot.built_at, sorted(links.items()), personal)
    key = hashlib.sha256(repr(variant).encode()).hexdigest()[:32]
    return cache.get_or_set(f"leaderboard:{part}:{key}", render, RENDERED_FOR)


def _json_script(text: str) -> SafeString:
    """Stored JSON made safe inside a <script> element, as Django's json_script filter does."""
    return mark_safe(text.translate({ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}))


@leaderboard_view()
def index(request: HttpRequest) -> HttpResponse:
    hidden = access.blind_dataset_ids(request.user)
    datasets = list(datasets_with_counts().exclude(pk__in=hidden).order_by("name"))
    summaries = dict(
        Snapshot.objects.filter(dataset__in=datasets, newest=True, margin=DEFAULT_MARGIN).values_list(
            "dataset_id", "summary"
        )
    )
    for dataset in datasets:
        if dataset.pk not in summaries:
            jobs.schedule_rebuild(dataset.pk)
    entries = [{"dataset": dataset, "summary": summaries.get(dataset.pk)} for dataset in datasets]
    return render(request, "leaderboard/index.html", {"summaries": entries, "hidden": len(hidden)})


def csv_links(dataset: Dataset, request: HttpRequest) -> dict[str, str]:
    """CSV download URLs of the tables, for the same setting and margin as the page."""
    # Only what selects the data; "change" and "method" belong to the page, not to the tables.
    query = urlencode({key: request.GET[key] for key in ("setting", "margin") if request.GET.get(key)})
    return {
        table: reverse("leaderboard:csv", args=[dataset.name, table]) + (f"?{query}" if query else "")
        for table in exports.CSV_TABLES
    }


def score_run_link(dataset: Dataset, request: HttpRequest) -> str:
    """The form that starts a scoring run of the dataset, for staff; empty for anyone else."""
    return reverse("scoring:run_new", args=[dataset.name]) if request.user.is_staff else ""


def system_pages_link(dataset: Dataset, request: HttpRequest) -> str:
    """Where the dataset's system pages start (a system's name, URL-quoted, and "/" follow), for
    users who may read outputs; empty for anyone else: annotators judge systems blind."""
    if not request.user.has_perm(VIEW_OUTPUTS):
        return ""
    return reverse("scoring:system", args=[dataset.name, "-"]).removesuffix("-/")


@leaderboard_view()
def dataset_page(request: HttpRequest, dataset: Dataset) -> HttpResponse:
    snapshot = _snapshot(request, dataset, "tables")
    if snapshot is None:
        setting_key, margin = _variant(request)
        progress = jobs.variant_progress(dataset.pk, setting_key, margin)
        context = {"dataset": dataset, "setting": setting_key, "margin": margin, "progress": progress}
        return render(request, "leaderboard/building.html", context)
    links, score_run = csv_links(dataset, request), score_run_link(dataset, request)
    system_pages = system_pages_link(dataset, request)

    def render_body() -> str:
        context = {
            **exports.section_context(snapshot.data, links, score_run, system_pages),
            "as_of": snapshot.built_at,
        }
        return render_to_string("leaderboard/page_body.html", context)

    context = {
        "dataset": dataset,
        "snapshot": snapshot,
        "page_body": _rendered(snapshot, "page", links, (score_run, system_pages), render_body),
        "plots": _json_script(snapshot.plots),
    }
    return render(request, "leaderboard/dataset.html", context)


@leaderboard_view(json=True)
def dataset_sections(request: HttpRequest, dataset: Dataset) -> HttpResponse:
    """The page's sections, re-rendered, its figures and as-of time: what the live refresh fetches."""
    snapshot = _snapshot(request, dataset, "tables")
    if snapshot is None:
        return _being_built(request, dataset)
    links, score_run = csv_links(dataset, request), score_run_link(dataset, request)
    system_pages = system_pages_link(dataset, request)

    def render_sections() -> dict[str, str]:
        context = exports.section_context(snapshot.data, links, score_run, system_pages)
        return {section: render_to_string(f"leaderboard/section_{section}.html", context) for section in SECTIONS}

    rendered = _rendered(snapshot, "sections", links, (score_run, system_pages), render_sections)
    changes = set(request.GET.getlist("change")) or {"judgements", "scores"}
    sections = {section: rendered[section] for section, depends_on in SECTIONS.items() if changes & set(depends_on)}
    # The figures go out as stored, without a parse and a dump.
    as_of = json.dumps(snapshot.built_at.isoformat())
    body = f'{{"sections": {json.dumps(sections)}, "as_of": {as_of}, "plots": {snapshot.plots}}}'
    return HttpResponse(body, content_type="application/json")


@leaderboard_view(json=True)
def dataset_json(request: HttpRequest, dataset: Dataset) -> HttpResponse:
    snapshot = _snapshot(request, dataset, "plots")
    if snapshot is None:
        return _being_built(request, dataset)
    return HttpResponse(snapshot.tables, content_type="application/json")


@leaderboard_view(json=True)
def dataset_table(request: HttpRequest, dataset: Dataset, table: str, file_format: str = "csv") -> HttpResponse:
    """One table of the leaderboard as CSV, or as Parquet (the same columns and rows, typed)."""
    if table not in exports.CSV_TABLES:
        raise Http404(f"No table named {table}.")
    snapshot = _snapshot(request, dataset, "plots")
    if snapshot is None:
        return _being_built(request, dataset)
    if file_format == "parquet":
        response = HttpResponse(exports.parquet_bytes(table, snapshot.data), content_type=PARQUET_TYPE)
    else:
        response = HttpResponse(exports.csv_text(table, snapshot.data), content_type="text/csv; charset=utf-8")
    file_name = exports.csv_file_name(dataset.name, table, file_format)
    response["Content-Disposition"] = f'attachment; filename="{file_name}"'
    return response


@leaderboard_view(json=True)
def dataset_ratings(request: HttpRequest, dataset: Dataset) -> HttpResponse:
    """The dataset's ratings as its leaderboard built them: humans' (Elo and Bradley–Terry with
    bootstrap intervals, and the single pass of online Elo) and the metric battles'."""
    snapshot = _snapshot(request, dataset, "plots")
    if snapshot is None:
        return _being_built(request, dataset)
    data, human = snapshot.data, snapshot.data["human"]
    return JsonResponse(
        {
            "dataset": dataset.name,
            "as_of": snapshot.built_at.isoformat(),
            "margin": data["margin"],
            "setting": data["setting"]["key"] if data["setting"] else None,
            "bootstrap_rounds": data["bootstrap_rounds"],
            "judgements": human["judgements"],
            "systems": human["systems"],
            "human": human["ratings"],
            "single_pass": human["single_pass"],
            "metric": data["metric_ratings"],
        }
    )
