"""What the annotator-page browser tests share: signing in, keys, the phone and the screenshots."""

from django.urls import reverse

PHONE = {"width": 390, "height": 844}


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


def activate(page, width, selector):
    """Click at desktop width, tap on the phone."""
    locator = page.locator(selector) if isinstance(selector, str) else selector
    if width == "phone":
        locator.tap()
    else:
        locator.click()
