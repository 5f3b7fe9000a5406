"""Adjudication in the browser, at desktop width and on a 390 px phone: staff filter the
disagreements, open one, resolve it with a note, and the CSV download carries the resolution;
the quality page's agreement matrix; closing the campaign through its confirmation page."""

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from tests.annotation.adjudication_fixtures import make_disputed_campaign, make_people
from tests.browser.annotator_pages import activate, sign_in
from tests.browser.study_steps import resolve

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def signed_in_staff(live_server, page):
    """The disputed campaign, and its staff member signed in on ``page``; returns (campaign, base URL)."""
    annotators, _, staff = make_people()
    staff.set_password("boss-pass-123")
    staff.save()
    campaign = make_disputed_campaign(annotators).campaign
    sign_in(page, live_server.url, "boss", "boss-pass-123")
    return campaign, live_server.url


def test_staff_resolve_a_disagreement_and_the_export_shows_it(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    campaign, base = signed_in_staff(live_server, page)
    page.goto(base + campaign.get_absolute_url())
    activate(page, width, "a.button:has-text('Adjudication')")
    expect(page.locator("#disagreements tbody tr")).to_have_count(6)
    page.select_option("#id_margin", "1.0")
    activate(page, width, ".adjudication-filters button")
    expect(page.locator("#disagreements tbody tr")).to_have_count(3)
    page.screenshot(path=screenshot_dir / f"adjudication-list-{width}.png", full_page=True)

    activate(page, width, "#disagreements tbody tr:first-child a")
    expect(page.locator("#aspect-ts")).to_contain_text("opposite sides")
    expect(page.locator("#annotators")).to_contain_text("<i>A is plainly on topic</i>")
    page.screenshot(path=screenshot_dir / f"adjudication-item-{width}.png", full_page=True)
    resolve(page, width, "ts", "System B better", "B names what the text is about.")
    expect(page.locator("#aspect-ts")).to_contain_text("Resolved: System B better by boss")

    csv_text = page.request.get(base + reverse("annotation:campaign_csv", args=[campaign.pk])).text()
    rows = [row for row in csv.DictReader(io.StringIO(csv_text)) if row["adjudicated"]]
    assert len(rows) == 2 and {row["aspect"] for row in rows} == {"ts"}
    assert {(row["adjudicated"], row["adjudication_note"], row["adjudicated_by"]) for row in rows} == {
        ("b", "B names what the text is about.", "boss")
    }
    assert get_user_model().objects.get(username="boss").annotation_resolutions.count() == 1


def test_the_matrix_and_closing_with_confirmation(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    campaign, base = signed_in_staff(live_server, page)
    page.goto(base + reverse("annotation:campaign_quality", args=[campaign.pk]))
    expect(page.locator("#agreement-matrix")).to_contain_text("ann-two")
    expect(page.locator("#aspect-reliability")).to_contain_text("Fleiss")
    page.locator("#agreement-matrix").screenshot(path=screenshot_dir / f"agreement-matrix-{width}.png")

    page.goto(base + campaign.get_absolute_url())
    page.screenshot(path=screenshot_dir / f"campaign-{width}.png", full_page=True)
    activate(page, width, "a.button:has-text('Close the campaign')")
    expect(page.locator("#close-campaign")).to_contain_text("still pending")
    page.screenshot(path=screenshot_dir / f"close-campaign-{width}.png", full_page=True)
    activate(page, width, "#close-campaign button[name=confirm]")
    expect(page.locator("h1 .badge")).to_have_text("closed")
