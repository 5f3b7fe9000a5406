import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from scoring.models import Dataset, Output, System, Upload

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

UPLOAD_URL = "/upload/"
HOSTILE = "<script>alert(1)</script>"
# Browsers send only the base name of a file, so a hostile file name has no slash.
HOSTILE_FILE_NAME = "<img src=x onerror=alert(1)>.jsonl"


def jsonl(*records):
    return "\n".join(json.dumps(record) for record in records).encode()


DATASET_FILE = jsonl(
    {"id": "s1", "text": "Marie Curie was born in Warsaw.", "triples": [["Marie Curie", "born in", "Warsaw"]]},
    {"id": "s2", "text": "Aspirin relieves headache.", "triples": [["Aspirin", "treats", "headache"]]},
)
OUTPUTS_FILE = jsonl(
    {"id": "s1", "triples": [["Marie Curie", "birthplace", "Warsaw"], ["Curie", "is", "physicist"]]},
    {"id": "s2", "raw": 'Triples: [["Aspirin", "relieves", "headache"], ["pain"]]'},
)


def dataset_post(file_content=DATASET_FILE, **fields):
    data = {
        "kind": "dataset",
        "dataset-name": "Demo",
        "dataset-level": "sentence",
        "dataset-domain": "general",
        "dataset-description": "",
        "dataset-format": "auto",
    }
    data.update({f"dataset-{key}": value for key, value in fields.items()})
    data["dataset-file"] = SimpleUploadedFile("demo.jsonl", file_content)
    return data


def outputs_post(file_content=OUTPUTS_FILE, file_name="gpt.jsonl", **fields):
    data = {
        "kind": "outputs",
        "outputs-dataset": "Demo",
        "outputs-system": "GPT-4",
        "outputs-family": "GPT",
        "outputs-format": "auto",
    }
    data.update({f"outputs-{key}": value for key, value in fields.items()})
    data["outputs-file"] = SimpleUploadedFile(file_name, file_content)
    return data


def page_messages(response):
    return [str(message) for message in response.context["messages"]]


@pytest.fixture
def demo_dataset(admin_client):
    admin_client.post(UPLOAD_URL, dataset_post(), follow=True)  # follows to consume its message
    return Dataset.objects.get(name="Demo")


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(UPLOAD_URL)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_signed_in_users_who_are_not_staff_get_403(client, annotator_user):
    client.force_login(annotator_user)

    assert client.get(UPLOAD_URL).status_code == 403
    assert client.post(UPLOAD_URL, dataset_post()).status_code == 403
    assert not Dataset.objects.exists()


def test_page_shows_both_forms_and_the_known_system_names(admin_client, demo_dataset):
    System.objects.create(name="LLaMA-2")

    page = admin_client.get(UPLOAD_URL).content.decode()

    assert "New dataset" in page and "System outputs" in page
    assert '<option value="Demo">Demo</option>' in page
    assert '<datalist id="system-names"><option value="LLaMA-2"></datalist>' in page
    assert 'name="outputs-lenient"' in page


def test_outputs_form_waits_for_a_dataset(admin_client):
    page = admin_client.get(UPLOAD_URL).content.decode()

    assert "Import a dataset first" in page
    assert 'name="outputs-file"' not in page


def test_importing_a_dataset_reports_counts(admin_client):
    response = admin_client.post(UPLOAD_URL, dataset_post(description="Two sentences."), follow=True)

    [message] = page_messages(response)
    upload = Upload.objects.get()
    assert message == upload.message
    assert "2 texts" in message and "2 gold triples" in message
    assert (upload.kind, upload.outcome, upload.uploaded_by.username) == ("dataset", "imported", "admin")
    dataset = Dataset.objects.get(name="Demo")
    assert dataset.description == "Two sentences." and dataset.texts.count() == 2


def test_importing_outputs_reports_counts_and_warnings_and_shows_the_system(admin_client, demo_dataset):
    response = admin_client.post(UPLOAD_URL, outputs_post(), follow=True)

    [message] = page_messages(response)
    upload = Upload.objects.get(kind=Upload.Kind.OUTPUTS)
    assert (upload.texts, upload.triples, upload.warnings) == (2, 3, 1)
    assert message.startswith(upload.message)
    assert "3 triples" in message
    assert "\n  - line 2: " in message  # the first warnings follow, each naming its record
    assert Output.objects.filter(system__name="GPT-4").count() == 2
    dataset_page = admin_client.get(demo_dataset.get_absolute_url())
    assert "GPT-4" in [system.name for system in dataset_page.context["systems"]]


def test_same_file_again_says_unchanged(admin_client, demo_dataset):
    admin_client.post(UPLOAD_URL, outputs_post(), follow=True)

    response = admin_client.post(UPLOAD_URL, outputs_post(), follow=True)

    [message] = page_messages(response)
    unchanged = Upload.objects.get(outcome=Upload.Outcome.UNCHANGED)
    assert message.startswith(f"Unchanged: {unchanged.message}")
    assert message.endswith("The file holds 2 texts, 3 triples and 1 parse warning.")
    assert Output.objects.filter(system__name="GPT-4").count() == 2


def test_a_bad_record_changes_nothing_names_the_record_and_keeps_the_form(admin_client, demo_dataset):
    bad_file = jsonl(
        {"id": "s1", "triples": [["Marie Curie", "born in", "Warsaw"]]}, {"id": "s2", "triples": [["x", "", "y"]]}
    )

    response = admin_client.post(UPLOAD_URL, outputs_post(bad_file, system="New system", family="Fam"))

    assert response.status_code == 400
    [message] = page_messages(response)
    failed = Upload.objects.get(outcome=Upload.Outcome.FAILED, system_name="New system")
    assert message == failed.message
    assert message.lower().startswith("line 2, triple 1: relation is empty")
    assert not System.objects.filter(name="New system").exists()
    assert not Output.objects.exclude(system__is_ground_truth=True).exists()
    page = response.content.decode()
    assert 'value="New system"' in page and 'value="Fam"' in page


def test_lenient_drops_bad_triples_with_warnings(admin_client, demo_dataset):
    bad_file = jsonl({"id": "s1", "triples": [["Marie Curie", "born in", "Warsaw"], ["x", "", "y"]]})

    admin_client.post(UPLOAD_URL, outputs_post(bad_file, lenient="on"))

    output = Output.objects.get(system__name="GPT-4")
    assert output.triples == [["Marie Curie", "born in", "Warsaw"]]
    assert output.parse_warnings == ["triple 2 dropped: relation is empty"]


def test_invalid_fields_keep_the_form_with_errors(admin_client):
    response = admin_client.post(UPLOAD_URL, dataset_post(name="no/slashes", level="chapter"))

    assert response.status_code == 400
    form = response.context["dataset_form"]
    assert set(form.errors) == {"name", "level"}
    assert 'value="no/slashes"' in response.content.decode()
    assert not Dataset.objects.exists()


def test_an_unknown_form_kind_is_400(admin_client):
    assert admin_client.post(UPLOAD_URL, {"kind": "other"}).status_code == 400


def test_oversized_file_is_refused_with_the_limit_and_nothing_imported(admin_client, settings):
    settings.GENRES_MAX_UPLOAD_BYTES = 1024

    response = admin_client.post(
        UPLOAD_URL, dataset_post(b'{"id": "s1", "text": "' + b"x" * 4000 + b'", "triples": []}')
    )

    assert response.status_code == 413
    [message] = page_messages(response)
    assert message.startswith("The file is larger than the upload limit of")
    assert "nothing was imported" in message
    assert response.context["dataset_form"]["name"].value() == "Demo"
    assert not Dataset.objects.exists()


def test_oversize_refusal_passes_the_csrf_check(admin_user, settings):
    # Fields before the file (the CSRF token first) still arrive when the file is cut off.
    settings.GENRES_MAX_UPLOAD_BYTES = 1024
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    client.get(UPLOAD_URL)
    data = {"csrfmiddlewaretoken": client.cookies["csrftoken"].value, **dataset_post(b"x" * 4000)}

    assert client.post(UPLOAD_URL, data).status_code == 413


def test_recent_uploads_list_who_what_and_outcome_escaped(admin_client, demo_dataset):
    admin_client.post(UPLOAD_URL, outputs_post(file_name=HOSTILE_FILE_NAME, system="Bad-system"))
    admin_client.post(UPLOAD_URL, outputs_post(jsonl({"id": "nope", "triples": []}), system="Other"))

    response = admin_client.get(UPLOAD_URL)

    uploads = list(response.context["uploads"])
    assert [upload.outcome for upload in uploads] == ["failed", "imported", "imported"]
    page = response.content.decode()
    assert HOSTILE_FILE_NAME not in page
    assert "&lt;img src=x onerror=alert(1)&gt;.jsonl" in page
    assert uploads[1].sha256[:12] in page
    assert "has no text with id &quot;nope&quot;" in page


def test_recent_uploads_are_limited_to_twenty(admin_client, admin_user):
    for index in range(25):
        Upload.objects.create(
            kind="dataset",
            dataset_name=f"D{index}",
            file_name="f.jsonl",
            sha256="0" * 64,
            outcome=Upload.Outcome.FAILED,
            uploaded_by=admin_user,
        )

    response = admin_client.get(UPLOAD_URL)

    assert len(response.context["uploads"]) == 20
    assert response.context["uploads"][0].dataset_name == "D24"
