"""The researcher's page, in Chromium: the demo leaderboard, scored and judged; sort a column,
switch Elo to Bradley–Terry, plots drawn without console errors, and a judgement saved elsewhere
appears without a reload. Then the offline export opens with the network switched off.

The page needs websockets, so the web server (as serve runs it) is a subprocess sharing a SQLite file
with the test (``file_database``, as in test_scoring_progress.py) and the test's Redis, which
also carries the notification from the judgement saved here. Screenshots go to
GENRES_SCREENSHOT_DIR when set, else to a temporary directory.
"""

import random
import re
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from annotation.models import ASPECTS, FIRST_ASPECTS, Assignment, Judgement
from annotation.services.campaigns import create_campaign
from leaderboard.jobs import QUEUE as LEADERBOARD_QUEUE
from leaderboard.jobs import build_snapshots
from scoring.models import Dataset, System
from scoring.models.scores import TextScore
from tests.browser.console import console_errors as shared_console_errors
from tests.scoring.worker_fixtures import (
    BASE_DIR,
    server_superuser,
    start_web,
    stop,
    worker_environment,
)

pytestmark = pytest.mark.browser
# Not the demo's own "researcher", which load_demo creates with a password of its own.
RESEARCHER, PASSWORD = "lb-reader", "lb-reader-pass-123"
DATASET = "demo-sentences"
COLD_BUILD_MS = 60_000
SAVE_PENDING = """
from annotation.models import Assignment
from annotation.services.judgements import save_judgements
pending = Assignment.objects.get(pk={pk})
save_judgements(pending, dict.fromkeys({aspects}, "left"), expected_version=pending.version, seconds=20)
"""


def manage(env, *args):
    subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, check=True, capture_output=True)


def judge_like_the_scores(campaign, leave_pending):
    """Judge every assignment but ``leave_pending`` the way noisy readers of the scores would."""
    scores = {
        (metric, text, system): values[metric]
        for metric, text, system, values in TextScore.objects.filter(
            output__text__dataset=campaign.dataset, metric__in=ASPECTS
        ).values_list("metric", "output__text_id", "output__system__name", "values")
    }
    rng = random.Random(4)
    judgements = []
    assignments = Assignment.objects.filter(item__campaign=campaign).exclude(pk=leave_pending.pk)
    for assignment in assignments.select_related("item__system_a", "item__system_b"):
        item = assignment.item
        for aspect in ASPECTS:
            difference = (
                scores[aspect, item.text_id, item.system_a.name] - scores[aspect, item.text_id, item.system_b.name]
            )
            difference += rng.gauss(0, 0.25)
            label = "a" if difference > 0.1 else "b" if difference < -0.1 else "tie"
            judgements.append(Judgement(assignment=assignment, aspect=aspect, label=label))
    Judgement.objects.bulk_create(judgements)
    assignments.update(status=Assignment.Status.DONE)


@pytest.fixture
def site(file_database):
    """The demo data scored, an open campaign judged but for one item, the web server; base URL and state."""
    env = worker_environment(file_database)
    manage(env, "load_demo")
    manage(env, "score_outputs", "--dataset", DATASET, "--sync")
    server_superuser(RESEARCHER, PASSWORD)
    dataset = Dataset.objects.get(name=DATASET)
    systems = System.objects.filter(
        name__in=["ClosedIE-T5", "OpenIE-Verbose-7B", "GPT-Fabulist-3.5", "Vicuna-Relex-7B"]
    )
    # Not the demo's annotators: they hold some of these texts in the demo's campaign, and an
    # annotator reads a text in one campaign only.
    annotators = [get_user_model().objects.create_user(f"study-rater{number}") for number in (1, 2)]
    campaign = create_campaign(
        name="Demo study", dataset=dataset, systems=[*systems, System.ground_truth()], annotators=annotators,
        seed=5, overlap_share=0.5, sample_size=10,
    ).campaign  # fmt: skip
    pending = Assignment.objects.filter(item__campaign=campaign).order_by("pk").first()
    judge_like_the_scores(campaign, pending)
    judged = Judgement.objects.filter(assignment__item__campaign__dataset=dataset).count()  # the demo's own too
    build_snapshots(dataset)  # the judgements above were bulk-inserted: no rebuild was scheduled

    web, base = start_web(env)
    # The leaderboard worker builds what the page's live refresh shows.
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "rqworker", LEADERBOARD_QUEUE], cwd=BASE_DIR, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0,
    )  # fmt: skip
    try:
        yield {"base": base, "env": env, "pending": pending, "judged": judged}
    finally:
        stop(worker)
        stop(web)


def console_errors(page):
    return shared_console_errors(page, lambda message: message.location.get("url", "").endswith("favicon.ico"))


def expect_plots_drawn(page):
    for name in ("aspects", "ratings", "scatter", "win_rates", "profile"):
        expect(page.locator(f'.plot[data-plot="{name}"] .main-svg').first).to_be_visible()


def column_values(page, key):
    table = page.locator("#scores-table")
    keys = [header.get_attribute("data-column") for header in table.locator("thead tr:not(.groups) th").all()]
    cells = table.locator(f"tbody tr > :nth-child({keys.index(key) + 1})").all()
    return [float(cell.get_attribute("data-sort")) for cell in cells]


@pytest.mark.slow
def test_the_demo_leaderboard(site, page, screenshot_dir, tmp_path):
    base = site["base"]
    errors = console_errors(page)
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", RESEARCHER)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")

    # Cold pages build every part once (bootstrap ratings of each aspect): give them time.
    page.click("nav.mainnav >> text=Leaderboards", timeout=COLD_BUILD_MS)
    expect(page.locator(".lb-dataset", has_text=DATASET).locator(".verdict")).to_contain_text("Kendall τ")
    page.screenshot(path=str(screenshot_dir / "leaderboard-index.png"), full_page=True)

    page.click(f".lb-dataset >> text={DATASET}", timeout=COLD_BUILD_MS)
    root = page.locator("#leaderboard")
    expect(root).to_have_attribute("data-live", "true")
    expect_plots_drawn(page)
    expect(page.locator("#scores-table tbody tr.ground-truth")).to_contain_text("Ground truth")
    page.screenshot(path=str(screenshot_dir / "leaderboard.png"), full_page=True)

    # Sort by factualness: highest first, then lowest first.
    fs_button = page.locator('#scores-table th[data-column="fs"] button')
    fs_button.click()
    expect(fs_button.locator("xpath=..")).to_have_attribute("aria-sort", "descending")
    values = column_values(page, "fs")
    assert values == sorted(values, reverse=True)
    fs_button.click()
    expect(fs_button.locator("xpath=..")).to_have_attribute("aria-sort", "ascending")
    values = column_values(page, "fs")
    assert values == sorted(values)

    # Elo ↔ Bradley–Terry: the tables and the rating plots switch.
    human = page.locator('[data-section="human"]')
    expect(human.locator('[data-method="elo"]')).to_be_visible()
    page.click("label:has-text('Bradley–Terry')")
    expect(human.locator('[data-method="bt"]')).to_be_visible()
    expect(human.locator('[data-method="elo"]')).to_be_hidden()
    expect(page.locator('.plot[data-plot="ratings"] .xtitle')).to_have_text("Bradley–Terry rating (start 1000)")
    page.locator('[data-section="human"]').screenshot(path=str(screenshot_dir / "leaderboard-human-bt.png"))

    # Another session saves judgements: the human sections refresh in place, Bradley–Terry still shown.
    summary = human.locator("p.muted").first
    expect(summary).to_contain_text(f"{site['judged']} judgements")
    # Another process, as an annotator's request would be: its commit notifies through Redis.
    manage(site["env"], "shell", "-c", SAVE_PENDING.format(pk=site["pending"].pk, aspects=list(FIRST_ASPECTS)))
    expect(summary).to_contain_text(f"{site['judged'] + len(FIRST_ASPECTS)} judgements", timeout=COLD_BUILD_MS)
    expect(root).to_have_attribute("data-refreshed", re.compile(r"^\d+$"))
    expect(human.locator('[data-method="bt"]')).to_be_visible()
    expect(page.locator("#live-status")).to_contain_text("updated")
    expect_plots_drawn(page)
    assert errors == []

    # The offline export: the same page from a file, with the network off.
    out = tmp_path / "export"
    manage(site["env"], "export_leaderboard", "--dataset", DATASET, "--out", str(out))
    offline = page.context.browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    exported = offline.new_page()
    offline_errors = console_errors(exported)
    exported.goto((out / "index.html").as_uri())
    expect_plots_drawn(exported)
    expect(exported.locator("#scores-table")).to_contain_text("ClosedIE-T5")
    exported.locator('#scores-table th[data-column="cs"] button').click()
    expect(exported.locator('#scores-table th[data-column="cs"]')).to_have_attribute("aria-sort", "descending")
    exported.screenshot(path=str(screenshot_dir / "leaderboard-export.png"), full_page=True)
    offline.close()
    assert offline_errors == []
