"""Quality control in the browser, at desktop width and on a 390 px phone: the practice round
(answer, the reference and its reason, pass, then real items), an attention check answered like
any item, the comment on an item (kept through the review round trip), and the quality page
with its exclude toggle."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation import quality
from annotation.models import Assignment, CampaignAnnotator, Judgement
from annotation.services.quality_control import add_attention_checks, answer_practice, replace_practice_items
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_annotation_setup, make_user
from tests.annotation.quality_fixtures import PRACTICE_RECORDS, judge_everything, make_practice_setup
from tests.browser.annotator_pages import activate, press, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def choose(page, width, aspect, side):
    activate(page, width, f'fieldset[data-aspect="{aspect}"] label.choice-{side}')


def test_practice_round_then_real_items(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    annotator = make_user("pia")
    setup = make_practice_setup(annotator)
    base = live_server.url

    sign_in(page, base, "pia", "pia-pass-123")
    activate(page, width, ".campaign-card a.button.primary")
    page.wait_for_url(base + reverse("annotation:annotate_practice", args=[setup.campaign.pk]))
    expect(page.locator(".stage-note")).to_contain_text("Practice pair 1 of 2")
    expect(page.locator("#practice-reason")).to_have_count(0)
    choose(page, width, "ts", "right")
    choose(page, width, "fs", "left")
    page.screenshot(path=screenshot_dir / f"practice-question-{width}.png", full_page=True)
    activate(page, width, "#practice-form button[type=submit]")

    # The reference answer and why, beside the annotator's.
    expect(page.locator("#practice-reason")).to_contain_text("B says Paris")
    expect(page.locator('.reference-row[data-aspect="fs"]')).to_contain_text("✓ matches")
    expect(page.locator('.reference-row[data-aspect="ts"]')).to_contain_text("✗ differs")
    page.screenshot(path=screenshot_dir / f"practice-feedback-{width}.png", full_page=True)
    activate(page, width, "#practice-next")

    choose(page, width, "us", "left")
    activate(page, width, "#practice-form button[type=submit]")
    expect(page.locator('.reference-row[data-aspect="us"]')).to_contain_text("✓ matches")
    activate(page, width, "#practice-next")
    expect(page.locator("#practice-result")).to_contain_text("Practice passed")
    expect(page.locator("#practice-result")).to_contain_text("2 of 3")
    page.screenshot(path=screenshot_dir / f"practice-passed-{width}.png", full_page=True)

    activate(page, width, "#start-real")
    first = setup.assignments(annotator)[0]
    page.wait_for_url(base + reverse("annotation:annotate_item", args=[first.public_id]))
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    assert not Judgement.objects.exists()  # practice answers are no judgements


def test_attention_check_answered_like_any_item(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    annotator = make_user("ava")
    # Ground truth in: a check copies only an output whose triple count another side shares.
    setup = make_annotation_setup([annotator], with_ground_truth=True)
    setup.campaign.attention_share = 0.2
    setup.campaign.save(update_fields=["attention_share"])
    add_attention_checks(setup.campaign)
    check = Assignment.objects.exclude(item__attention_worse="").select_related("item").first()
    # Served first, so the test meets it at once.
    Assignment.objects.filter(annotator=annotator).exclude(pk=check.pk).update(queue_position=99)
    base = live_server.url

    sign_in(page, base, "ava", "ava-pass-123")
    page.goto(base + reverse("annotation:annotate_item", args=[check.public_id]))
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    page.screenshot(path=screenshot_dir / f"attention-check-{width}.png", full_page=True)
    original = check.canonical_to_shown(check.item.attention_expected)
    answers = dict.fromkeys(FIRST_FOUR_LEFT, "tie") | {check.item.attention_aspect: original}
    for aspect, side in answers.items():
        choose(page, width, aspect, side)
    activate(page, width, ".save-button")
    page.wait_for_url(lambda url: str(check.public_id) not in url or "next" in url)
    assert quality.attention_results(setup.campaign) == [(check.pk, annotator.pk, True)]


def test_comment_is_saved_and_edited_from_the_review(live_server, sized_page, screenshot_dir):
    page, width = sized_page, sized_page.width_name
    annotator = make_user("cora")
    setup = make_annotation_setup([annotator])
    first = setup.assignments(annotator)[0]
    base = live_server.url

    sign_in(page, base, "cora", "cora-pass-123")
    page.goto(base + reverse("annotation:annotate_item", args=[first.public_id]))
    expect(page.locator("#annotate.enhanced")).to_be_visible()
    activate(page, width, ".comment-box summary")
    page.fill("#id_comment", "")
    page.locator("#id_comment").press_sequentially("B repeats 1 triple <b>twice</b>, s")
    expect(page.locator(".save-status")).to_have_text("Not saved yet.")
    assert not page.locator("fieldset.aspect input:checked").count()  # typed keys are no shortcuts
    if width == "desktop":
        page.locator("#id_comment").blur()
        press(page, "1", "1", "1", "1", "Enter")
    else:
        for aspect, side in FIRST_FOUR_LEFT.items():
            choose(page, width, aspect, side)
        activate(page, width, ".save-button")
    page.wait_for_url(lambda url: str(first.public_id) in url)
    expect(page.locator(".comment-box summary")).to_contain_text("(saved)")
    first.refresh_from_db()
    assert first.comment == "B repeats 1 triple <b>twice</b>, s"
    expect(page.locator("#id_comment")).to_have_value(first.comment)
    page.screenshot(path=screenshot_dir / f"comment-{width}.png", full_page=True)

    # From the review list: the comment is there to change, and the save returns to the list.
    page.goto(base + reverse("annotation:annotate_review"))
    activate(page, width, f"#item-{first.public_id} a.reopen")
    page.wait_for_url(base + reverse("annotation:annotate_item", args=[first.public_id]) + "?from=review")
    page.fill("#id_comment", "Fine after all.")
    activate(page, width, ".save-button")
    page.wait_for_url(f"{base}{reverse('annotation:annotate_review')}#item-{first.public_id}")
    first.refresh_from_db()
    assert first.comment == "Fine after all."


def test_quality_page_and_exclusion(live_server, sized_page, screenshot_dir, admin_user):
    page, width = sized_page, sized_page.width_name
    people = [make_user("quinn"), make_user("rafa")]
    setup = make_annotation_setup(people, overlap_share=1.0)
    setup.campaign.attention_share = 0.2
    setup.campaign.practice_pass_mark = 0.6
    setup.campaign.save(update_fields=["attention_share", "practice_pass_mark"])
    replace_practice_items(setup.campaign, PRACTICE_RECORDS)
    add_attention_checks(setup.campaign)
    for person, side in zip(people, ("left", "right"), strict=True):
        membership = CampaignAnnotator.objects.get(annotator=person)
        answer_practice(membership, setup.campaign.practice_items.first(), {"fs": "left", "ts": "left"})
        answer_practice(membership, setup.campaign.practice_items.last(), {"us": side})
        judge_everything(person, setup.campaign, side, seconds=30.0 if side == "left" else 3.0)
    base = live_server.url

    sign_in(page, base, "admin", "admin-pass-123")
    page.goto(base + reverse("annotation:campaign_detail", args=[setup.campaign.pk]))
    activate(page, width, "text=Quality control")
    page.wait_for_url(base + reverse("annotation:campaign_quality", args=[setup.campaign.pk]))
    row = page.locator("#annotator-rafa")
    expect(row).to_contain_text("counted")
    expect(row.locator(".flags")).to_contain_text("s per item < 10 s")
    page.screenshot(path=screenshot_dir / f"quality-{width}.png", full_page=True)
    activate(page, width, row.locator("button", has_text="Leave out"))
    expect(page.locator("#annotator-rafa")).to_contain_text("left out by admin")
    expect(page.locator(".messages")).to_contain_text("left out of ratings")
    assert CampaignAnnotator.objects.get(annotator=people[1]).excluded
    page.screenshot(path=screenshot_dir / f"quality-excluded-{width}.png", full_page=True)
    activate(page, width, page.locator("#annotator-rafa button", has_text="Take back in"))
    expect(page.locator("#annotator-rafa")).to_contain_text("counted")
    assert not CampaignAnnotator.objects.get(annotator=people[1]).excluded
