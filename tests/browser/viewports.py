"""Where an element sits in the visible part of a page."""


def in_viewport(page, locator):
    """Whether the element is wholly inside the visible part of the page."""
    box = locator.bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] >= 0
