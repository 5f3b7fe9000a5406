"""What the campaign form says and keeps when it cannot create the campaign: a sample larger than
the dataset (no empty list of texts), texts lacking outputs named, the practice file kept."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Campaign
from scoring.models import Output
from tests.annotation.campaign_factories import make_annotators
from tests.annotation.quality_fixtures import PRACTICE_RECORDS, practice_file
from tests.annotation.test_campaign_create_view import form_data
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db

URL = reverse("annotation:campaign_create")
KEPT = re.compile(r'name="kept_practice" value="([^"]+)"')


@pytest.fixture
def setup():
    dataset, systems = make_dataset(texts=6)
    return dataset, systems, make_annotators(2)


def test_a_sample_larger_than_the_dataset_says_so_without_an_empty_list(admin_client, setup):
    dataset, systems, people = setup
    page = admin_client.post(URL, form_data(dataset, systems, people, sample_size=10)).content.decode()
    assert "toy has only 6 texts; cannot sample 10." in page
    assert "Texts lacking outputs" not in page and not Campaign.objects.exists()


def test_texts_lacking_outputs_are_named(admin_client, setup):
    dataset, systems, people = setup
    Output.objects.filter(system=systems[1], text__position=2).delete()
    page = admin_client.post(URL, form_data(dataset, systems, people, sample_size=6)).content.decode()
    assert "Only 5 of the 6 texts of toy" in page
    lacking = page[page.index("Texts lacking outputs:") :]
    assert f"{dataset.texts.get(position=2).label} ({systems[1].name})" in lacking.split("</")[0]


def test_the_practice_file_is_kept_across_a_form_error_and_used_by_the_next_submit(admin_client, setup):
    dataset, systems, people = setup
    upload = SimpleUploadedFile("warm-up.jsonl", practice_file())
    data = form_data(dataset, systems, people, sample_size=10, practice_file=upload)
    page = admin_client.post(URL, data).content.decode()
    assert "Kept from your last try: <strong>warm-up.jsonl (2 pairs)</strong>" in page
    token = KEPT.search(page).group(1)
    response = admin_client.post(URL, form_data(dataset, systems, people, kept_practice=token))
    campaign = Campaign.objects.get(name="pilot")
    assert response.status_code == 302
    assert [item.text for item in campaign.practice_items.all()] == [record.text for record in PRACTICE_RECORDS]


def test_a_kept_practice_file_that_was_tampered_with_must_be_chosen_again(admin_client, setup):
    dataset, systems, people = setup
    page = admin_client.post(URL, form_data(dataset, systems, people, kept_practice="forged")).content.decode()
    assert "The practice file of the last try was lost: choose it again." in page
    assert not Campaign.objects.exists()


def test_a_new_file_replaces_the_kept_one(admin_client, setup):
    dataset, systems, people = setup
    first = admin_client.post(
        URL,
        form_data(
            dataset,
            systems,
            people,
            sample_size=10,
            practice_file=SimpleUploadedFile("first.jsonl", practice_file(PRACTICE_RECORDS[:1])),
        ),
    ).content.decode()
    token = KEPT.search(first).group(1)
    upload = SimpleUploadedFile("second.jsonl", practice_file())
    admin_client.post(URL, form_data(dataset, systems, people, kept_practice=token, practice_file=upload))
    assert Campaign.objects.get(name="pilot").practice_items.count() == 2
