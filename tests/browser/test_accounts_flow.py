"""Accounts as a lab runs them, in Chromium: staff invite 20 annotators from a pasted list (at
desktop width and on a 390 px phone), one accepts the link and lands on their campaigns; a
researcher makes an API token in the page and reads a leaderboard's JSON with it."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from accounts.roles import Role, set_role
from tests.browser.annotator_pages import sign_in
from tests.leaderboard.leaderboard_fixtures import build_all, scored_dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def make_user(username, role):
    user = get_user_model().objects.create_user(username, f"{username}@lab.example.org", f"{username}-pass-123")
    set_role(user, role)
    return user


def test_staff_invite_twenty_and_one_accepts(live_server, sized_page, chromium, screenshot_dir):
    page, width, base = sized_page, sized_page.width_name, live_server.url
    make_user("lead", Role.STAFF)
    sign_in(page, base, "lead", "lead-pass-123")

    page.goto(base + reverse("accounts:create"))
    page.fill("#id_rows", "\n".join(f"person{n:02},person{n:02}@lab.example.org,annotator" for n in range(1, 21)))
    page.screenshot(path=screenshot_dir / f"accounts-new-{width}.png", full_page=True)
    page.click("button[value=page]")
    expect(page.locator("h1")).to_have_text("20 accounts made")
    links = page.locator("#accounts-made td.secret")
    expect(links).to_have_count(20)
    page.screenshot(path=screenshot_dir / f"accounts-made-{width}.png", full_page=True)
    link = links.first.inner_text()

    page.goto(base + reverse("accounts:list"))
    expect(page.locator("#account-person01")).to_contain_text("invited, until")
    page.screenshot(path=screenshot_dir / f"accounts-{width}.png", full_page=True)

    # The invitee, in a browser of their own, signed out.
    invitee = chromium.new_context(viewport=page.viewport_size).new_page()
    invitee.goto(link)
    expect(invitee.locator("#id_username")).to_have_value("person01")
    invitee.fill("#id_new_password1", "Chosen-pass-101")
    invitee.fill("#id_new_password2", "Chosen-pass-101")
    invitee.screenshot(path=screenshot_dir / f"invite-{width}.png", full_page=True)
    invitee.click("main button[type=submit]")
    invitee.wait_for_url(base + reverse("annotation:annotate_home"))
    expect(invitee.locator(".messages")).to_contain_text("Welcome, person01")
    invitee.context.close()

    page.reload()
    expect(page.locator("#account-person01")).not_to_contain_text("invited")


def built_leaderboard():
    dataset, _ = scored_dataset()
    build_all()
    return dataset


def test_a_researcher_makes_a_token_and_reads_with_it(live_server, page, screenshot_dir):
    base = live_server.url
    # In a thread of its own: the build announces itself through async_to_sync, which refuses to
    # run beside Playwright's event loop.
    with ThreadPoolExecutor(1) as thread:
        dataset = thread.submit(built_leaderboard).result()
    make_user("reader", Role.RESEARCHER)
    sign_in(page, base, "reader", "reader-pass-123")

    page.click("text=API tokens")
    page.fill("#id_name", "notebook")
    page.click("text=Make a token")
    key = page.locator("#new-key").inner_text()
    expect(page.locator("#tokens")).to_contain_text("notebook")
    page.screenshot(path=screenshot_dir / "tokens.png", full_page=True)

    reply = page.request.get(
        base + reverse("leaderboard:api_dataset", args=[dataset.name]), headers={"Authorization": f"Token {key}"}
    )
    assert reply.status == 200 and "alpha" in reply.text()
    page.goto(base + reverse("accounts:tokens"))
    expect(page.locator("#tokens")).not_to_contain_text("never")  # its last use is shown
    expect(page.locator("#new-key")).to_have_count(0)  # and the key is not shown again
