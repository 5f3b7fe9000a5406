"""A 20-annotator study from the browser, as a new lab runs it (issue 19's done-when): staff invite
20 annotators from a pasted list; one accepts the invite, chooses a password, forgets it and
resets it with the link staff show (the site's mail stays on this machine), and judges two items;
staff resolve the disagreement and close the campaign; a researcher finds its downloads in the
navigation, makes an API token in the page and reads the judgements and leaderboard.json with it,
and the export carries the resolution."""

import csv
import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from accounts.roles import Role
from annotation.models import Judgement
from leaderboard.jobs import build_snapshots
from tests.annotation.adjudication_fixtures import FIRST, judge_canonical
from tests.annotation.annotator_fixtures import make_annotation_setup
from tests.browser.annotator_pages import press, sign_in
from tests.browser.study_steps import accept_invite, invite_annotators, make_token, make_user, resolve

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NOTE = "Both are on topic; B names the disease."


def forget_and_reset(invitee, staff, base):
    """The invitee asks for a reset from the sign-in page; staff show the link the mail holds; the
    invitee chooses a new password with it and signs in."""
    invitee.click("text=Sign out")
    invitee.goto(base + reverse("login"))
    invitee.click("text=Forgotten your password?")
    invitee.fill("#id_email", "person01@lab.example.org")
    invitee.click("text=Send the link")
    invitee.wait_for_url(base + reverse("password_reset_done"))

    staff.goto(base + reverse("accounts:list"))
    staff.locator("#account-person01 button:has-text('Reset link')").click()
    link = staff.locator("#link").inner_text()

    invitee.goto(link)
    invitee.fill("#id_new_password1", "Second-pass-202")
    invitee.fill("#id_new_password2", "Second-pass-202")
    invitee.click("main button[type=submit]")
    invitee.wait_for_url(base + reverse("password_reset_complete"))
    sign_in(invitee, base, "person01", "Second-pass-202")


def judge_all_ties(invitee, base, queue):
    """Start the queue and tie every aspect of its pairs (the other annotator said A on the first four)."""
    invitee.goto(base + reverse("annotation:annotate_home"))
    invitee.click("text=Start")
    for assignment in queue:
        invitee.wait_for_url(base + reverse("annotation:annotate_item", args=[assignment.public_id]))
        expect(invitee.locator("#annotate.enhanced")).to_be_visible()
        press(invitee, "2", "2", "2", "2", "Enter")
        expect(invitee.locator(".gold-card")).to_be_visible()  # one pair a text: its completeness is next
        press(invitee, "2", "Enter")
    # The page moves on once the last save is answered; the database is read only then (the live
    # server's in-memory SQLite refuses a read beside its write: "database table is locked").
    invitee.wait_for_url(lambda url: url != base + reverse("annotation:annotate_item", args=[queue[-1].public_id]))
    assert Judgement.objects.filter(assignment__in=queue).count() == 5 * len(queue)


def adjudicate_and_close(staff, base, campaign):
    staff.goto(base + reverse("annotation:adjudication_list", args=[campaign.pk]))
    staff.locator("#disagreements tbody tr:first-child a").click()
    resolve(staff, "desktop", "ts", "System B better", NOTE)
    staff.goto(base + campaign.get_absolute_url())
    staff.click("a.button:has-text('Close the campaign')")
    staff.click("#close-campaign button[name=confirm]")
    expect(staff.locator("h1 .badge")).to_have_text("closed")


@pytest.mark.slow
def test_a_study_from_invites_to_an_adjudicated_export(live_server, page, chromium, screenshot_dir):
    base, staff = live_server.url, page
    make_user("lead", Role.STAFF)
    make_user("reader", Role.RESEARCHER)
    sign_in(staff, base, "lead", "lead-pass-123")
    links = invite_annotators(staff, base, 20)

    invitee = accept_invite(chromium, staff.viewport_size, links[0], "person01", "Chosen-pass-101")
    person = make_user("ann-two", Role.ANNOTATOR)
    annotator = get_user_model().objects.get(username="person01")
    setup = make_annotation_setup([annotator, person], overlap_share=1.0)
    campaign = setup.campaign
    judge_canonical(person, campaign, FIRST)

    forget_and_reset(invitee, staff, base)
    judge_all_ties(invitee, base, setup.assignments(annotator)[:2])
    invitee.context.close()
    adjudicate_and_close(staff, base, campaign)
    with ThreadPoolExecutor(1) as thread:  # the build broadcasts through async_to_sync: not beside Playwright's loop
        thread.submit(build_snapshots, campaign.dataset).result()

    researcher = chromium.new_context(viewport=staff.viewport_size).new_page()
    sign_in(researcher, base, "reader", "reader-pass-123")
    researcher.click("nav.mainnav >> text=Judgements")
    expect(researcher.locator("#campaign-exports")).to_contain_text(campaign.name)
    researcher.screenshot(path=screenshot_dir / "researcher-judgements.png", full_page=True)
    key = make_token(researcher, "notebook")
    by_token = {"Authorization": f"Token {key}"}

    reply = researcher.request.get(f"{base}/api/judgements/?campaign={campaign.pk}&aspect=ts", headers=by_token)
    rows = reply.json()["judgements"]
    assert reply.status == 200 and {row["annotator"] for row in rows} == {"annotator-1", "annotator-2"}
    settled = [row for row in rows if row["adjudicated"]]
    assert {(row["adjudicated"], row["adjudication_note"], row["adjudicated_by"]) for row in settled} == {
        ("b", NOTE, "staff")
    }
    board = researcher.request.get(
        base + reverse("leaderboard:api_dataset", args=[campaign.dataset.name]), headers=by_token
    )
    assert board.status == 200 and board.json()["human"]["judgements"] == 22

    export = researcher.request.get(base + reverse("annotation:campaign_csv", args=[campaign.pk])).text()
    adjudicated = [row for row in csv.DictReader(io.StringIO(export)) if row["adjudicated"]]
    assert {(row["aspect"], row["adjudicated"], row["adjudication_note"]) for row in adjudicated} == {("ts", "b", NOTE)}
    assert "person01" not in export

    researcher.goto(base + reverse("accounts:tokens"))
    expect(researcher.locator("#tokens")).not_to_contain_text("never")  # its last use is shown
    expect(researcher.locator("#new-key")).to_have_count(0)  # and the key is not shown again
