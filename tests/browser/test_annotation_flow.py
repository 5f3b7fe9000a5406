"""An annotator judges a campaign with Ground truth by keyboard only: per text, the four first
aspects of each pair, then completeness of each against the revealed gold; a reload and a
network failure lose nothing; the first four are locked once the gold is shown; the campaign
page then shows the right counts."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment, Judgement, Label
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.browser.annotator_pages import press, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def checked(page, aspect):
    return page.locator(f'fieldset[data-aspect="{aspect}"] input:checked')


def current_aspect(page):
    return page.locator("fieldset.aspect.current")


def wait_for_item(page, base_url, assignment):
    page.wait_for_url(base_url + reverse("annotation:annotate_item", args=[assignment.public_id]))
    expect(page.locator("#annotate.enhanced")).to_be_visible()


def judge_remaining_texts(page, base, pairs):
    """All ties on the first four of each pair of a text, then tie on completeness of each."""
    for start in range(0, len(pairs), 3):
        text_pairs = pairs[start : start + 3]
        for pair in text_pairs:
            wait_for_item(page, base, pair)
            expect(page.locator(".gold-card")).to_have_count(0)
            press(page, "2", "2", "2", "2", "Enter")
        for pair in text_pairs:
            wait_for_item(page, base, pair)
            expect(page.locator(".gold-card")).to_be_visible()
            press(page, "2", "Enter")


@pytest.mark.slow
def test_keyboard_annotation_flow(live_server, page, screenshot_dir, admin_user):
    annotator = make_user("kim")
    setup = make_annotation_setup([annotator], with_ground_truth=True)
    queue = setup.assignments(annotator)
    first, second, third = queue[:3]  # the three pairs of the first text
    base = live_server.url

    sign_in(page, base, "kim", "kim-pass-123")
    expect(page).to_have_url(f"{base}{reverse('annotation:annotate_home')}")
    expect(page.locator(".campaign-card")).to_contain_text("0 of 9 pairs, 0 of 45 judgements")
    page.screenshot(path=screenshot_dir / "annotate-home.png", full_page=True)
    page.click("text=Start")

    # Pair 1: four aspects with 1 / 2 / 3 / 1, Enter; no gold yet: pair 2 comes next.
    wait_for_item(page, base, first)
    expect(page.locator(".gold-card")).to_have_count(0)
    expect(page.locator(".stage-note")).to_contain_text("pair 1 of 3")
    expect(page.locator(".next-step")).to_contain_text("Completeness comes later, for the 3 pairs of this text")
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
    press(page, "1", "Enter")

    # Pair 2: two choices, reload, the choices come back; Backspace corrects one; a failed request keeps them.
    wait_for_item(page, base, second)
    expect(page.locator(".gold-card")).to_have_count(0)
    expect(page.locator(".annotate-bar .queue-progress")).to_contain_text("1 of 9 pairs, 4 of 45 judgements")
    press(page, "3", "2")
    expect(page.locator(".save-status")).to_have_text("Not saved yet.")
    page.reload()
    expect(page.locator(".save-status")).to_contain_text("Unsaved choices restored")
    expect(checked(page, "ts")).to_have_value("right")
    expect(checked(page, "us")).to_have_value("tie")
    expect(current_aspect(page)).to_have_attribute("data-aspect", "fs")
    press(page, "3", "Backspace", "2", "3")
    expect(checked(page, "fs")).to_have_value("tie")
    page.route("**/annotate/*/", lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    press(page, "Enter")
    expect(page.locator(".save-status")).to_contain_text("Not saved")
    expect(page.locator(".save-status .retry")).to_be_visible()
    assert not Judgement.objects.filter(assignment=second).exists()
    expect(checked(page, "gs")).to_have_value("right")
    page.unroute("**/annotate/*/")
    page.click(".save-status .retry")

    # Pair 3: all ties. Every pair of the text has its four: the gold appears, back at pair 1.
    wait_for_item(page, base, third)
    expect(page.locator(".gold-card")).to_have_count(0)
    press(page, "2", "2", "2", "2", "Enter")
    wait_for_item(page, base, first)
    expect(page.locator(".gold-card")).to_be_visible()
    expect(page.locator(".stage-note")).to_contain_text("Completeness for the 3 pairs of this text")
    expect(page.locator(".locked-note")).to_contain_text("final")
    expect(page.locator("fieldset.aspect.locked")).to_have_count(4)
    expect(page.locator('fieldset[data-aspect="ts"] input').first).to_be_disabled()
    expect(current_aspect(page)).to_have_attribute("data-aspect", "cs")
    expect(checked(page, "us")).to_have_value("tie")
    page.screenshot(path=screenshot_dir / "annotate-item-completeness.png", full_page=True)
    press(page, "3", "Enter")
    wait_for_item(page, base, second)
    press(page, "2", "Enter")
    wait_for_item(page, base, third)
    press(page, "1", "Enter")

    # The two other texts, the same way; then the queue is empty.
    judge_remaining_texts(page, base, queue[3:])
    page.wait_for_url(f"{base}{reverse('annotation:annotate_home')}")
    assert page.evaluate("window.leaked === undefined"), "markup in a text or a triple ran as a script"
    expect(page.locator(".messages")).to_contain_text("Every item of Pilot study is judged")
    expect(page.locator(".campaign-card")).to_contain_text("9 of 9 pairs, 45 of 45 judgements")

    # Edit pair 1 from the review list: its first four are final, completeness can still change,
    # and the save returns to the review list.
    page.click("text=Review my judgements")
    page.click(f"#item-{first.public_id} a.reopen")
    page.wait_for_url(f"{base}{reverse('annotation:annotate_item', args=[first.public_id])}?from=review")
    press(page, "Backspace", "Backspace")
    expect(current_aspect(page)).to_have_attribute("data-aspect", "cs")
    press(page, "2", "Enter")
    page.wait_for_url(f"{base}{reverse('annotation:annotate_review')}#item-{first.public_id}")

    first_labels = dict(Judgement.objects.filter(assignment=first).values_list("aspect", "label"))
    left, right = (Label.A, Label.B) if first.a_on_left else (Label.B, Label.A)
    assert first_labels == {"ts": left, "us": Label.TIE, "fs": right, "gs": left, "cs": Label.TIE}
    second_labels = dict(Judgement.objects.filter(assignment=second).values_list("aspect", "label"))
    _second_left, second_right = (Label.A, Label.B) if second.a_on_left else (Label.B, Label.A)
    assert second_labels == {"ts": second_right, "us": Label.TIE, "fs": Label.TIE, "gs": second_right, "cs": Label.TIE}
    third_left = Label.A if third.a_on_left else Label.B
    assert dict(Judgement.objects.filter(assignment=third).values_list("aspect", "label")) == {
        **dict.fromkeys(("ts", "us", "fs", "gs"), Label.TIE),
        "cs": third_left,
    }
    done = Assignment.objects.filter(annotator=annotator, status=Assignment.Status.DONE)
    assert done.count() == 9 and all(assignment.seconds_spent > 0 for assignment in done)

    # The admin sees the nine finished assignments on the campaign page.
    page.context.clear_cookies()
    sign_in(page, base, "admin", "admin-pass-123")
    page.goto(f"{base}{reverse('annotation:campaign_detail', args=[setup.campaign.pk])}")
    expect(page.locator(".stats")).to_contain_text("9 / 9 assignments done")
    expect(page.locator("#progress")).to_contain_text("kim")
    expect(page.locator("#progress td.num").first).to_have_text("9 / 9")
