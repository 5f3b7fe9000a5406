"""As the admin, upload a big dataset file: the page answers at once with a live progress block,
and reloads with the outcome when the RQ job has imported it.

The web server and the worker are subprocesses sharing a SQLite file with the test
(``file_database``, where the queued file waits too) and the test's Redis.
Screenshots go to GENRES_SCREENSHOT_DIR when set (to look at them), else to a temporary directory.
"""

import json

import pytest
from playwright.sync_api import expect

from scoring.models import Text
from tests.scoring.worker_fixtures import (
    server_superuser,
    start_web,
    start_worker,
    stop,
    worker_environment,
)

pytestmark = pytest.mark.browser
ADMIN, PASSWORD = "upload-admin", "upload-admin-pass-123"
TEXTS = 3000


@pytest.fixture
def env(file_database):
    server_superuser(ADMIN, PASSWORD)
    return worker_environment(file_database, GENRES_IMPORT_JOB_BYTES="1024")


@pytest.fixture
def site(env):
    web, base = start_web(env)
    try:
        yield base
    finally:
        stop(web)


def test_a_big_upload_shows_its_progress_then_its_outcome(env, site, page, tmp_path, screenshot_dir):
    path = tmp_path / "big.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"b{number}", "text": f"Text {number} of a big file.", "triples": [["a", "b", "c"]]})
            for number in range(TEXTS)
        ),
        encoding="utf-8",
    )
    page.goto(f"{site}/accounts/login/")
    page.fill("#id_username", ADMIN)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site}/")
    page.goto(f"{site}/upload/")
    page.fill("#id_dataset-name", "Big")
    page.set_input_files("#id_dataset-file", str(path))
    page.click("#new-dataset button[type=submit]")

    # No worker yet: the request has answered, and the import waits in the queue.
    block = page.locator("#importing")
    expect(block).to_contain_text("big.jsonl")
    expect(block.locator("[data-field=stage_label]")).to_have_text("Waiting for a worker")
    page.screenshot(path=str(screenshot_dir / "upload-queued.png"), full_page=True)

    worker = start_worker(env, burst=False)
    try:
        # The job runs; the page reloads itself when the import ends, with the outcome in the history.
        expect(page.locator("table.uploads .badge").first).to_have_text("Imported", timeout=120_000)
        expect(page.locator("#importing")).to_have_count(0)
    finally:
        stop(worker)
    expect(page.locator("table.uploads")).to_contain_text(f'Imported dataset "Big": {TEXTS:,}'.replace(",", ""))
    assert Text.objects.filter(dataset__name="Big").count() == TEXTS
    page.screenshot(path=str(screenshot_dir / "upload-imported.png"), full_page=True)
