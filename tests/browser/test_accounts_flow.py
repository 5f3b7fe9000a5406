"""Accounts as a lab runs them, in Chromium, at desktop width and on a 390 px phone: staff invite
20 annotators from a pasted list, one accepts the link and lands on their campaigns. (A
researcher's token made in the page, reading with it: test_study_from_the_browser.py.)"""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from accounts.roles import Role
from tests.browser.annotator_pages import sign_in
from tests.browser.study_steps import accept_invite, invite_annotators, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_invite_twenty_and_one_accepts(live_server, sized_page, chromium, screenshot_dir):
    page, width, base = sized_page, sized_page.width_name, live_server.url
    make_user("lead", Role.STAFF)
    sign_in(page, base, "lead", "lead-pass-123")

    def screenshot(name):
        return screenshot_dir / f"{name}-{width}.png"

    links = invite_annotators(page, base, 20, screenshot)

    page.goto(base + reverse("accounts:list"))
    expect(page.locator("#account-person01")).to_contain_text("invited, until")
    page.screenshot(path=screenshot("accounts"), full_page=True)

    # The invitee, in a browser of their own, signed out.
    accept_invite(chromium, page.viewport_size, links[0], "person01", "Chosen-pass-101", screenshot).context.close()

    page.reload()
    expect(page.locator("#account-person01")).not_to_contain_text("invited")
