"""A 25-triple item, by keyboard only at desktop width and by touch on a 390 px phone: the text
stays in view while the triples scroll, the columns line up, the keys for choices, next aspect,
scrolling, skip and previous item do not collide, and at completeness the gold sits between the
two extractions with its near matches marked on hover."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.annotation.annotator_fixtures import (
    LONG_TEXT,
    make_long_item_setup,
    make_user,
)
from tests.browser.annotator_pages import PHONE, press, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def long_setup():
    annotator = make_user("lee")
    setup = make_long_item_setup([annotator])
    long_item, short_item = setup.assignments(annotator)
    assert long_item.item.text.content == LONG_TEXT
    return setup, long_item, short_item


def item_url(base, assignment):
    return base + reverse("annotation:annotate_item", args=[assignment.public_id])


def column_edges(page, side):
    """The left edge of subject, relation and object on every row of one side's list."""
    return page.evaluate(
        """(side) => Array.from(document.querySelectorAll(side + ' li.triple')).map(
            (row) => ['.s', '.r', '.o'].map((part) => Math.round(row.querySelector(part).getBoundingClientRect().left)))""",
        side,
    )


def test_long_item_by_keyboard_at_desktop_width(live_server, page, long_setup, screenshot_dir):
    _setup, long_item, short_item = long_setup
    base = live_server.url
    sign_in(page, base, "lee", "lee-pass-123")
    page.goto(item_url(base, long_item))
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    expect(page.locator(".side-left li.triple")).to_have_count(25)
    expect(page.locator(".side-right li.triple")).to_have_count(25)
    page.screenshot(path=screenshot_dir / "long-item-desktop.png")
    page.screenshot(path=screenshot_dir / "long-item-desktop-full.png", full_page=True)

    # Every subject starts at the same edge on every row (two sides beside the panel are too narrow
    # for three columns, so each triple reads as a line), and no subject takes three lines.
    for side in (".side-left", ".side-right"):
        edges = column_edges(page, side)
        assert len({subject for subject, _, _ in edges}) == 1, edges
    heights = page.evaluate(
        """() => Array.from(document.querySelectorAll('.side li.triple .s')).map((s) => s.getBoundingClientRect().height
            / parseFloat(getComputedStyle(s).lineHeight))"""
    )
    assert max(heights) < 2.5, heights

    # The arrow keys and Page Down scroll; the text card stays at the top of the viewport.
    press(page, "PageDown", "ArrowDown", "ArrowDown")
    wait_until(page, "window.scrollY > 300")
    text_top = page.locator("#text-card").bounding_box()["y"]
    assert -1 <= text_top <= 1
    expect(page.locator("#source-text")).to_be_in_viewport()
    expect(page.locator("fieldset.aspect input:checked")).to_have_count(0)
    page.screenshot(path=screenshot_dir / "long-item-desktop-scrolled.png")

    # Tab to a triple far down the list: its subject and object are marked in the sticky text.
    triple = page.locator(".side-left li.triple").nth(20)
    triple.focus()
    expect(page.locator("#source-text mark.hl-subject").first).to_be_visible()
    page.keyboard.press("Escape")

    # Choices with digits, N moves on without choosing, Backspace goes back; none of them scrolls.
    scrolled = page.evaluate("window.scrollY")
    press(page, "1", "n")
    expect(page.locator("fieldset.aspect.current")).to_have_attribute("data-aspect", "fs")
    press(page, "Backspace")
    expect(page.locator("fieldset.aspect.current")).to_have_attribute("data-aspect", "us")
    press(page, "2", "3", "1")
    assert page.evaluate("window.scrollY") == scrolled
    # A radio clicked with the mouse keeps the focus: ↓ still scrolls and leaves the choice alone.
    page.locator('fieldset[data-aspect="ts"] .choice-right').click()
    press(page, "ArrowDown")
    expect(page.locator('fieldset[data-aspect="ts"] input:checked')).to_have_value("right")

    # S skips the text: with choices unsaved, the page asks first ("Stay here" has the focus; Tab,
    # Enter: "Skip anyway"); the short text comes up; P brings back the item saved before (none yet).
    press(page, "s")
    expect(page.locator("#skip-confirm")).to_be_visible()
    press(page, "Tab", "Enter")
    page.wait_for_url(item_url(base, short_item))
    expect(page.locator(".messages")).to_contain_text("Skipped")
    press(page, "2", "2", "2", "2", "Enter")
    expect(page.locator(".gold-card")).to_be_visible()
    press(page, "2", "Enter")
    page.wait_for_url(item_url(base, long_item))
    press(page, "p")
    page.wait_for_url(item_url(base, short_item))
    press(page, "p")
    expect(page.locator(".messages")).to_contain_text("Nothing saved before this item")

    # The long item's four, then completeness: the gold sits between A and B.
    page.goto(item_url(base, long_item))
    press(page, "1", "3", "2", "1", "Enter")
    expect(page.locator(".gold-card")).to_be_visible()
    expect(page.locator(".gold-card li.triple")).to_have_count(25)
    left, gold, right = (
        page.locator(selector).bounding_box() for selector in (".side-left", ".gold-card", ".side-right")
    )
    assert left["x"] + left["width"] <= gold["x"] and gold["x"] + gold["width"] <= right["x"]
    assert abs(left["y"] - gold["y"]) < 2 and abs(gold["y"] - right["y"]) < 2
    expect(page.locator("fieldset.aspect.current")).to_have_attribute("data-aspect", "cs")
    page.screenshot(path=screenshot_dir / "long-item-desktop-completeness.png")

    # Hover a gold triple: its near matches light up on both sides.
    page.locator(".gold-card li.triple").nth(7).hover()  # Neil Armstrong, commander of, Apollo 11
    for side in (".side-left", ".side-right"):
        expect(page.locator(f"{side} li.near-match")).to_have_count(1)
        expect(page.locator(f"{side} li.near-match .s")).to_have_text("Neil Armstrong")
    page.screenshot(path=screenshot_dir / "long-item-desktop-hover-gold.png")
    # Hover a triple that matches nothing in the gold: it says so. A rephrased one ("was built
    # by" for "built by") points at its gold triple.
    page.locator(".side li.triple", has_text="followed").hover()  # Aldrin, followed, Armstrong
    expect(page.locator(".side li.no-match")).to_have_text(re.compile("Aldrin"))
    expect(page.locator(".gold-card li.near-match")).to_have_count(0)
    page.locator(".side li.triple", has_text="was built by").hover()
    expect(page.locator(".gold-card li.near-match")).to_have_text(re.compile("Saturn V rocket.*built by.*Boeing"))
    page.mouse.move(2, 2)
    expect(page.locator("li.near-match")).to_have_count(0)

    press(page, "3", "Enter")
    page.wait_for_url(base + reverse("annotation:annotate_home"))
    expect(page.locator(".campaign-card")).to_contain_text("2 of 2 pairs, 10 of 10 judgements")


def test_long_item_on_a_phone(live_server, phone_page, long_setup, screenshot_dir):
    page = phone_page
    _setup, long_item, _ = long_setup
    base = live_server.url
    sign_in(page, base, "lee", "lee-pass-123")
    page.goto(item_url(base, long_item))
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    page.screenshot(path=screenshot_dir / "long-item-phone.png")

    # One line of header; no keyboard hints on a touch screen; the choices sit at the bottom.
    assert page.locator(".topbar").bounding_box()["height"] < 60
    expect(page.locator(".annotate kbd").first).to_be_hidden()
    expect(page.locator("[data-show-shortcuts]")).to_be_hidden()
    panel = page.locator("#annotate-panel").bounding_box()
    assert panel["y"] + panel["height"] == pytest.approx(PHONE["height"], abs=1)
    choice = page.locator("fieldset.aspect.current .choice-left").bounding_box()
    assert choice["y"] > PHONE["height"] / 2 and choice["height"] >= 44
    expect(page.locator("fieldset.aspect:visible")).to_have_count(1)

    # Nothing wider than the screen; the text stays at the top while the triples scroll.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.mouse.wheel(0, 1500)
    wait_until(page, "window.scrollY > 1000")
    assert abs(page.locator("#text-card").bounding_box()["y"]) <= 1
    page.locator(".side-right li.triple").nth(3).tap()
    expect(page.locator("#source-text mark").first).to_be_visible()
    page.screenshot(path=screenshot_dir / "long-item-phone-scrolled.png")

    # Tap the four choices: each brings the next question under the thumb; then save.
    for side in ("left", "tie", "right", "left"):
        page.locator(f"fieldset.aspect.current .choice-{side}").tap()
    expect(page.locator(".aspect-position")).to_have_text("Ready to save")
    page.locator(".aspect-step[data-aspect-step='-1']").tap()
    expect(page.locator("fieldset.aspect.current")).to_have_attribute("data-aspect", "gs")
    page.locator(".save-button").tap()

    # Completeness: question and choices still at the bottom, the gold in the flow above them.
    expect(page.locator(".gold-card")).to_be_attached()
    expect(page.locator("fieldset.aspect.current")).to_have_attribute("data-aspect", "cs")
    choice = page.locator("fieldset.aspect.current .choice-tie").bounding_box()
    assert choice["y"] > PHONE["height"] / 2
    page.locator(".gold-card").scroll_into_view_if_needed()
    page.screenshot(path=screenshot_dir / "long-item-phone-completeness.png")
    page.locator(".gold-card li.triple").nth(7).tap()
    expect(page.locator(".side li.near-match")).to_have_count(2)
    page.locator("fieldset.aspect.current .choice-tie").tap()
    page.locator(".save-button").tap()
    page.wait_for_url(lambda url: "/annotate/" in url and str(long_item.public_id) not in url)
