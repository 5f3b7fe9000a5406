"""An annotator judges three items with the keyboard only, survives a reload and a network
failure, edits an earlier item; the campaign page then shows the right counts."""

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment, Judgement, Label
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def screenshot_dir(tmp_path):
    """Where the page screenshots go: GENRES_SCREENSHOT_DIR when set (to look at them), else a tmp dir."""
    directory = Path(os.environ.get("GENRES_SCREENSHOT_DIR") or tmp_path)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def sign_in(page, base_url, username, password):
    page.goto(f"{base_url}{reverse('login')}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base_url}{reverse('home')}")


def press(page, *keys):
    for key in keys:
        page.keyboard.press(key)


def checked(page, aspect):
    return page.locator(f'fieldset[data-aspect="{aspect}"] input:checked')


def current_aspect(page):
    return page.locator("fieldset.aspect.current")


def wait_for_item(page, base_url, assignment):
    page.wait_for_url(base_url + reverse("annotate_item", args=[assignment.public_id]))
    expect(page.locator("#annotate.enhanced")).to_be_visible()


def test_keyboard_annotation_flow(live_server, page, screenshot_dir, admin_user):
    annotator = make_user("kim")
    setup = make_annotation_setup([annotator])
    first, second, third = setup.assignments(annotator)
    base = live_server.url

    sign_in(page, base, "kim", "kim-pass-123")
    page.click("nav.mainnav >> text=Annotate")
    expect(page.locator(".campaign-card")).to_contain_text("0 of 3 done")
    page.screenshot(path=screenshot_dir / "annotate-home.png", full_page=True)
    page.click("text=Start")

    # Item 1: four aspects with 1 / 2 / 3 / ←, Enter; then the gold appears and completeness with →.
    wait_for_item(page, base, first)
    expect(page.locator(".gold-card")).to_have_count(0)
    expect(current_aspect(page)).to_have_attribute("data-aspect", "ts")
    page.locator("li.triple").first.hover()
    expect(page.locator("#source-text mark.hl-subject").first).to_be_visible()
    page.mouse.move(5, 5)
    expect(page.locator("#source-text mark")).to_have_count(0)
    press(page, "?")
    expect(page.locator("#shortcuts")).to_be_visible()
    page.screenshot(path=screenshot_dir / "annotate-shortcuts.png")
    press(page, "?")
    expect(page.locator("#shortcuts")).to_be_hidden()
    press(page, "1", "2", "3")
    expect(current_aspect(page)).to_have_attribute("data-aspect", "gs")
    page.screenshot(path=screenshot_dir / "annotate-item-before-gold.png", full_page=True)
    press(page, "ArrowLeft", "Enter")
    expect(page.locator(".gold-card")).to_be_visible()
    expect(current_aspect(page)).to_have_attribute("data-aspect", "cs")
    expect(checked(page, "us")).to_have_value("tie")
    page.screenshot(path=screenshot_dir / "annotate-item-after-gold.png", full_page=True)
    press(page, "ArrowRight", "Enter")

    # Item 2: two choices, reload, the choices come back; Backspace corrects one; a failed request keeps them.
    wait_for_item(page, base, second)
    press(page, "3", "ArrowDown")
    expect(page.locator(".save-status")).to_have_text("Not saved yet.")
    page.reload()
    expect(page.locator(".save-status")).to_contain_text("Unsaved choices restored")
    expect(checked(page, "ts")).to_have_value("right")
    expect(checked(page, "us")).to_have_value("tie")
    expect(current_aspect(page)).to_have_attribute("data-aspect", "fs")
    press(page, "3", "Backspace", "2", "ArrowRight")
    expect(checked(page, "fs")).to_have_value("tie")
    page.route("**/annotate/*/", lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    press(page, "Enter")
    expect(page.locator(".save-status")).to_contain_text("Not saved")
    expect(page.locator(".save-status .retry")).to_be_visible()
    assert not Judgement.objects.filter(assignment=second).exists()
    expect(checked(page, "gs")).to_have_value("right")
    page.unroute("**/annotate/*/")
    page.click(".save-status .retry")
    expect(page.locator(".gold-card")).to_be_visible()
    press(page, "ArrowDown", "Enter")

    # Item 3: all ties, then A better on completeness; the queue is empty afterwards.
    wait_for_item(page, base, third)
    press(page, "2", "2", "2", "2", "Enter")
    expect(page.locator(".gold-card")).to_be_visible()
    press(page, "1", "Enter")
    page.wait_for_url(f"{base}{reverse('annotate_home')}")
    assert page.evaluate("window.leaked === undefined"), "markup in a text or a triple ran as a script"
    expect(page.locator(".messages")).to_contain_text("Every item of Pilot study is judged")
    expect(page.locator(".campaign-card")).to_contain_text("3 of 3 done")

    # Edit item 1 from the review list: back from Save to topical similarity, choose tie.
    page.click("text=Review my judgements")
    page.click(f'a[href="{reverse("annotate_item", args=[first.public_id])}"]')
    wait_for_item(page, base, first)
    press(page, "Backspace", "Backspace", "Backspace", "Backspace", "Backspace")
    expect(current_aspect(page)).to_have_attribute("data-aspect", "ts")
    press(page, "2", "Enter")
    page.wait_for_url(f"{base}{reverse('annotate_home')}")

    first_labels = dict(Judgement.objects.filter(assignment=first).values_list("aspect", "label"))
    left, right = (Label.A, Label.B) if first.a_on_left else (Label.B, Label.A)
    assert first_labels == {"ts": Label.TIE, "us": Label.TIE, "fs": right, "gs": left, "cs": right}
    second_labels = dict(Judgement.objects.filter(assignment=second).values_list("aspect", "label"))
    second_left, second_right = (Label.A, Label.B) if second.a_on_left else (Label.B, Label.A)
    assert second_labels == {"ts": second_right, "us": Label.TIE, "fs": Label.TIE, "gs": second_right, "cs": Label.TIE}
    assert Judgement.objects.filter(assignment=third, label=Label.TIE).count() == 4
    done = Assignment.objects.filter(annotator=annotator, status=Assignment.Status.DONE)
    assert done.count() == 3 and all(assignment.seconds_spent > 0 for assignment in done)

    # The admin sees the three finished assignments on the campaign page.
    page.context.clear_cookies()
    sign_in(page, base, "admin", "admin-pass-123")
    page.goto(f"{base}{reverse('campaign_detail', args=[setup.campaign.pk])}")
    expect(page.locator(".stats")).to_contain_text("3 / 3 assignments done")
    expect(page.locator("#progress")).to_contain_text("kim")
    expect(page.locator("#progress td.num").first).to_have_text("3 / 3")
