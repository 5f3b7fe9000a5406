"""The top bar of staff and researchers: one line of links at 1280 px; on a 390 px phone a one-line
bar whose links fold into a menu (CSS only: no script), which opens with a tap or the keyboard
and whose links work."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.annotator_pages import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
STAFF, PASSWORD = "menu-admin", "menu-admin-pass-123"


def test_the_top_bar_folds_into_a_menu_on_a_phone(live_server, sized_page, screenshot_dir):
    page = sized_page
    get_user_model().objects.create_superuser(STAFF, "menu-admin@example.org", PASSWORD)
    sign_in(page, live_server.url, STAFF, PASSWORD)
    page.goto(f"{live_server.url}/")
    bar = page.locator(".topbar")
    leaderboards = bar.get_by_role("link", name="Leaderboards")
    menu = page.locator(".menu-button")

    if page.width_name == "desktop":
        expect(menu).to_be_hidden()
        expect(leaderboards).to_be_visible()
        expect(bar.get_by_role("button", name="Sign out")).to_be_visible()
        page.screenshot(path=str(screenshot_dir / "top-bar-desktop.png"))
        assert bar.bounding_box()["height"] < 60
        return

    # Folded: the brand and the menu on one line.
    expect(leaderboards).to_be_hidden()
    assert bar.bounding_box()["height"] < 60
    page.screenshot(path=str(screenshot_dir / "top-bar-phone-folded.png"))
    menu.tap()
    for name in ("Datasets", "Leaderboards", "Annotate", "Upload", "Campaigns", "Accounts", "Admin", "API tokens"):
        expect(bar.get_by_role("link", name=name)).to_be_visible()
    expect(bar.get_by_role("button", name="Sign out")).to_be_visible()
    # Rows a thumb can hit.
    assert leaderboards.bounding_box()["height"] >= 36
    page.screenshot(path=str(screenshot_dir / "top-bar-phone-open.png"))
    menu.tap()
    expect(leaderboards).to_be_hidden()

    # From the keyboard: the menu's checkbox takes the focus and Space opens it.
    page.locator(".brand").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    expect(leaderboards).to_be_visible()
    leaderboards.tap()
    page.wait_for_url(f"{live_server.url}/leaderboard/")
    expect(page.locator("h1")).to_contain_text("Leaderboards")
    expect(page.locator(".topbar").get_by_role("link", name="Leaderboards")).to_be_hidden()  # folded again
