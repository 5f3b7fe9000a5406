"""As the admin, start a scoring run on the demo data from the dataset page and watch it finish.

The page needs websockets, so the web server (as serve runs it) is a subprocess, with an RQ worker
beside it; both share a SQLite file with the test (``file_database``) and the test's Redis.
Screenshots of the run page and of the dataset page with its scores go to
GENRES_SCREENSHOT_DIR when set (to look at them), else to a temporary directory.
"""

import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from tests.scoring.worker_fixtures import (
    BASE_DIR,
    server_superuser,
    start_web,
    start_worker,
    stop,
    worker_environment,
)

pytestmark = pytest.mark.browser
ADMIN, PASSWORD = "run-admin", "run-admin-pass-123"


@pytest.fixture
def site(file_database):
    """Demo data, an admin, the web server and one RQ worker; the site's base URL."""
    env = worker_environment(file_database)
    # In a process of its own, as `make demo` runs it (and away from Playwright's event loop).
    subprocess.run([sys.executable, "manage.py", "load_demo"], cwd=BASE_DIR, env=env, check=True, capture_output=True)
    server_superuser(ADMIN, PASSWORD)
    worker = start_worker(env, burst=False)
    try:
        web, base = start_web(env)
    except BaseException:
        stop(worker)
        raise
    try:
        yield base
    finally:
        stop(web, worker)


@pytest.mark.slow
def test_admin_starts_a_run_and_watches_it_reach_100_percent(site, page, screenshot_dir):
    frames = []

    def record_frames(socket):
        socket.on("framereceived", lambda payload: frames.append(payload))

    page.on("websocket", record_frames)
    page.goto(f"{site}/accounts/login/")
    page.fill("#id_username", ADMIN)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site}/")
    page.goto(f"{site}/datasets/demo-sentences/")
    page.click("text=New scoring run")
    expect(page.locator("#estimate")).to_contain_text("No judge requests")
    expect(page.locator("#id_fs_prompt")).to_be_empty()  # optional: the app's own prompts
    page.screenshot(path=str(screenshot_dir / "run-form.png"), full_page=True)
    page.fill("#id_chunk_texts", "10")  # 40 texts: four chunks, the bar moves in quarters
    page.click("button[value=start]")

    expect(page).to_have_url(re.compile(r"/runs/\d+/$"))
    expect(page.locator("[data-field=chunks_total]")).to_have_text("4")
    bar = page.locator("#run-progress .progress")
    # The page reloads itself when the run finishes, and then renders the scores.
    expect(page.locator(".run-status").first).to_have_text("Done", timeout=120_000)
    expect(bar).to_have_attribute("aria-valuenow", "100")
    expect(page.locator("[data-field=chunks_done]")).to_have_text("4")
    expect(page.locator("table.scores")).to_contain_text("ClosedIE-T5")
    assert frames, "no progress arrived over the websocket"
    page.screenshot(path=str(screenshot_dir / "scoring-run.png"), full_page=True)

    page.click("nav.breadcrumbs >> text=demo-sentences")
    scores = page.locator("table.scores")
    expect(scores).to_contain_text("Ground truth")
    expect(page.locator("text=FS and GS come from the heuristic judge")).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "dataset-scores.png"), full_page=True)

    page.locator("a[href*='/texts/']").first.click()  # each output's scores and the judge's verdicts
    page.locator("details.verdicts summary").first.click()
    expect(page.locator("ol.verdicts").first).to_contain_text("supported")
    page.screenshot(path=str(screenshot_dir / "text-verdicts.png"), full_page=True)
