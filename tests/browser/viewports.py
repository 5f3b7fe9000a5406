"""A page at a desktop width or at a 390 px phone's (touch, mobile viewport), for tests that check
a layout at both: ``sized_page`` is parametrised, so each such test runs twice."""

import pytest

VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}


@pytest.fixture(params=list(VIEWPORTS))
def sized_page(chromium, request):
    context = chromium.new_context(**VIEWPORTS[request.param])
    context.set_default_timeout(10_000)
    browser_page = context.new_page()
    browser_page.width_name = request.param
    yield browser_page
    context.close()


def in_viewport(page, locator):
    """Whether the element is wholly inside the visible part of the page."""
    box = locator.bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] >= 0
