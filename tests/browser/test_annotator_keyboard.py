"""The item page by keyboard, at 1280 px and on a 390 px phone (issue 20): a comment typed with
the keyboard is kept as a draft through a reload and stored (C, Escape, Tab, Enter, Ctrl+Enter);
a skip with unsaved input asks first; N goes on after saving a pair reopened with P; progress
counts partial saves; the guidelines panel opens with G; a practice pair answers to the same
keys as a real item."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Judgement, PracticeAnswer
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.annotation.quality_fixtures import make_practice_setup
from tests.browser.annotator_pages import activate, press, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUS_ON_CHOICE = "document.activeElement.matches('fieldset.aspect input[type=radio]')"
# What has the focus, in the words of the tab order the page promises.
FOCUSED = """(() => {
  const element = document.activeElement;
  if (element.matches("fieldset.aspect input[type=radio]")) return "choice";
  if (element.closest("#comment-box")) return "comment";
  if (element.matches(".save-button")) return "save";
  if (element.closest("#skip-form")) return "skip";
  return element.outerHTML.slice(0, 80);
})()"""


def item_url(base, assignment):
    return base + reverse("annotation:annotate_item", args=[assignment.public_id])


def open_item(page, base, assignment):
    page.goto(item_url(base, assignment))
    expect(page.locator("#annotate.enhanced")).to_be_visible()


def start(page, live_server, username, **setup_options):
    """A campaign for ``username``, signed in, at their first item; returns the setup, their queue and the base URL."""
    annotator = make_user(username)
    setup = make_annotation_setup([annotator], **setup_options)
    queue = setup.assignments(annotator)
    sign_in(page, live_server.url, username, f"{username}-pass-123")
    open_item(page, live_server.url, queue[0])
    return setup, queue, live_server.url


def stored_comment(assignment):
    assignment.refresh_from_db(fields=["comment"])
    return assignment.comment


def test_a_keyboard_comment_is_kept_through_a_reload_and_stored(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    _, (first, *_), _ = start(page, live_server, "cora")

    # Choose with keys, open the comment with C, type: the draft survives a reload mid-comment.
    press(page, "1", "2", "3", "1", "c")
    expect(page.locator("#id_comment")).to_be_focused()
    page.keyboard.type("Odd pair: B repeats")
    page.reload()
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    expect(page.locator("#id_comment")).to_have_value("Odd pair: B repeats")
    expect(page.locator(".save-status")).to_contain_text("restored")
    expect(page.locator('fieldset[data-aspect="fs"] input:checked')).to_have_value("right")
    page.screenshot(path=screenshot_dir / f"keyboard-comment-restored-{width}.png", full_page=True)

    # Escape leaves the box with nothing lost; Tab goes from the choices to the comment, then Save.
    press(page, "c")
    page.keyboard.type(" itself.")
    press(page, "Escape")
    wait_until(page, FOCUS_ON_CHOICE)
    expect(page.locator("#id_comment")).to_have_value("Odd pair: B repeats itself.")
    stops = []
    while "save" not in stops and len(stops) < 12:
        press(page, "Tab")
        stops.append(page.evaluate(FOCUSED))
    # From the current aspect: the aspects after it, the comment (its toggle, its box), then Save.
    assert stops[-1] == "save", stops
    assert "comment" in stops and set(stops[:-1]) <= {"choice", "comment"}, stops
    assert stops[: stops.index("comment")] == ["choice"] * stops.index("comment"), stops
    press(page, "Tab")
    assert page.evaluate(FOCUSED) == "skip"  # Skip only after Save
    press(page, "Shift+Tab")
    press(page, "Enter")
    expect(page.locator('#annotate.enhanced[data-stage="completeness"]')).to_be_visible()
    assert stored_comment(first) == "Odd pair: B repeats itself."
    assert Judgement.objects.filter(assignment=first).count() == 4
    assert page.evaluate("localStorage.length") == 0, "the saved draft was not cleared"

    # Completeness, then Ctrl+Enter saves from inside the comment box.
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    press(page, "2", "c", "Control+a")
    page.keyboard.type("Both miss the year.")
    press(page, "Control+Enter")
    page.wait_for_url(lambda url: str(first.public_id) not in url)
    assert stored_comment(first) == "Both miss the year."
    assert Judgement.objects.filter(assignment=first, aspect="cs").exists()


def test_a_skip_with_unsaved_input_asks_first(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    _, (first, second, *_), base = start(page, live_server, "sid")

    press(page, "3", "s")
    expect(page.locator("#skip-confirm")).to_be_visible()
    page.screenshot(path=screenshot_dir / f"skip-confirm-{width}.png")
    press(page, "Escape")  # keeps the pair and its choice
    expect(page.locator("#skip-confirm")).to_be_hidden()
    expect(page).to_have_url(item_url(base, first))
    expect(page.locator('fieldset[data-aspect="ts"] input:checked')).to_have_value("right")

    activate(page, width, "#skip-form button")  # the button asks too
    expect(page.locator("#skip-confirm")).to_be_visible()
    activate(page, width, "#skip-anyway")
    page.wait_for_url(item_url(base, second))
    first.refresh_from_db()
    assert first.queue_position > second.queue_position and not Judgement.objects.exists()

    # Nothing unsaved: S skips at once.
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    press(page, "s")
    page.wait_for_url(lambda url: str(second.public_id) not in url)
    # The skipped pair's draft comes back with it.
    open_item(page, base, first)
    expect(page.locator('fieldset[data-aspect="ts"] input:checked')).to_have_value("right")


def test_n_goes_on_after_saving_a_pair_reopened_with_p_and_progress_counts_partial_saves(
    live_server, sized_page, screenshot_dir
):
    page, width = sized_page, sized_page.width_name
    # Ground truth in: three pairs a text, completeness once all three have their four aspects.
    _, (first, second, *_), base = start(page, live_server, "noor", with_ground_truth=True)

    press(page, "1", "1", "1", "1", "Enter")
    page.wait_for_url(item_url(base, second))
    expect(page.locator("#annotate.enhanced")).to_be_visible()

    # Two aspects of the second pair saved: the progress counts them, in pairs and judgements.
    press(page, "3", "3", "Enter")
    expect(page.locator(".save-status")).to_contain_text("Saved.")
    page.reload()
    expect(page.locator(".annotate-bar .queue-progress")).to_contain_text("1 of 9 pairs, 6 of 45 judgements")

    # Back to the first pair with P, change a choice and save: the page stays, and N goes on.
    press(page, "p")
    page.wait_for_url(item_url(base, first))
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    press(page, "3", "Enter")
    expect(page.locator(".save-status .next-pair")).to_be_visible()
    page.screenshot(path=screenshot_dir / f"saved-earlier-pair-{width}.png", full_page=True)
    right = "a" if not first.a_on_left else "b"
    assert Judgement.objects.get(assignment=first, aspect="ts").label == right
    press(page, "n")
    page.wait_for_url(item_url(base, second))


def test_the_guidelines_panel_opens_with_g(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    setup, (first, *_), base = start(page, live_server, "gus")
    setup.campaign.instructions = "Judge only what the text states; ignore spelling."
    setup.campaign.save(update_fields=["instructions"])
    page.reload()
    expect(page.locator("#annotate.enhanced")).to_be_visible()

    panel = page.locator("#guidelines-panel")
    expect(panel).to_be_hidden()  # folded until asked for, on a phone too
    press(page, "g")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("Judge only what the text states")
    expect(panel).to_contain_text("For every aspect")
    expect(panel.locator(".guideline-section")).to_have_count(5)
    page.screenshot(path=screenshot_dir / f"guidelines-panel-{width}.png")
    press(page, "1")  # the keys still choose while it is open
    expect(page.locator('fieldset[data-aspect="ts"] input:checked')).to_have_value("left")
    press(page, "Escape")
    expect(panel).to_be_hidden()
    activate(page, width, ".annotate-bar [data-show-guidelines]")  # the visible button
    expect(panel).to_be_visible()
    activate(page, width, "#guidelines-panel [data-show-guidelines]")
    expect(panel).to_be_hidden()
    expect(page).to_have_url(item_url(base, first))


def test_a_practice_pair_answers_to_the_keys_of_a_real_item(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    annotator = make_user("pax")
    setup = make_practice_setup(annotator)
    base = live_server.url
    practice_url = base + reverse("annotation:annotate_practice", args=[setup.campaign.pk])
    sign_in(page, base, "pax", "pax-pass-123")
    page.goto(practice_url)
    expect(page.locator("#annotate.enhanced.practice")).to_be_visible()
    # The real page's sticky text and, on a phone, the docked choices.
    expect(page.locator("#text-card")).to_have_css("position", "sticky")
    if width == "phone":
        expect(page.locator("#annotate-panel")).to_have_css("position", "fixed")

    # Pair 1 asks topical similarity and factualness: 3 then 1, Enter checks.
    press(page, "3", "1")
    page.screenshot(path=screenshot_dir / f"practice-keys-question-{width}.png", full_page=True)
    press(page, "Enter")
    page.wait_for_url(base + reverse("annotation:annotate_practice_feedback", args=[setup.campaign.pk, 1]))
    expect(page.locator("#practice-reason")).to_contain_text("B says Paris")
    expect(page.locator('.reference-row[data-aspect="ts"]')).to_contain_text("✗ differs")
    expect(page.locator('.reference-row[data-aspect="fs"]')).to_contain_text("✓ matches")
    page.screenshot(path=screenshot_dir / f"practice-keys-feedback-{width}.png", full_page=True)
    assert PracticeAnswer.objects.get(item__position=0).answers == {"ts": "b", "fs": "a"}

    # N (or Enter) goes on; pair 2 by keys; the result opens the real items.
    press(page, "n")
    page.wait_for_url(practice_url)
    expect(page.locator(".stage-note")).to_contain_text("Practice pair 2 of 2")
    press(page, "1", "Enter")
    expect(page.locator("#practice-reason")).to_be_visible()
    press(page, "Enter")
    expect(page.locator("#practice-result")).to_contain_text("Practice passed")
