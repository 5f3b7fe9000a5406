import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from scoring.models import ApiToken, Dataset, Output, System, Text, Upload

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

DATASETS_URL = "/api/datasets/"


@pytest.fixture
def admin_key(admin_user):
    return ApiToken.issue(admin_user)[1]


def authorized(key):
    return {"HTTP_AUTHORIZATION": f"Token {key}"}


def test_urls(db):
    assert reverse("scoring:api_datasets") == DATASETS_URL
    assert reverse("scoring:api_dataset_outputs", args=["CDR"]) == "/api/datasets/CDR/outputs/"


@pytest.mark.parametrize("header", [None, "", "Bearer abc", "Token ", "Token not-a-key"])
def test_requests_without_a_valid_token_are_401(client, admin_key, header):
    extra = {} if header is None else {"HTTP_AUTHORIZATION": header}

    response = client.get(DATASETS_URL, **extra)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
    assert "error" in response.json()


def test_session_sign_in_does_not_authenticate_the_api(admin_client):
    assert admin_client.get(DATASETS_URL).status_code == 401


def test_tokens_of_inactive_users_are_401(client, admin_user, admin_key):
    admin_user.is_active = False
    admin_user.save()

    assert client.get(DATASETS_URL, **authorized(admin_key)).status_code == 401


def test_non_staff_users_are_403(client, annotator_user):
    _, key = ApiToken.issue(annotator_user)

    response = client.post(DATASETS_URL, {"name": "X"}, **authorized(key))

    assert response.status_code == 403
    assert response.json() == {"error": "Only staff users may use the import API."}
    assert not Dataset.objects.exists()


def test_keys_are_stored_hashed_and_use_is_recorded(client, admin_user, admin_key):
    token = ApiToken.objects.get()
    assert admin_key not in (token.key_sha256, token.prefix) and admin_key.startswith(token.prefix)
    assert token.last_used_at is None

    client.get(DATASETS_URL, **authorized(admin_key))

    token.refresh_from_db()
    assert token.last_used_at is not None


def test_lists_datasets_with_counts(client, admin_key):
    dataset = Dataset.objects.create(name="CDR", domain=Dataset.Domain.BIOMEDICAL, description="<b>x</b>")
    Text.objects.create(dataset=dataset, position=0, content="One.", gold=[["a", "b", "c"], ["d", "e", "f"]])

    response = client.get(DATASETS_URL, **authorized(admin_key))

    assert response.status_code == 200
    [listed] = response.json()["datasets"]
    assert {
        key: listed[key] for key in ("name", "level", "domain", "description", "texts", "gold_triples", "systems")
    } == {
        "name": "CDR",
        "level": "sentence",
        "domain": "biomedical",
        "description": "<b>x</b>",
        "texts": 1,
        "gold_triples": 2,
        "systems": 0,
    }


def test_other_methods_are_405_in_json(client, admin_key):
    response = client.delete(DATASETS_URL, **authorized(admin_key))

    assert response.status_code == 405
    assert response["Allow"] == "GET, POST"
    assert "DELETE" in response.json()["error"]


def test_outputs_for_an_unknown_dataset_are_404(client, admin_key):
    response = client.post("/api/datasets/Missing/outputs/", {"system": "GPT-4"}, **authorized(admin_key))

    assert response.status_code == 404
    assert response.json() == {"error": "No dataset named 'Missing'."}


def test_missing_fields_are_400_naming_them(client, admin_key):
    response = client.post(DATASETS_URL, {"level": "chapter"}, **authorized(admin_key))

    assert response.status_code == 400
    message = response.json()["error"]
    assert "name: This field is required." in message
    assert "level: Select a valid choice." in message
    assert "file: This field is required." in message


def test_create_api_token_prints_a_key_that_authenticates(client, admin_user, capsys):
    call_command("create_api_token", "admin", "--name", "CI runner")

    key = capsys.readouterr().out.strip()
    token = ApiToken.objects.get()
    assert token.name == "CI runner" and token.user == admin_user
    assert client.get(DATASETS_URL, **authorized(key)).status_code == 200


def test_create_api_token_refuses_unknown_and_non_staff_users(annotator_user):
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        call_command("create_api_token", "nobody")
    with pytest.raises(CommandError, match="not an active staff user"):
        call_command("create_api_token", "annotator")
    assert not ApiToken.objects.exists()


def jsonl(*records):
    return "\n".join(json.dumps(record) for record in records).encode()


DATASET_FILE = jsonl(
    {"id": "s1", "text": "Marie Curie was born in Warsaw.", "triples": [["Marie Curie", "born in", "Warsaw"]]},
    {"id": "s2", "text": "Aspirin relieves headache.", "triples": [["Aspirin", "treats", "headache"], ["a", "b", "c"]]},
)
OUTPUTS_FILE = jsonl(
    {"id": "s1", "triples": [["Marie Curie", "birthplace", "Warsaw"]]},
    {"id": "s2", "raw": 'Triples: [["Aspirin", "relieves", "headache"], ["pain"]]'},
)


def post_dataset(client, key, content=DATASET_FILE, **fields):
    data = {"name": "Demo", "level": "document", "domain": "biomedical", "description": "API upload", **fields}
    data["file"] = SimpleUploadedFile("demo.jsonl", content)
    return client.post(DATASETS_URL, data, **authorized(key))


def post_outputs(client, key, content=OUTPUTS_FILE, dataset="Demo", **fields):
    data = {"system": "GPT-4", "family": "GPT", **fields, "file": SimpleUploadedFile("gpt.jsonl", content)}
    return client.post(f"/api/datasets/{dataset}/outputs/", data, **authorized(key))


def test_importing_a_dataset_is_201_with_counts(client, admin_user, admin_key):
    response = post_dataset(client, admin_key)

    assert response.status_code == 201
    upload = Upload.objects.get()
    assert response.json() == {
        "texts": 2,
        "triples": 3,
        "warnings": 0,
        "unchanged": False,
        "upload": upload.pk,
        "status_url": f"/api/uploads/{upload.pk}/",
    }
    assert upload.uploaded_by == admin_user
    dataset = Dataset.objects.get(name="Demo")
    assert (dataset.level, dataset.domain, dataset.description) == ("document", "biomedical", "API upload")


def test_the_same_dataset_file_again_is_200_unchanged(client, admin_key):
    post_dataset(client, admin_key)

    response = post_dataset(client, admin_key)

    assert response.status_code == 200
    assert response.json()["unchanged"] is True
    assert Text.objects.count() == 2


def test_importing_outputs_is_201_with_counts(client, admin_key):
    post_dataset(client, admin_key)

    response = post_outputs(client, admin_key)

    assert response.status_code == 201
    body = response.json()
    assert (body["texts"], body["triples"], body["warnings"], body["unchanged"]) == (2, 2, 1, False)
    assert Output.objects.filter(system__name="GPT-4", system__family="GPT").count() == 2
    assert post_outputs(client, admin_key).status_code == 200


def test_a_bad_record_is_400_naming_it_and_changes_nothing(client, admin_key):
    post_dataset(client, admin_key)
    bad = jsonl({"id": "s1", "triples": [["a", "b", "c"]]}, {"id": "s2", "triples": [["a", "b"]]})

    response = post_outputs(client, admin_key, bad)

    assert response.status_code == 400
    message = response.json()["error"]
    assert message.lower().startswith("line 2, triple 1: expected 3 items")
    assert not System.objects.filter(name="GPT-4").exists()


def test_lenient_keeps_the_good_triples(client, admin_key):
    post_dataset(client, admin_key)
    messy = jsonl({"id": "s1", "triples": [["a", "b", "c"], ["a", "b"]]})

    response = post_outputs(client, admin_key, messy, lenient="true")

    assert response.status_code == 201
    assert response.json()["warnings"] == 1


@pytest.mark.parametrize("strict", ["0", "false", "no", "off"])
def test_lenient_can_be_switched_off_in_words(client, admin_key, strict):
    post_dataset(client, admin_key)
    messy = jsonl({"id": "s1", "triples": [["a", "b", "c"], ["a", "b"]]})

    assert post_outputs(client, admin_key, messy, lenient=strict).status_code == 400


def test_an_existing_dataset_name_with_other_content_is_400(client, admin_key):
    post_dataset(client, admin_key)

    response = post_dataset(client, admin_key, jsonl({"id": "x", "text": "Other.", "triples": []}))

    assert response.status_code == 400
    assert "already exists" in response.json()["error"]


def test_an_oversized_file_is_413_and_imports_nothing(client, admin_key, settings):
    settings.GENRES_MAX_UPLOAD_BYTES = 1024

    response = post_dataset(client, admin_key, b"x" * 4000)

    assert response.status_code == 413
    assert "larger than the upload limit" in response.json()["error"]
    assert not Dataset.objects.exists()
