"""A triple check in Chromium, at 1280 px and on a 390 px phone: an annotator labels triples by
keyboard (Y/N, a digit, Enter, P to go back) without any system name on the page; staff see the
judge table."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import expect

from annotation.triple_checks.models import TripleLabel
from tests.annotation.triple_check_fixtures import make_triple_check
from tests.browser.annotator_pages import activate, press, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SYSTEM_NAMES = ("sys-one", "sys-two")
LABELLED_BY_KEYBOARD = 3
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


def test_an_annotator_labels_by_keyboard_and_staff_see_the_judges(live_server, sized_page, screenshot_dir):
    page, width, base = sized_page, sized_page.width_name, live_server.url
    campaign = make_triple_check()
    sign_in(page, base, "checker1", "checker-pass-123")
    page.goto(base + reverse("annotation:annotate_home"))
    activate(page, width, page.locator(".triple-check-card a.button"))
    for number in range(LABELLED_BY_KEYBOARD):
        expect(page.locator("#checked-triple")).to_be_visible()
        content = page.content()
        assert not any(name in content for name in SYSTEM_NAMES)
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        if number == 0:
            form, text = page.locator("#triple-form").bounding_box(), page.locator(".text-card").bounding_box()
            # Beside the text on a desktop, below it on the phone.
            assert (form["y"] > text["y"] + text["height"] - 1) == (width == "phone")
            page.screenshot(path=screenshot_dir / f"triple-check-{width}.png", full_page=True)
        url = page.url
        press(page, "n" if number == 1 else "y", "2" if number == 2 else "1", "Enter")
        page.wait_for_url(lambda new, url=url: new != url)
    # P goes back to the triple just labelled, its answers shown.
    press(page, "p")
    expect(page.locator('input[name="facts"][value="2"]')).to_be_checked()
    expect(page.locator('input[name="supported"][value="yes"]')).to_be_checked()
    saved = TripleLabel.objects.answered().filter(annotator__username="checker1").order_by("saved_at")
    assert [(label.supported, label.facts) for label in saved] == [(True, 1), (False, 1), (True, 2)]

    page.context.clear_cookies()
    User.objects.create_superuser("lead", "lead@example.org", "lead-pass-123")
    sign_in(page, base, "lead", "lead-pass-123")
    page.goto(base + reverse("annotation:triple_check", args=[campaign.pk]))
    expect(page.locator("#judge-agreement")).to_contain_text("careful · careful-model")
    expect(page.locator("#label-agreement")).to_be_visible()
    page.screenshot(path=screenshot_dir / f"triple-check-staff-{width}.png", full_page=True)
