"""The triple-check pages: an annotator's triple (anonymous, own labels only), saving, staff's report and form."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.triple_checks.models import TripleCheck, TripleLabel
from annotation.triple_checks.services import save_label

pytestmark = pytest.mark.django_db
SYSTEM_NAMES = ("sys-one", "sys-two")
PRACTICE_LINE = b'{"text": "Ada wrote.", "triple": ["Ada", "wrote", "notes"], "supported": false, "facts": 2, "reason": "No notes."}\n'


def first_label(campaign, username):
    return TripleLabel.objects.filter(item__campaign=campaign, annotator__username=username).order_by("queue_position")[
        0
    ]


@pytest.fixture
def checker(client, triple_check):
    client.force_login(triple_check.annotators.get(username="checker1"))
    return client


def test_the_triple_page_shows_text_and_triple_but_no_system(checker, triple_check):
    label = first_label(triple_check, "checker1")
    page = checker.get(reverse("annotation:triple_label", args=[label.public_id])).content.decode()
    assert label.item.text.content in page and label.item.triple[1] in page
    assert not any(name in page for name in SYSTEM_NAMES)
    assert f"/{label.item.pk}/" not in page and 'name="supported"' in page and 'name="facts"' in page


def test_someone_elses_label_is_not_found(checker, triple_check):
    label = first_label(triple_check, "checker2")
    assert checker.get(reverse("annotation:triple_label", args=[label.public_id])).status_code == 404


def test_saving_goes_on_to_the_next_triple(checker, triple_check):
    label = first_label(triple_check, "checker1")
    url = reverse("annotation:triple_label", args=[label.public_id])
    response = checker.post(url, {"supported": "no", "facts": "2", "seconds": "3.5"}, follow=True)
    label.refresh_from_db()
    assert (label.supported, label.facts, label.seconds_spent) == (False, 2, 3.5)
    following = TripleLabel.objects.get(
        annotator__username="checker1", item__campaign=triple_check, queue_position=label.queue_position + 1
    )
    assert response.redirect_chain[-1][0] == reverse("annotation:triple_label", args=[following.public_id])


def test_an_incomplete_answer_is_refused_and_kept(checker, triple_check):
    label = first_label(triple_check, "checker1")
    response = checker.post(reverse("annotation:triple_label", args=[label.public_id]), {"supported": "yes"})
    assert response.status_code == 400
    assert "how many facts" in response.content.decode()
    label.refresh_from_db()
    assert label.saved_at is None


def test_home_offers_the_campaign(checker, triple_check):
    save_label(first_label(triple_check, "checker1"), "yes", "1")
    page = checker.get(reverse("annotation:annotate_home")).content.decode()
    assert triple_check.name in page and reverse("annotation:triple_next", args=[triple_check.pk]) in page
    assert page.count(triple_check.name) == 1 and "1 of 8 labelled" in page


def test_staff_pages_are_staff_only(checker, triple_check):
    assert checker.get(reverse("annotation:triple_check", args=[triple_check.pk])).status_code == 403
    assert checker.get(reverse("annotation:triple_check_list")).status_code == 403
    assert checker.get(reverse("annotation:triple_check_labels", args=[triple_check.pk])).status_code == 403


def test_staff_see_the_judge_agreement_table(admin_client, triple_check):
    for label in TripleLabel.objects.filter(item__campaign=triple_check).select_related("item"):
        TripleLabel.objects.filter(pk=label.pk).update(
            supported=label.item.index != 1, facts=1, saved_at="2026-01-01T00:00:00Z"
        )
    page = admin_client.get(reverse("annotation:triple_check", args=[triple_check.pk])).content.decode()
    assert 'id="judge-agreement"' in page and "careful · careful-model" in page and "careless" in page
    assert "1.00 [1.00, 1.00]" in page  # the careful judge's accuracy
    assert "McNemar" in page


def test_staff_create_a_campaign_with_the_form(admin_client, triple_check):
    systems = [system.pk for system in triple_check.systems.all()]
    annotators = [annotator.pk for annotator in triple_check.annotators.all()]
    response = admin_client.post(
        reverse("annotation:triple_check_list"),
        {
            "name": "check-two", "dataset": triple_check.dataset.pk, "systems": systems,
            "judge_setting": "wrong-judge", "per_stratum": 1, "annotators": annotators,
            "overlap_share": 0, "attention_share": 0, "sample_seed": 3, "practice_pass_percent": 50,
            "practice_file": SimpleUploadedFile("practice.jsonl", PRACTICE_LINE),
        },
    )  # fmt: skip
    created = TripleCheck.objects.get(name="check-two")
    assert response.status_code == 302 and response.url == created.get_absolute_url()
    assert created.items.count() == 4  # one per system and verdict
    assert created.practice_pass_mark == 0.5
    assert [(item.triple, item.supported, item.facts) for item in created.practice_items.all()] == [
        (["Ada", "wrote", "notes"], False, 2)
    ]


def test_a_bad_practice_file_is_named_on_the_form(admin_client, triple_check):
    response = admin_client.post(
        reverse("annotation:triple_check_list"),
        {"name": "check-three", "practice_file": SimpleUploadedFile("practice.jsonl", b'{"text": "x"}')},
    )
    assert "practice.jsonl: line 1: missing facts, reason, supported, triple" in response.content.decode()


def test_skip_moves_the_triple_to_the_end_and_previous_goes_back(checker, triple_check):
    first = first_label(triple_check, "checker1")
    last = TripleLabel.objects.filter(item__campaign=triple_check, annotator__username="checker1").count() - 1
    response = checker.post(reverse("annotation:triple_skip", args=[first.public_id]))
    first.refresh_from_db()
    assert first.queue_position == last + 1
    following = first_label(triple_check, "checker1")
    assert response.url == reverse("annotation:triple_next", args=[triple_check.pk])
    checker.post(reverse("annotation:triple_label", args=[following.public_id]), {"supported": "yes", "facts": "1"})
    third = TripleLabel.objects.get(
        item__campaign=triple_check, annotator__username="checker1", queue_position=following.queue_position + 1
    )
    page = checker.get(reverse("annotation:triple_label", args=[third.public_id])).content.decode()
    assert f'id="previous-triple" href="{reverse("annotation:triple_label", args=[following.public_id])}"' in page
    # A labelled triple is changed, not skipped.
    checker.post(reverse("annotation:triple_skip", args=[following.public_id]))
    following.refresh_from_db()
    assert following.queue_position == 1 and following.supported is True


def test_staff_download_every_label(admin_client, triple_check):
    save_label(first_label(triple_check, "checker2"), "no", "3", "2")
    response = admin_client.get(reverse("annotation:triple_check_labels", args=[triple_check.pk]))
    header, row = response.content.decode().splitlines()
    assert header.startswith("campaign,item,text,system,subject,relation,object,weight")
    assert ",checker2,False,3,2.0," in row


def test_staff_add_and_remove_annotators_and_pending_triples_follow(admin_client, triple_check, django_user_model):
    url = reverse("annotation:triple_check_annotators", args=[triple_check.pk])
    save_label(first_label(triple_check, "checker1"), "yes", "1")
    newcomer = django_user_model.objects.create_user("checker3", password="checker-pass-123")
    admin_client.post(url, {"add": newcomer.pk})
    labels = TripleLabel.objects.filter(item__campaign=triple_check)
    assert labels.filter(annotator=newcomer).exists() and labels.count() == 16
    leaver = triple_check.annotators.get(username="checker1")
    admin_client.post(url, {"remove": leaver.pk})
    # The saved label stays the leaver's; the pending ones went to the others, one per annotator and triple.
    assert list(labels.filter(annotator=leaver).values_list("saved_at", flat=True)) != []
    assert labels.filter(annotator=leaver, saved_at=None).count() == 0
    assert labels.values("item", "annotator").distinct().count() == labels.count()
    page = admin_client.get(reverse("annotation:triple_check", args=[triple_check.pk])).content.decode()
    assert "removed" in page
    admin_client.post(url, {"add": django_user_model.objects.get(username="admin").pk})
    assert not labels.filter(annotator__username="admin").exists()  # staff may not label blind


def test_the_practice_file_is_kept_across_a_form_error_and_used_by_the_next_submit(admin_client, triple_check):
    fields = {
        "name": "check-four", "dataset": triple_check.dataset.pk,
        "systems": [system.pk for system in triple_check.systems.all()], "judge_setting": "wrong-judge",
        "per_stratum": 1, "annotators": [annotator.pk for annotator in triple_check.annotators.all()],
        "overlap_share": 2, "attention_share": 0, "sample_seed": 3,
    }  # fmt: skip
    upload = SimpleUploadedFile("warm-up.jsonl", PRACTICE_LINE)
    page = admin_client.post(reverse("annotation:triple_check_list"), {**fields, "practice_file": upload})
    assert "Kept from your last try: <strong>warm-up.jsonl (1 triples)</strong>" in page.content.decode()
    token = re.search(r'name="kept_practice" value="([^"]+)"', page.content.decode()).group(1)

    admin_client.post(reverse("annotation:triple_check_list"), {**fields, "overlap_share": 0, "kept_practice": token})
    created = TripleCheck.objects.get(name="check-four")
    assert [item.triple for item in created.practice_items.all()] == [["Ada", "wrote", "notes"]]
