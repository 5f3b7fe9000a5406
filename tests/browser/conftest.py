"""Headless Chromium (Playwright, sync API) against pytest-django's live server.

Every test here gets a fresh browser context; when a test fails, the page it was on is saved
as test-artifacts/<test name>.png for whoever reads the CI log.
"""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.browser.annotator_pages import PHONE

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="module", autouse=True)
def allow_sync_orm_beside_playwright():
    """Playwright's sync API keeps an event loop on the test thread while it runs (from the first
    browser test of a file to the file's end); the ORM calls the tests and fixtures make alongside
    it are still synchronous and safe, so Django is told not to refuse them (here only)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="module")
def chromium():
    """One browser per test file. Playwright is stopped after the file, taking its event loop off
    the thread: tests of other files run in the same process and call async_to_sync (channels),
    which refuses to run beside a loop."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def screenshot_dir(tmp_path):
    """Where a test saves the screenshots it takes on purpose: GENRES_SCREENSHOT_DIR, to look at them."""
    directory = Path(os.environ.get("GENRES_SCREENSHOT_DIR") or tmp_path)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture
def page(chromium, request):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    browser_page = context.new_page()
    yield browser_page
    report = getattr(request.node, "report_call", None)
    if report is None or report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        file_name = re.sub(r"[^\w.-]+", "_", request.node.name) + ".png"
        browser_page.screenshot(path=str(ARTIFACTS / file_name), full_page=True)
    context.close()


@pytest.fixture
def phone_page(chromium):
    """A 390 px touch screen, as a phone's browser reports it (coarse pointer, no hover)."""
    context = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture(params=["desktop", "phone"])
def sized_page(request):
    """The same test at desktop width (1280 px) and on a 390 px phone; ``page.width_name`` says which."""
    sized = request.getfixturevalue("page" if request.param == "desktop" else "phone_page")
    sized.width_name = request.param
    return sized
