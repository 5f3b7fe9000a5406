"""A triple check's practice round: its file, the gate before real triples, feedback, result and retake."""

import json

import pytest
from django.urls import reverse

from annotation.triple_checks.models import TriplePracticeItem
from annotation.triple_checks.practice import read_triple_practice_file
from scoring.genres.formats import FormatError

pytestmark = pytest.mark.django_db
RECORD = {
    "text": "Ada wrote notes.",
    "triple": ["Ada", "wrote", "notes"],
    "supported": True,
    "facts": 1,
    "reason": "Said.",
}


def test_the_file_is_json_lines_or_an_array():
    lines = "\n".join(json.dumps(record) for record in (RECORD, {**RECORD, "supported": False, "facts": 2}))
    records = read_triple_practice_file(lines.encode())
    assert [(record.supported, record.facts) for record in records] == [(True, 1), (False, 2)]
    assert read_triple_practice_file(json.dumps([RECORD]).encode())[0].triple == ["Ada", "wrote", "notes"]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"facts": 6}, "facts must be a whole number from 1 to 5"),
        ({"supported": "yes"}, "supported must be true or false"),
        ({"triple": ["Ada", "wrote"]}, "line 1, triple"),
        ({"colour": "red"}, "unknown key colour"),
    ],
)
def test_a_bad_record_is_named(change, message):
    with pytest.raises(FormatError, match=message):
        read_triple_practice_file(json.dumps({**RECORD, **change}).encode())


def practice_round(campaign):
    for position, (supported, facts) in enumerate([(True, 1), (False, 2)]):
        TriplePracticeItem.objects.create(
            campaign=campaign, position=position, text=f"Practice text {position + 1}.", triple=["Ada", "wrote", "notes"],
            supported=supported, facts=facts, reason=f"Reason {position + 1}.",
        )  # fmt: skip
    campaign.practice_pass_mark = 1.0
    campaign.save(update_fields=["practice_pass_mark"])


def test_real_triples_open_after_a_passed_attempt(client, triple_check):
    practice_round(triple_check)
    client.force_login(triple_check.annotators.get(username="checker1"))
    practice = reverse("annotation:triple_practice", args=[triple_check.pk])
    assert client.get(reverse("annotation:triple_next", args=[triple_check.pk])).url == practice
    real = triple_check.items.first().labels.get(annotator__username="checker1")
    assert client.get(reverse("annotation:triple_label", args=[real.public_id])).url == practice
    page = client.get(practice).content.decode()
    assert "Practice text 1." in page and "Practice round" in page and "Reason 1." not in page

    # One question wrong: 3 of 4 reference answers, under the pass mark of 100%.
    response = client.post(practice, {"supported": "no", "facts": "1"})
    assert response.url == reverse("annotation:triple_practice_feedback", args=[triple_check.pk, 1])
    feedback = client.get(response.url).content.decode()
    assert "Reference answer: supported, 1 fact" in feedback and "Reason 1." in feedback
    client.post(practice, {"supported": "no", "facts": "2"})
    result = client.get(practice).content.decode()
    assert "Not passed yet" in result and "3 of 4" in result

    client.post(reverse("annotation:triple_practice_retake", args=[triple_check.pk]))
    client.post(practice, {"supported": "yes", "facts": "1"})
    client.post(practice, {"supported": "no", "facts": "2"})
    assert client.get(practice).url == reverse("annotation:triple_next", args=[triple_check.pk])
    assert client.get(reverse("annotation:triple_label", args=[real.public_id])).status_code == 200


def test_another_annotators_campaign_has_no_practice_for_you(client, triple_check, django_user_model):
    client.force_login(django_user_model.objects.create_user("stranger", password="stranger-pass-123"))
    assert client.get(reverse("annotation:triple_practice", args=[triple_check.pk])).status_code == 404
