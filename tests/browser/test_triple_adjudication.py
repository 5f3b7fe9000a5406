"""Adjudicating a triple check in Chromium, at 1280 px and on a 390 px phone: staff open the
disagreements from the campaign's page and settle them by keyboard (J to the next, P back, Y/N
and a digit, Enter records and opens the next unsettled one); the leaderboard keeps its built
figures until the rebuild the adjudication scheduled has run, and its judge-agreement table then
counts the adjudicated labels and scores the judge against them."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import expect

from annotation.triple_checks.models import TripleAdjudication
from tests.annotation.triple_check_fixtures import label_with_disagreements, make_triple_check
from tests.browser.annotator_pages import activate, press, sign_in
from tests.leaderboard.leaderboard_fixtures import build_all

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"
CAREFUL_ROW = "#judge-agreement tbody tr:has-text('careful · careful-model')"


def build_as_the_worker_does():
    # In a thread of its own: the build announces itself through async_to_sync, which refuses to
    # run beside Playwright's event loop.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(build_all).result()


def expect_careful_judge(page, adjudicated, accuracy):
    # Columns: judge, triples, adjudicated, accuracy, …
    expect(page.locator(f"{CAREFUL_ROW} td:nth-of-type(2)")).to_have_text(adjudicated)
    expect(page.locator(f"{CAREFUL_ROW} td:nth-of-type(3)")).to_contain_text(accuracy)


def test_staff_adjudicate_by_keyboard_and_the_leaderboard_follows(live_server, sized_page, screenshot_dir):
    page, width, base = sized_page, sized_page.width_name, live_server.url
    campaign = make_triple_check()
    split = label_with_disagreements(campaign)
    build_as_the_worker_does()
    User.objects.create_superuser("lead", "lead@example.org", "lead-pass-123")
    sign_in(page, base, "lead", "lead-pass-123")
    board = base + reverse("leaderboard:dataset", args=[campaign.dataset.name])
    page.goto(board)
    expect_careful_judge(page, "0", "1.00")

    page.goto(base + campaign.get_absolute_url())
    activate(page, width, "#adjudicate-link")
    expect(page.locator("#triple-disagreements tbody tr")).to_have_count(2)
    activate(page, width, "#start-adjudicating")
    expect(page.locator("#annotator-answers")).to_contain_text("none (even split)")
    first = page.url
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    form, text = page.locator("#triple-form").bounding_box(), page.locator(".text-card").bounding_box()
    assert (form["y"] > text["y"] + text["height"] - 1) == (width == "phone")  # stacked on the phone
    page.screenshot(path=screenshot_dir / f"triple-adjudication-{width}.png", full_page=True)
    press(page, "j")
    page.wait_for_url(lambda url: url != first)
    expect(page.locator("#annotator-answers")).to_contain_text("Annotator 2")
    press(page, "p")
    page.wait_for_url(first)
    press(page, "y", "1", "Enter")  # the triple without a majority: supported, one fact
    page.wait_for_url(lambda url: url != first)
    second = page.url
    press(page, "n", "2", "Enter")  # the triple split on facts: overruled, not supported
    page.wait_for_url(lambda url: url != second)
    expect(page.locator("#triple-disagreements")).to_contain_text("not supported, 2")
    page.screenshot(path=screenshot_dir / f"triple-adjudication-list-{width}.png", full_page=True)
    settled = {(each.item_id, each.supported, each.facts) for each in TripleAdjudication.objects.all()}
    assert settled == {(split["no_majority"].pk, True, 1), (split["facts"].pk, False, 2)}

    # The request only scheduled the rebuild: the leaderboard shows the last build until it runs.
    page.goto(board)
    expect_careful_judge(page, "0", "1.00")
    build_as_the_worker_does()
    page.goto(board)
    # The overruled triple weighs 4 of the sample's 24: the careful judge is now right on 20.
    expect_careful_judge(page, "2", "0.83")
    expect(page.locator("#gold-source")).to_contain_text("2 adjudicated")
    activate(page, width, ".judge-details summary")
    page.locator(".judge-details").screenshot(path=screenshot_dir / f"triple-adjudication-judges-{width}.png")
