"""The campaign creation page: sampling, explicit texts, missing outputs, validation, staff only."""

import pytest
from django.urls import reverse

from annotation.models import Assignment, Campaign, Item
from scoring.models import Output, System
from tests.annotation.campaign_factories import make_annotators
from tests.factories import make_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

URL = reverse("annotation:campaign_create")


@pytest.fixture
def setup():
    dataset, systems = make_dataset(texts=8)
    people = make_annotators(3)
    return dataset, systems, people


def form_data(dataset, chosen_systems, people, **changes):
    data = {
        "name": "pilot",
        "dataset": dataset.pk,
        "systems": [system.pk for system in chosen_systems],
        "sample_size": 4,
        "text_references": "",
        "seed": 11,
        "annotators": [person.pk for person in people],
        "overlap_percent": 50,
        "instructions": "Read the text first.",
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def test_the_form_renders_with_a_fresh_seed(admin_client, setup):
    response = admin_client.get(URL)
    assert response.status_code == 200
    assert response.context["form"].initial["seed"] >= 0
    assert b"annotator0" in response.content


def test_creating_a_campaign_samples_texts_and_fills_queues(admin_client, admin_user, setup):
    dataset, systems, people = setup
    response = admin_client.post(URL, form_data(dataset, systems, people))
    campaign = Campaign.objects.get(name="pilot")
    assert response.status_code == 302 and response.url == campaign.get_absolute_url()
    assert campaign.created_by == admin_user and campaign.overlap_share == 0.5
    assert campaign.texts.count() == 4
    assert Item.objects.filter(campaign=campaign).count() == 4 * 3
    # Half the texts (2) are judged twice: 4 + 2 text groups of 3 pairs each.
    assert Assignment.objects.filter(item__campaign=campaign).count() == 6 * 3
    assert campaign.doubly_judged_texts() == 2


def test_the_same_seed_samples_the_same_texts(admin_client, setup):
    dataset, systems, people = setup
    admin_client.post(URL, form_data(dataset, systems, people, name="first"))
    # Others judge the second: an annotator reads a text in one campaign only.
    admin_client.post(URL, form_data(dataset, systems, make_annotators(3, prefix="second"), name="second"))
    first, second = Campaign.objects.get(name="first"), Campaign.objects.get(name="second")
    assert set(first.texts.values_list("pk", flat=True)) == set(second.texts.values_list("pk", flat=True))


def test_explicit_texts_by_external_id_position_and_id(admin_client, setup):
    dataset, systems, people = setup
    third = dataset.texts.get(position=2)
    references = f"toy-1, #2\n{third.pk}"
    admin_client.post(URL, form_data(dataset, systems, people, sample_size=None, text_references=references))
    campaign = Campaign.objects.get(name="pilot")
    assert sorted(campaign.texts.values_list("position", flat=True)) == [0, 1, 2]


def test_ground_truth_can_be_one_of_the_systems(admin_client, setup):
    dataset, systems, people = setup
    response = admin_client.post(URL, form_data(dataset, systems[:1], people, include_ground_truth="on"))
    assert response.status_code == 302
    campaign = Campaign.objects.get(name="pilot")
    assert set(campaign.systems.values_list("name", flat=True)) == {"alpha", System.GROUND_TRUTH}


def test_explicit_texts_with_missing_outputs_are_refused_by_name(admin_client, setup):
    dataset, systems, people = setup
    Output.objects.filter(system=systems[1], text__position=1).delete()
    response = admin_client.post(
        URL, form_data(dataset, systems, people, sample_size=None, text_references="toy-1, toy-2")
    )
    assert response.status_code == 200
    assert "Some texts lack an output to compare: toy-2 (beta)." in response.content.decode()
    assert not Campaign.objects.exists()


def test_sampling_skips_texts_with_missing_outputs_and_says_so(admin_client, setup):
    dataset, systems, people = setup
    Output.objects.filter(system=systems[2], text__position__in=[0, 1]).delete()
    response = admin_client.post(URL, form_data(dataset, systems, people, sample_size=6), follow=True)
    campaign = Campaign.objects.get(name="pilot")
    assert not campaign.texts.filter(position__in=[0, 1]).exists()
    assert "2 texts of toy lack an output of a chosen system" in response.content.decode()


def test_sampling_more_texts_than_are_complete_is_refused(admin_client, setup):
    dataset, systems, people = setup
    Output.objects.filter(system=systems[2], text__position__in=[0, 1]).delete()
    response = admin_client.post(URL, form_data(dataset, systems, people, sample_size=7))
    assert "Only 6 of the 8 texts of toy have outputs for every chosen system; cannot sample 7." in (
        response.content.decode()
    )
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"systems": []}, "Choose at least two systems"),
        ({"text_references": "toy-1"}, "not both"),
        ({"sample_size": None}, "Give a number of texts to sample, or list the texts."),
        ({"overlap_percent": 120}, "less than or equal to 100"),
        ({"text_references": "toy-99", "sample_size": None}, "Unknown texts in dataset toy: toy-99."),
        ({"annotators": None, "overlap_percent": 50}, "This field is required."),
    ],
)
def test_bad_requests_are_refused_clearly(admin_client, setup, changes, message):
    dataset, systems, people = setup
    response = admin_client.post(URL, form_data(dataset, systems, people, **changes))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Campaign.objects.exists()


def test_overlap_with_a_single_annotator_is_refused(admin_client, setup):
    dataset, systems, people = setup
    response = admin_client.post(URL, form_data(dataset, systems, people[:1]))
    assert "choose at least two, or an overlap of 0%" in response.content.decode()
    assert not Campaign.objects.exists()


def test_duplicate_names_are_refused(admin_client, setup):
    dataset, systems, people = setup
    admin_client.post(URL, form_data(dataset, systems, people))
    response = admin_client.post(URL, form_data(dataset, systems, people))
    assert "A campaign with this name exists already." in response.content.decode()
    assert Campaign.objects.count() == 1


def test_systems_carry_their_datasets_and_one_from_elsewhere_is_refused_by_name(admin_client, setup):
    dataset, systems, people = setup
    other, other_systems = make_dataset(name="Other news", texts=3, systems=("Solo-Other-System",))
    page = admin_client.get(URL).content.decode()
    # Each checkbox names its datasets for the script; the label names them for a reader without it.
    assert f'data-datasets="{other.pk}"' in page and f"Solo-Other-System ({other.name})" in page
    response = admin_client.post(URL, form_data(dataset, [*systems[:2], *other_systems], people))
    assert response.status_code == 200
    body = response.content.decode()
    assert f"Solo-Other-System has no outputs in {dataset.name}: choose among" in body
    assert not Campaign.objects.exists()
