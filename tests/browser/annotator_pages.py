"""What the annotator-page browser tests share: signing in, keys, the phone and the screenshots."""

import pytest
from django.urls import reverse

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone_page(chromium):
    """A 390 px touch screen, as a phone's browser reports it (coarse pointer, no hover)."""
    context = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def sign_in(page, base_url, username, password):
    """Sign in and wait for the page signing in leads to (where depends on who signs in)."""
    login = reverse("login")
    page.goto(f"{base_url}{login}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: login not in url)


def press(page, *keys):
    for key in keys:
        page.keyboard.press(key)


def wait_until(page, expression, timeout_ms=5_000):
    """Poll ``expression`` in the page until it is true (wait_for_function would need eval, which
    the pages' Content-Security-Policy forbids)."""
    for _ in range(timeout_ms // 50):
        if page.evaluate(expression):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"Still false after {timeout_ms} ms: {expression}")


@pytest.fixture(params=["desktop", "phone"])
def sized_page(request):
    """The same test at desktop width (1280 px) and on a 390 px phone: (width name, page)."""
    return request.param, request.getfixturevalue("page" if request.param == "desktop" else "phone_page")


def activate(page, width, selector):
    """Click at desktop width, tap on the phone."""
    locator = page.locator(selector) if isinstance(selector, str) else selector
    if width == "phone":
        locator.tap()
    else:
        locator.click()
