import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.models import Dataset, System
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db


def biomedical_dataset(name, gold_per_text, systems=(), description=""):
    """Texts with the given numbers of gold triples, each system's output two triples."""
    texts = [
        {"content": f"{name} text {position}", "gold": [[f"s{index}", "r", "o"] for index in range(gold_count)]}
        for position, gold_count in enumerate(gold_per_text)
    ]
    dataset, _systems = make_dataset(
        name,
        texts,
        systems,
        outputs=lambda position, system: [["a", "b", "c"], ["d", "e", "f"]],
        description=description,
        domain=Dataset.Domain.BIOMEDICAL,
    )
    return dataset


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("scoring:home"))
    assert response.status_code == 302
    assert response.url == f"{reverse('login')}?next=/"


def test_lists_datasets_with_level_domain_and_counts(admin_client):
    gpt = System.objects.create(name="GPT-4")
    llama = System.objects.create(name="LLaMA-2")
    biomedical_dataset("CDR", gold_per_text=[2, 0, 3], systems=[gpt, llama, System.ground_truth()])
    biomedical_dataset("NYT", gold_per_text=[1])

    response = admin_client.get(reverse("scoring:home"))

    rows = {dataset.name: dataset for dataset in response.context["datasets"]}
    # Ground truth outputs do not count as a system; output triples are not gold triples.
    assert (rows["CDR"].text_count, rows["CDR"].system_count, rows["CDR"].gold_count) == (3, 2, 5)
    assert (rows["NYT"].text_count, rows["NYT"].system_count, rows["NYT"].gold_count) == (1, 0, 1)
    page = response.content.decode()
    assert 'href="/datasets/CDR/"' in page
    assert "Biomedical" in page and "Sentence" in page


def test_counts_come_from_one_query_whatever_the_number_of_datasets(admin_client):
    system = System.objects.create(name="GPT-4")
    biomedical_dataset("First", gold_per_text=[1, 1], systems=[system])
    with CaptureQueriesContext(connection) as one_dataset:
        admin_client.get(reverse("scoring:home"))
    for index in range(4):
        biomedical_dataset(f"More {index}", gold_per_text=[2, 1], systems=[system])
    with CaptureQueriesContext(connection) as five_datasets:
        response = admin_client.get(reverse("scoring:home"))

    assert len(response.context["datasets"]) == 5
    assert len(five_datasets) == len(one_dataset)


def test_users_who_may_not_see_outputs_get_no_links_to_them(client, annotator_user):
    biomedical_dataset("CDR", gold_per_text=[1])
    client.force_login(annotator_user)

    page = client.get(reverse("scoring:home")).content.decode()

    assert "<strong>CDR</strong>" in page
    assert 'href="/datasets/CDR/"' not in page
    assert 'Your pairs to judge are under <a href="/annotate/">Annotate</a>' in page


def test_users_who_may_see_outputs_get_no_pointer_to_annotate(admin_client):
    biomedical_dataset("CDR", gold_per_text=[1])

    assert "Your pairs to judge" not in admin_client.get(reverse("scoring:home")).content.decode()


def test_description_is_escaped(admin_client):
    biomedical_dataset("Escaped", gold_per_text=[1], description="<script>alert(1)</script> and <b>bold</b>")

    page = admin_client.get(reverse("scoring:home")).content.decode()

    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" not in page
    assert "<b>bold</b>" not in page


def test_empty_state_invites_staff_to_upload(admin_client):
    page = admin_client.get(reverse("scoring:home")).content.decode()

    assert "No dataset yet." in page
    assert f'href="{reverse("scoring:upload")}"' in page
