"""Leaderboard pages, their JSON and CSV downloads. The data comes from ``leaderboard.services``."""

from functools import wraps
from urllib.parse import urlencode

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET

from leaderboard import access, exports, services
from scoring.models import Dataset
from scoring.views import datasets_with_counts

# Sections of the dataset page that the live refresh re-renders, and what each depends on.
SECTIONS = {
    "verdict": ("judgements", "scores"),
    "scores": ("scores",),
    "human": ("judgements",),
    "comparison": ("judgements", "scores"),
}


def leaderboard_view(json=False):
    """Apply the access rules: sign-in unless public, and never a dataset the user annotates blind."""

    def decorator(view):
        @wraps(view)
        def wrapped(request, name=None, **kwargs):
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
            except services.LeaderboardError as error:
                if json:
                    return JsonResponse({"error": str(error)}, status=400)
                return render(
                    request, "leaderboard/refused.html", {"dataset": dataset, "reason": str(error)}, status=400
                )

        return require_GET(wrapped)

    return decorator


def _leaderboard(request, dataset):
    return services.leaderboard(
        dataset, setting_key=request.GET.get("setting"), margin=services.parse_margin(request.GET.get("margin"))
    )


@leaderboard_view()
def index(request):
    hidden = access.hidden_dataset_ids(request.user)
    datasets = datasets_with_counts().exclude(pk__in=hidden)
    summaries = [
        {"dataset": dataset, "summary": services.index_summary(dataset)} for dataset in datasets.order_by("name")
    ]
    return render(request, "leaderboard/index.html", {"summaries": summaries, "hidden": len(hidden)})


def csv_links(dataset, request):
    """CSV download URLs of the tables, for the same setting and margin as the page."""
    # Only what selects the data; "change" and "method" belong to the page, not to the tables.
    query = urlencode({key: request.GET[key] for key in ("setting", "margin") if request.GET.get(key)})
    return {
        table: reverse("leaderboard_csv", args=[dataset.name, table]) + (f"?{query}" if query else "")
        for table in exports.CSV_TABLES
    }


@leaderboard_view()
def dataset_page(request, dataset):
    data = _leaderboard(request, dataset)
    context = exports.section_context(data, csv_links(dataset, request))
    return render(request, "leaderboard/dataset.html", {**context, "dataset": dataset})


@leaderboard_view(json=True)
def dataset_sections(request, dataset):
    """The page's sections, re-rendered, and its figures: what the live refresh fetches."""
    data = _leaderboard(request, dataset)
    changes = set(request.GET.getlist("change")) or {"judgements", "scores"}
    context = exports.section_context(data, csv_links(dataset, request))
    sections = {
        section: render_to_string(f"leaderboard/section_{section}.html", context, request=request)
        for section, depends_on in SECTIONS.items()
        if changes & set(depends_on)
    }
    return JsonResponse({"sections": sections, "plots": data["plots"]})


@leaderboard_view(json=True)
def dataset_json(request, dataset):
    return JsonResponse(exports.leaderboard_json(_leaderboard(request, dataset)), json_dumps_params={"indent": 1})


@leaderboard_view(json=True)
def dataset_csv(request, dataset, table):
    if table not in exports.CSV_TABLES:
        raise Http404(f"No table named {table}.")
    data = _leaderboard(request, dataset)
    response = HttpResponse(exports.csv_text(table, data), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{exports.csv_file_name(dataset.name, table)}"'
    return response
