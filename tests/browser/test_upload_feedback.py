"""Upload feedback where the eye is, at a desktop width and on a 390 px phone: the refusal and the
success banners are at the top of the viewport after the post (no jump to a form anchor), and the
upload history keeps each message on a row of its own, a line or two high."""

import json

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.annotator_pages import sign_in
from tests.browser.viewports import in_viewport

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ADMIN, PASSWORD = "upload-admin", "upload-admin-pass-123"


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(
        "\n".join(
            json.dumps({"id": f"s{number}", "text": f"Text {number} about Warsaw.", "triples": [["A", "in", "Warsaw"]]})
            for number in range(3)
        )
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "s1", "text": "Broken.", "triples": [["only", "two"]]}))
    return good, bad


def upload_dataset(page, name, path):
    form = page.locator("#new-dataset form")
    form.get_by_label("Name").fill(name)
    form.get_by_label("File").set_input_files(path)
    form.get_by_role("button", name="Import dataset").click()
    page.wait_for_load_state()


def test_upload_results_are_at_the_top_of_the_viewport(live_server, sized_page, files, screenshot_dir):
    page, (good, bad) = sized_page, files
    get_user_model().objects.create_superuser(ADMIN, "upload-admin@example.org", PASSWORD)
    sign_in(page, live_server.url, ADMIN, PASSWORD)
    page.goto(f"{live_server.url}/upload/")

    upload_dataset(page, "broken", bad)
    refusal = page.locator(".message.error")
    expect(refusal).to_contain_text("triple 1: expected 3 items")
    assert page.evaluate("window.scrollY") == 0 and in_viewport(page, refusal)
    page.screenshot(path=str(screenshot_dir / f"upload-refused-{page.width_name}.png"))

    upload_dataset(page, "fine", good)
    success = page.locator(".message.success")
    expect(success).to_contain_text("fine")
    assert page.evaluate("window.scrollY") == 0 and in_viewport(page, success)

    # A few more refusals: each message on its own full-width row, not ten lines in a narrow column.
    for number in range(3):
        upload_dataset(page, f"broken-{number}", bad)
    messages = page.locator("table.uploads tr.upload-message td")
    expect(messages).to_have_count(5)
    line_height = 24
    for index in range(5):
        assert messages.nth(index).bounding_box()["height"] <= 4 * line_height
    outcome_rows = page.locator("table.uploads tr.has-message")
    assert all(outcome_rows.nth(index).bounding_box()["height"] < 3 * line_height for index in range(5))
    page.screenshot(path=str(screenshot_dir / f"upload-history-{page.width_name}.png"), full_page=True)
