"""Where an annotator starts and comes back to, at desktop width and on a 390 px phone: signing
in lands on their campaigns with "continue"; the review list tells the pairs of one text apart,
and an item reopened from it returns there after the save."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Judgement, Label
from annotation.services.judgements import save_judgements
from tests.annotation.annotator_fixtures import (
    FIRST_FOUR_LEFT,
    make_annotation_setup,
    make_user,
)
from tests.browser.annotator_pages import activate, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_in_lands_on_campaigns_and_review_returns_after_an_edit(live_server, sized_page, screenshot_dir):
    page = sized_page
    width = page.width_name
    annotator = make_user("ria")
    setup = make_annotation_setup([annotator], with_ground_truth=True)
    first, second, third, *_ = setup.assignments(annotator)  # the three pairs of the first text
    for version, assignment in enumerate((first, second, third)):
        save_judgements(assignment, {code: "tie" for code in FIRST_FOUR_LEFT}, expected_version=0, seconds=4 + version)
    for assignment in (first, second, third):
        save_judgements(assignment, {"cs": "tie"}, expected_version=1, seconds=3)
    base = live_server.url

    # Signing in leads to the campaigns, with the next item one click away.
    sign_in(page, base, "ria", "ria-pass-123")
    expect(page).to_have_url(base + reverse("annotation:annotate_home"))
    expect(page.locator(".campaign-card")).to_contain_text("3 of 9 pairs, 15 of 45 judgements")
    expect(page.locator(".campaign-card a.button.primary")).to_have_text("Continue")
    page.screenshot(path=screenshot_dir / f"start-{width}.png", full_page=True)

    # The review list: three rows of one text, told apart by queue number and pair.
    activate(page, width, "text=Review my judgements")
    rows = page.locator(".review-table tbody tr")
    expect(rows).to_have_count(3)
    second_row = page.locator(f"#item-{second.public_id}")
    expect(second_row.locator(".item-number")).to_have_text(re.compile(r"2\s*of 9"))
    expect(second_row).to_contain_text("pair 2 of 3")
    expect(second_row.locator(".given-value")).to_have_text(["tie"] * 5)
    page.screenshot(path=screenshot_dir / f"review-{width}.png", full_page=True)

    # Reopen the second pair, change its completeness: the save returns to the list, on its row.
    activate(page, width, second_row.locator("a.reopen"))
    page.wait_for_url(base + reverse("annotation:annotate_item", args=[second.public_id]) + "?from=review")
    expect(page.locator(".annotate-bar .back")).to_have_text("← My judgements")
    expect(page.locator("fieldset.aspect.current")).to_have_attribute("data-aspect", "cs")
    activate(page, width, "fieldset.aspect.current .choice-left")
    activate(page, width, ".save-button")
    page.wait_for_url(f"{base}{reverse('annotation:annotate_review')}#item-{second.public_id}")
    # The list shows the choice as the page showed it (A, the left side), not the system behind it.
    expect(page.locator(f"#item-{second.public_id} .given-value").last).to_have_text("A")
    expect(page.locator(".review-table tbody tr").first).to_have_attribute("id", f"item-{second.public_id}")
    expect(page.locator(f"#item-{second.public_id} .changed")).to_contain_text("just now")
    canonical = Label.A if second.a_on_left else Label.B
    assert Judgement.objects.get(assignment=second, aspect="cs").label == canonical
    page.screenshot(path=screenshot_dir / f"review-after-edit-{width}.png", full_page=True)


def test_staff_still_land_on_the_datasets(live_server, page, admin_user):
    sign_in(page, live_server.url, "admin", "admin-pass-123")
    expect(page).to_have_url(live_server.url + reverse("scoring:home"))
