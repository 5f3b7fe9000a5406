"""The ranked leaderboard and its plots, at a desktop width and on a 390 px phone.

The scores table opens ranked by the overall score with a rank column, and clicking a column
ranks by it; the rank and system columns stay in view while the scores scroll sideways; the
Elo/Bradley–Terry toggle shows no radio circle; the scatter's small multiples sit side by side on
a desktop and are stacked, titles apart, on a phone, where the heatmap drops its colour bar and
the radar's names stay inside the plot; the Figure 5 plot is drawn.
"""

import itertools
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.annotator_pages import sign_in
from tests.leaderboard.leaderboard_fixtures import build_all, ranked_dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ADMIN, PASSWORD = "board-admin", "board-admin-pass-123"


def plot_layout(page, name):
    return page.evaluate(f"document.querySelector('.plot[data-plot={name}]')._fullLayout ? 1 : 0") and page.evaluate(
        "(name) => { const layout = document.querySelector('.plot[data-plot=' + name + ']')._fullLayout;"
        " return {height: layout.height, width: layout.width,"
        " x: Object.keys(layout).filter(k => /^xaxis\\d*$/.test(k)).map(k => layout[k].domain),"
        " y: Object.keys(layout).filter(k => /^yaxis\\d*$/.test(k)).map(k => layout[k].domain),"
        " titles: (layout.annotations || []).map(a => a.text)}; }",
        name,
    )


def built_leaderboard():
    dataset = ranked_dataset()
    build_all()
    return dataset


def test_the_ranked_leaderboard_and_its_plots(live_server, sized_page, screenshot_dir):
    page = sized_page
    phone = page.width_name == "phone"
    # In a thread of its own: the build announces itself through async_to_sync, which refuses to
    # run beside Playwright's event loop.
    with ThreadPoolExecutor(1) as thread:
        dataset = thread.submit(built_leaderboard).result()
    get_user_model().objects.create_superuser(ADMIN, "board-admin@example.org", PASSWORD)
    sign_in(page, live_server.url, ADMIN, PASSWORD)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/leaderboard/{dataset.name}/")

    table = page.locator("#scores-table")
    systems = table.locator("tbody th.system-col")
    ranks = table.locator("tbody td.rank-col")
    expect(systems).to_have_text(["alpha", "beta", "gamma"])
    expect(ranks).to_have_text(["1", "2", "3"])
    expect(table.locator("th[data-column=overall]")).to_have_attribute("aria-sort", "descending")
    # Ranked by factualness instead: every system scores the same on each aspect here, so the
    # order holds; empty share is a column where lower is better and all tie.
    table.locator("th[data-column=empty_share] button").click()
    expect(ranks).to_have_text(["1–3", "1–3", "1–3"])
    table.locator("th[data-column=fs] button").click()
    expect(ranks).to_have_text(["1", "2", "3"])
    expect(table.locator("td.best").first).to_be_visible()

    # The radio circles of the Elo / BT toggle are not shown; the chosen button is.
    radio = page.locator(".method-toggle input[value=elo]")
    assert radio.evaluate("input => getComputedStyle(input).opacity") == "0"
    page.locator(".method-toggle label", has_text="Bradley").click()
    expect(page.locator(".method-toggle input[value=bt]")).to_be_checked()

    page.locator(".plot[data-plot=profile] .main-svg").first.wait_for()
    scatter = plot_layout(page, "scatter")
    titles_y = scatter["y"]
    if phone:
        # Stacked: one column, five bands that do not overlap.
        assert all(domain == [0, 1] for domain in scatter["x"])
        bands = sorted(tuple(domain) for domain in titles_y)
        assert all(lower[1] < upper[0] for lower, upper in itertools.pairwise(bands))
        assert scatter["height"] > 1000
    else:
        assert len({tuple(domain) for domain in scatter["x"]}) == 5
    heatmap_bars = page.locator(".plot[data-plot=win_rates] .colorbar")
    expect(heatmap_bars).to_have_count(0 if phone else 1)
    radar = page.locator(".plot[data-plot=profile]")
    radar_box = radar.bounding_box()
    for label in radar.locator(".angularaxistick text").all():
        box = label.bounding_box()
        assert box["x"] >= radar_box["x"] - 1 and box["x"] + box["width"] <= radar_box["x"] + radar_box["width"] + 1
    expect(page.locator(".plot[data-plot=aspects] .bars .point").first).to_be_attached()
    expect(page.locator(".plot[data-plot=scatter] .textpoint").first).to_be_attached()  # labelled points

    if phone:
        # The score columns scroll; rank and system stay put.
        wrap = page.locator("[data-section=scores] .table-wrap")
        before = systems.first.bounding_box()["x"]
        wrap.evaluate("element => { element.scrollLeft = 400; }")
        assert wrap.evaluate("element => element.scrollLeft") > 0
        assert abs(systems.first.bounding_box()["x"] - before) < 1
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert not errors
    page.screenshot(path=str(screenshot_dir / f"leaderboard-{page.width_name}.png"), full_page=True)
