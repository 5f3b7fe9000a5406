"""The partial plotly.js bundle the pages load (devtools/plotly_bundle.py) registers every trace
type the leaderboard's figures use, and is of the plotly.js release whose figures plotly.py writes."""

import json

import pytest

from devtools.plotly_bundle import bundle_contents, packaged_plotly_js_version
from leaderboard.models import Snapshot
from tests.leaderboard.leaderboard_fixtures import (
    HUMAN_ORDER,
    build_all,
    judged_campaign,
    ranking_labels,
    scored_dataset,
)


def trace_types(node):
    """The trace types of every figure in ``node`` (plotly's default type is scatter)."""
    if isinstance(node, dict):
        if isinstance(node.get("data"), list) and isinstance(node.get("layout"), dict):
            return {trace.get("type", "scatter") for trace in node["data"]}
        return set().union(*(trace_types(value) for value in node.values()))
    return set()


def test_the_bundle_is_of_the_plotly_js_release_the_plotly_package_ships():
    version, _ = bundle_contents()
    assert version == packaged_plotly_js_version()


@pytest.mark.django_db
def test_the_bundle_registers_every_trace_type_of_the_figures():
    dataset, systems = scored_dataset()
    judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    build_all()
    plots = json.loads(Snapshot.objects.get(dataset=dataset, newest=True).plots)
    used = trace_types(plots)
    _, registered = bundle_contents()
    # A radar, heatmaps, bars and points: all four kinds, none missing from the bundle.
    assert used == {"scatterpolar", "heatmap", "bar", "scatter"} <= set(registered)
