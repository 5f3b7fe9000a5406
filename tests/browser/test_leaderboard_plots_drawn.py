"""The leaderboard's figures with the partial plotly.js bundle, at 1280 px and on a 390 px phone:
every plot is drawn without a console error, and the labels of the human-vs-score scatter never
overlap, on a leaderboard of eight long-named systems whose points crowd together (a name with
no room is left to the hover)."""

import hashlib
import itertools
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.annotator_pages import sign_in
from tests.browser.console import console_errors
from tests.leaderboard.leaderboard_fixtures import build_all, judged_campaign, scored_dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ADMIN, PASSWORD = "plots-admin", "plots-admin-pass-123"
SYSTEMS = [f"{family}-Relex-{size}B-instruct" for family in ("Llama", "Mistral", "Qwen", "Gemma") for size in (7, 13)]
LABELS = """() => [...document.querySelectorAll('.plot[data-plot=scatter] .textpoint text')]
  .filter((text) => text.textContent.trim())
  .map((text) => { const box = text.getBoundingClientRect();
                   return {name: text.textContent, left: box.left, right: box.right, top: box.top, bottom: box.bottom}; })"""


def close_scores(system, position, aspect):
    """Scores within a few points of each other: the scatter's points crowd."""
    return 0.5 + 0.01 * SYSTEMS.index(system) + 0.005 * (position % 2)


def coin_labels(aspect, system_a, system_b):
    """Near-even judgements, fixed by a hash: ratings close to each other and to 1000."""
    digest = hashlib.sha256(f"{aspect}{system_a}{system_b}".encode()).digest()[0]
    return ("a", "b", "tie")[digest % 3]


def crowded_leaderboard():
    dataset, systems = scored_dataset(name="crowded", texts=4, systems=SYSTEMS, score_of=close_scores)
    judged_campaign(dataset, systems, coin_labels, is_open=False)
    build_all()
    return dataset


def overlapping(labels):
    return [
        (first["name"], second["name"])
        for first, second in itertools.combinations(labels, 2)
        if first["left"] < second["right"] - 0.5
        and second["left"] < first["right"] - 0.5
        and first["top"] < second["bottom"] - 0.5
        and second["top"] < first["bottom"] - 0.5
    ]


def test_every_plot_is_drawn_and_no_two_labels_overlap(live_server, sized_page, screenshot_dir):
    page = sized_page
    # In a thread of its own: the build announces itself through async_to_sync, which refuses to
    # run beside Playwright's event loop.
    with ThreadPoolExecutor(1) as thread:
        dataset = thread.submit(crowded_leaderboard).result()
    get_user_model().objects.create_superuser(ADMIN, "plots-admin@example.org", PASSWORD)
    sign_in(page, live_server.url, ADMIN, PASSWORD)
    # The live server speaks no websocket: the page's live refresh failing to connect is expected here.
    errors = console_errors(page, lambda message: message.text.startswith("WebSocket connection"))
    page.goto(f"{live_server.url}/leaderboard/{dataset.name}/")

    # The partial bundle, loaded without holding the page: all figures, those out of view too.
    assert page.locator("script#plotly-js").get_attribute("src").endswith("vendor/plotly-leaderboard.min.js")
    plots = page.locator(".plot[data-plot]")
    expect(plots).to_have_count(7)
    for plot in plots.all():
        expect(plot).to_have_attribute("data-drawn", "true")
        expect(plot.locator(".main-svg").first).to_be_attached()

    scatter = page.locator(".plot[data-plot=scatter]")
    scatter.scroll_into_view_if_needed()
    page.wait_for_timeout(300)  # a resize or a late draw would place the labels again
    labels = page.evaluate(LABELS)
    assert overlapping(labels) == []
    # Five panels of eight systems: most names find a place, the others are in the hover.
    assert len(labels) >= 15, labels
    scatter.screenshot(path=str(screenshot_dir / f"leaderboard-scatter-{page.width_name}.png"))

    # The Bradley–Terry figures are drawn again, their labels placed again.
    page.locator(".method-toggle label", has_text="Bradley").click()
    expect(page.locator(".plot[data-plot=ratings] .xtitle")).to_have_text("Bradley–Terry rating (start 1000)")
    page.wait_for_timeout(300)
    assert overlapping(page.evaluate(LABELS)) == []
    assert errors == []
