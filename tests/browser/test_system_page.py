"""The system page in Chromium, at a desktop width (1280 px) and on a 390 px phone: reached from the
leaderboard's row, it shows the generated system's provenance, its replicate group and its scores,
and nothing but the scores table (which scrolls in its own frame) is wider than the screen.
Screenshots go to GENRES_SCREENSHOT_DIR when set, else to a temporary directory."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from leaderboard.jobs import build_snapshots
from scoring.genres.scorer import ScoreSettings
from scoring.jobs import run_in_process
from scoring.models import System
from scoring.models.runs import ScoringRun
from tests.browser.annotator_pages import sign_in
from tests.scoring.run_fixtures import generated_replicates, tiny_dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ADMIN, PASSWORD = "systems-admin", "systems-admin-pass-123"
SYSTEM = "llama3-8b seed 1"


@pytest.fixture
def admin_page(live_server, sized_page, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    admin = get_user_model().objects.create_superuser(ADMIN, "systems-admin@example.org", PASSWORD)
    dataset = tiny_dataset()
    generated_replicates(dataset, admin)
    run_in_process(ScoringRun.create(dataset, System.objects.all(), ["us"], ScoreSettings()))
    build_snapshots(dataset)
    sign_in(sized_page, live_server.url, ADMIN, PASSWORD)
    return sized_page


def overflowing(page):
    """Elements wider than the screen outside a scrolling table frame: none on a finished page."""
    return page.evaluate(
        """() => [...document.querySelectorAll('main *')]
            .filter(element => !element.closest('.table-wrap'))
            .filter(element => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .map(element => element.tagName + '.' + element.className)"""
    )


def test_from_the_leaderboard_row_to_the_system_page(live_server, admin_page, screenshot_dir):
    page = admin_page
    page.goto(f"{live_server.url}/leaderboard/tiny/")
    page.locator("#scores-table").get_by_role("link", name=SYSTEM).click()

    expect(page.locator("h1")).to_have_text(SYSTEM)
    provenance = page.locator("#provenance")
    expect(provenance).to_contain_text("10.1.2.3:8000")
    expect(provenance).to_contain_text("open-gre v1")
    expect(page.locator("#replicates")).to_contain_text("2 runs on this dataset")
    expect(page.locator("table.scores tbody tr")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert overflowing(page) == []
    page.screenshot(path=str(screenshot_dir / f"system-page-{page.width_name}.png"), full_page=True)

    page.get_by_role("link", name="llama3-8b seed 54").click()  # its replicate
    expect(page.locator("h1")).to_have_text("llama3-8b seed 54")
