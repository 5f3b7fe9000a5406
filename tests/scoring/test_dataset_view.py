import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from scoring.models import Dataset, Output, System, Text, Upload

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def dataset():
    return Dataset.objects.create(name="CDR", description="Chemical–disease relations.\nSecond line.")


def add_texts(dataset, count):
    return [
        Text.objects.create(
            dataset=dataset, position=position, content=f"Text number {position}.", gold=[["a", "b", "c"]]
        )
        for position in range(count)
    ]


def test_anonymous_visitors_are_sent_to_sign_in(client, dataset):
    response = client.get(dataset.get_absolute_url())
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_users_without_the_view_output_permission_get_403(client, annotator_user, dataset):
    client.force_login(annotator_user)
    assert client.get(dataset.get_absolute_url()).status_code == 403


def test_researchers_with_the_view_output_permission_see_it(client, annotator_user, dataset):
    annotator_user.user_permissions.add(
        Permission.objects.get(codename="view_output", content_type__app_label="scoring")
    )
    client.force_login(annotator_user)
    assert client.get(dataset.get_absolute_url()).status_code == 200


def test_unknown_dataset_is_404(admin_client):
    assert admin_client.get(reverse("scoring:dataset", args=["Missing"])).status_code == 404


def test_system_statistics(admin_client, dataset, admin_user):
    first, second, third = add_texts(dataset, 3)
    gpt = System.objects.create(name="GPT-4", family="GPT")
    upload = Upload.objects.create(
        kind=Upload.Kind.OUTPUTS,
        dataset_name="CDR",
        system_name="GPT-4",
        file_name="gpt.jsonl",
        sha256="0" * 64,
        outcome=Upload.Outcome.IMPORTED,
        uploaded_by=admin_user,
    )
    Output.objects.create(system=gpt, text=first, triples=[["a", "b", "c"], ["d", "e", "f"]], upload=upload)
    Output.objects.create(system=gpt, text=second, triples=[["g", "h", "i"]], parse_warnings=["x", "y"], upload=upload)
    Output.objects.create(system=gpt, text=third, triples=[], parse_warnings=["z"], upload=upload)
    gold = System.ground_truth()
    for text in (first, second, third):
        Output.objects.create(system=gold, text=text, triples=text.gold)

    response = admin_client.get(dataset.get_absolute_url())

    systems = {system.name: system for system in response.context["systems"]}
    assert list(systems) == ["Ground truth", "GPT-4"]
    measured = systems["GPT-4"]
    assert (measured.output_count, measured.triple_count, measured.empty_count, measured.warning_count) == (3, 3, 1, 3)
    assert measured.triples_per_text == pytest.approx(1.0)
    assert measured.last_upload_at == upload.created_at
    assert systems["Ground truth"].last_upload_at is None
    page = response.content.decode()
    assert '<span class="badge gold">gold</span>' in page
    assert "Chemical–disease relations.<br>Second line." in page
    assert response.context["dataset"].system_count == 1


def test_statistics_count_only_outputs_on_this_dataset(admin_client, dataset):
    other = Dataset.objects.create(name="Other")
    system = System.objects.create(name="GPT-4")
    Output.objects.create(system=system, text=add_texts(dataset, 1)[0], triples=[["a", "b", "c"]])
    for text in add_texts(other, 2):
        Output.objects.create(system=system, text=text, triples=[["a", "b", "c"], ["d", "e", "f"]])

    response = admin_client.get(dataset.get_absolute_url())

    [measured] = response.context["systems"]
    assert (measured.output_count, measured.triple_count) == (1, 1)


def test_texts_are_paginated_by_fifty_with_excerpt_and_gold_count(admin_client, dataset):
    texts = add_texts(dataset, 51)

    first_page = admin_client.get(dataset.get_absolute_url())
    second_page = admin_client.get(dataset.get_absolute_url(), {"page": 2})

    assert len(first_page.context["page"].object_list) == 50
    [last] = second_page.context["page"].object_list
    assert last.pk == texts[50].pk and last.gold_count == 1
    page = second_page.content.decode()
    assert f'href="{texts[50].get_absolute_url()}"' in page
    assert "Text number 50." in page
    assert "Page 2 of 2" in page


def test_long_texts_are_cut_to_an_excerpt(admin_client, dataset):
    Text.objects.create(dataset=dataset, position=0, content="word " * 2000)

    page = admin_client.get(dataset.get_absolute_url()).content.decode()

    assert "word " * 20 in page
    assert "word " * 200 not in page


def test_text_excerpts_are_escaped(admin_client, dataset):
    Text.objects.create(dataset=dataset, position=0, content="<script>alert(1)</script> <b>bold</b>")

    page = admin_client.get(dataset.get_absolute_url()).content.decode()

    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" not in page
    assert "<b>bold</b>" not in page
