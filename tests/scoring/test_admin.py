import pytest
from django.urls import reverse

from scoring.models import ApiToken, Dataset, Output, System, Text, Upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def records(admin_user):
    dataset = Dataset.objects.create(name="CDR", description="Chemicals and diseases")
    text = Text.objects.create(dataset=dataset, position=0, content="<script>alert(1)</script>", gold=[["a", "b", "c"]])
    system = System.objects.create(name="GPT-4", family="GPT")
    upload = Upload.objects.create(
        kind=Upload.Kind.OUTPUTS,
        dataset_name="CDR",
        system_name="GPT-4",
        file_name="gpt.jsonl",
        sha256="ab" * 32,
        outcome=Upload.Outcome.IMPORTED,
        uploaded_by=admin_user,
        texts=1,
        triples=2,
    )
    output = Output.objects.create(system=system, text=text, triples=[["a", "b", "c"], ["d", "e", "f"]], upload=upload)
    token, _ = ApiToken.issue(admin_user, name="laptop")
    return {"dataset": dataset, "text": text, "system": system, "upload": upload, "output": output, "token": token}


@pytest.mark.parametrize("model", ["dataset", "text", "system", "output", "upload", "apitoken"])
def test_every_model_has_a_changelist_and_a_change_page(admin_client, records, model):
    changelist = admin_client.get(reverse(f"admin:scoring_{model}_changelist"))
    record = records["token" if model == "apitoken" else model]
    change = admin_client.get(reverse(f"admin:scoring_{model}_change", args=[record.pk]))

    assert changelist.status_code == 200
    assert change.status_code == 200
    assert changelist.context["cl"].result_count == 1


def test_list_columns_show_counts(admin_client, records):
    datasets = admin_client.get(reverse("admin:scoring_dataset_changelist")).content.decode()
    outputs = admin_client.get(reverse("admin:scoring_output_changelist")).content.decode()

    assert '<td class="field-text_count">1</td>' in datasets
    assert '<td class="field-triple_count">2</td>' in outputs


def test_search_finds_texts_by_content(admin_client, records):
    Text.objects.create(dataset=records["dataset"], position=1, content="Something else entirely")

    response = admin_client.get(reverse("admin:scoring_text_changelist"), {"q": "alert"})

    assert [text.pk for text in response.context["cl"].result_list] == [records["text"].pk]
    assert "<script>alert(1)</script>" not in response.content.decode()


def test_uploads_are_read_only(admin_client, records):
    upload = records["upload"]

    assert admin_client.get(reverse("admin:scoring_upload_add")).status_code == 403
    response = admin_client.post(
        reverse("admin:scoring_upload_change", args=[upload.pk]), {"file_name": "renamed.jsonl"}
    )
    assert response.status_code == 403
    assert admin_client.get(reverse("admin:scoring_upload_delete", args=[upload.pk])).status_code == 403
    upload.refresh_from_db()
    assert upload.file_name == "gpt.jsonl"


def test_api_tokens_are_issued_by_the_command_and_revoked_here(admin_client, records):
    token = records["token"]

    assert admin_client.get(reverse("admin:scoring_apitoken_add")).status_code == 403
    change_page = admin_client.get(reverse("admin:scoring_apitoken_change", args=[token.pk])).content.decode()
    assert token.key_sha256 not in change_page
    admin_client.post(reverse("admin:scoring_apitoken_delete", args=[token.pk]), {"post": "yes"})
    assert not ApiToken.objects.exists()


def test_non_staff_users_cannot_open_the_admin(client, annotator_user, records):
    client.force_login(annotator_user)

    response = client.get(reverse("admin:scoring_dataset_changelist"))

    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))
