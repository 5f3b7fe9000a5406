"""The new-campaign form at desktop width and on a 390 px phone: the system checkboxes follow the
chosen dataset, and a campaign is created from what they offer."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign
from tests.annotation.campaign_factories import make_annotators
from tests.browser.annotator_pages import activate, sign_in
from tests.factories import make_dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_systems_follow_the_chosen_dataset(live_server, sized_page, screenshot_dir, admin_user):
    page = sized_page
    width = page.width_name
    news, _ = make_dataset(name="News", texts=4, systems=("news-model-1", "news-model-2"))
    science, _ = make_dataset(name="Science", texts=4, systems=("sci-model-1", "sci-model-2", "sci-model-3"))
    make_annotators(2)
    sign_in(page, live_server.url, "admin", "admin-pass-123")
    page.goto(live_server.url + reverse("annotation:campaign_create"))

    systems = page.locator("#id_systems input[type=checkbox]")
    expect(page.locator(".systems-note")).to_have_text("Choose a dataset: its systems appear here.")
    expect(page.locator("#id_systems input[type=checkbox]:visible")).to_have_count(0)

    page.select_option("#id_dataset", label="Science")
    expect(page.locator("#id_systems input[type=checkbox]:visible")).to_have_count(3)
    expect(page.locator(".systems-note")).to_have_text("3 systems with outputs in this dataset.")
    activate(page, width, page.get_by_label("sci-model-1 (Science)"))
    activate(page, width, page.get_by_label("sci-model-3 (Science)"))
    page.screenshot(path=screenshot_dir / f"campaign-form-{width}.png", full_page=True)

    # Another dataset: its own systems, and the science picks are unchecked, never sent.
    page.select_option("#id_dataset", label="News")
    expect(page.locator("#id_systems input[type=checkbox]:visible")).to_have_count(2)
    expect(systems.and_(page.locator(":checked"))).to_have_count(0)
    page.select_option("#id_dataset", label="Science")
    activate(page, width, page.get_by_label("sci-model-2 (Science)"))
    activate(page, width, page.get_by_label("sci-model-3 (Science)"))

    page.fill("#id_name", f"Science pilot {width}")
    page.fill("#id_sample_size", "2")
    activate(page, width, page.get_by_label("annotator0"))
    activate(page, width, page.get_by_label("annotator1"))
    activate(page, width, "main button[type=submit]")
    expect(page.locator(".messages")).to_contain_text(f"Campaign Science pilot {width} created: 2 items on 2 texts")
    campaign = Campaign.objects.get(name=f"Science pilot {width}")
    assert campaign.dataset == science
    assert sorted(system.name for system in campaign.systems.all()) == ["sci-model-2", "sci-model-3"]
    assert news.pk != science.pk


def test_without_javascript_every_system_shows_and_a_wrong_pick_is_refused_by_name(
    live_server, chromium, screenshot_dir, admin_user
):
    make_dataset(name="News", texts=4, systems=("news-model-1", "news-model-2"))
    make_dataset(name="Science", texts=4, systems=("sci-model-1", "sci-model-2"))
    make_annotators(1)
    context = chromium.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, live_server.url, "admin", "admin-pass-123")
    page.goto(live_server.url + reverse("annotation:campaign_create"))
    expect(page.locator("#id_systems input[type=checkbox]:visible")).to_have_count(4)
    expect(page.locator(".systems-note")).to_have_count(0)
    page.fill("#id_name", "Mixed pick")
    page.select_option("#id_dataset", label="Science")
    page.get_by_label("sci-model-1 (Science)").check()
    page.get_by_label("news-model-2 (News)").check()
    page.fill("#id_sample_size", "2")
    page.get_by_label("annotator0").check()
    page.click("main button[type=submit]")
    expect(page.locator(".form-row.invalid")).to_contain_text(
        "news-model-2 has no outputs in Science: choose among sci-model-1, sci-model-2."
    )
    page.screenshot(path=screenshot_dir / "campaign-form-refused-without-js.png", full_page=True)
    assert not Campaign.objects.exists()
    context.close()
