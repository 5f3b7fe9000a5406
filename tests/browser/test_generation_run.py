"""As the admin, generate outputs for a tiny dataset from the dataset page, against the local fake
endpoint, with two seeds and scoring when done; watch the run page reach 100%, then find the
systems with their provenance on the leaderboard.

The web server and one RQ worker are subprocesses sharing a SQLite file with the test
(``file_database``, as in test_scoring_progress.py); the fake endpoint runs in the test's process.
Screenshots go to GENRES_SCREENSHOT_DIR when set, else to a temporary directory.
"""

import re

import pytest
from playwright.sync_api import expect

from devtools.fake_openai import FakeOpenAIServer
from leaderboard.jobs import build_snapshots
from scoring.models import Dataset, GenerationRun
from tests.scoring.run_fixtures import tiny_dataset
from tests.scoring.worker_fixtures import server_superuser, start_web, start_worker, stop, worker_environment

pytestmark = pytest.mark.browser
ADMIN, PASSWORD = "generation-admin", "generation-admin-pass-123"


@pytest.fixture
def site(file_database):
    """The tiny dataset, an admin, the fake endpoint, the web server and one RQ worker."""
    tiny_dataset()
    server_superuser(ADMIN, PASSWORD)
    env = worker_environment(file_database)
    with FakeOpenAIServer(latency=0.2) as endpoint:
        endpoint.reply_with(lambda prompt: '[["Marie Curie", "born in", "Warsaw"]]')
        worker = start_worker(env, burst=False)
        try:
            web, base = start_web(env)
        except BaseException:
            stop(worker)
            raise
        try:
            yield base, endpoint
        finally:
            stop(web, worker)


@pytest.mark.slow
def test_admin_generates_two_replicates_watches_them_and_finds_their_provenance(site, page, screenshot_dir):
    base, endpoint = site
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", ADMIN)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")
    page.goto(f"{base}/datasets/tiny/")
    page.click("text=Generate outputs")
    page.fill("#id_base_url", endpoint.base_url)
    page.fill("#id_model", "fake-llm")
    page.fill("#id_seeds", "54,64")
    page.fill("#id_chunk_texts", "1")  # three texts: the bar moves in thirds
    page.check("#id_score_when_done")
    page.click("button[value=estimate]")
    expect(page.locator("#estimate")).to_contain_text("6 requests")
    page.screenshot(path=str(screenshot_dir / "generation-form.png"), full_page=True)
    page.click("button[value=start]")

    expect(page).to_have_url(re.compile(r"/generations/\d+/$"))
    expect(page.locator("[data-field=chunks_total]")).to_have_text("3")
    # The page reloads itself when the run finishes, and then lists its systems.
    expect(page.locator(".run-status").first).to_have_text("Done", timeout=60_000)
    expect(page.locator("#systems")).to_contain_text("fake-llm seed 64")
    expect(page.locator("#provenance")).to_contain_text(endpoint.base_url.split("/")[2])
    page.screenshot(path=str(screenshot_dir / "generation-run.png"), full_page=True)

    page.click("#systems a")  # the scoring run asked for when done
    expect(page.locator(".run-status").first).to_have_text("Done", timeout=60_000)
    build_snapshots(Dataset.objects.get(name="tiny"))
    page.goto(f"{base}/leaderboard/tiny/")
    generated = page.locator("table.generated")
    expect(generated).to_contain_text("fake-llm seed 54")
    expect(generated).to_contain_text("open-gre v1")
    page.screenshot(path=str(screenshot_dir / "generation-leaderboard.png"), full_page=True)
    assert GenerationRun.objects.get().scoring_run.status == "done"
