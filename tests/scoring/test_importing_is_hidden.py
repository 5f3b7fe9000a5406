"""A dataset or a new system whose import is still writing batches is hidden everywhere until it
is complete: pages, forms, leaderboards and the token API (scoring.import_batches)."""

import json

import pytest
from django.urls import reverse

from annotation.forms import CampaignCreateForm
from scoring import import_batches
from scoring.forms import OutputsUploadForm
from scoring.imports import ImportRefused, import_dataset, import_outputs
from scoring.models import ApiToken, Dataset, Output, System, Text
from tests.scoring.import_fixtures import as_file, make_people_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

TEXTS = [f"Sentence {number}: the river runs past the mill." for number in range(7)]
DATASET_FILE = json.dumps({text: [["river", "runs past", "mill"]] for text in TEXTS}).encode()


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    monkeypatch.setattr(import_batches, "BATCH_ROWS", 2)
    monkeypatch.setattr(import_batches, "PAUSE_SECONDS", 0)


@pytest.fixture
def admin_key(admin_user):
    return ApiToken.issue(admin_user)[1]


def seen_mid_import(run_import, look):
    """What ``look()`` returns at each progress report of the import's storing, batches committed."""
    seen = []

    def on_progress(stage, done, total):
        if stage == "storing" and done < total:
            seen.append(look())

    run_import(on_progress)
    assert seen, "the import reported no batch before its last"
    return seen


def api_dataset_names(client, key):
    reply = client.get("/api/datasets/", HTTP_AUTHORIZATION=f"Token {key}")
    assert reply.status_code == 200
    return {dataset["name"]: dataset for dataset in reply.json()["datasets"]}


def test_a_dataset_mid_import_is_hidden_from_pages_forms_and_the_api(admin_client, client, admin_key):
    def run_import(on_progress):
        import_dataset(as_file(DATASET_FILE), file_name="river.json", name="River", on_progress=on_progress)

    def look():
        staged = Dataset.with_importing.get(name="River")
        campaign_form = CampaignCreateForm()
        return {
            "rows written": Text.objects.filter(dataset=staged).count(),
            "marked": staged.importing_at is not None,
            "in Dataset.objects": Dataset.objects.filter(name="River").exists(),
            "on the home page": "River" in admin_client.get(reverse("scoring:home")).content.decode(),
            "dataset page": admin_client.get(reverse("scoring:dataset", args=["River"])).status_code,
            "text page": admin_client.get(
                reverse("scoring:text", args=["River", Text.objects.filter(dataset=staged).first().pk])
            ).status_code,
            "run form": admin_client.get(reverse("scoring:run_new", args=["River"])).status_code,
            "leaderboard index": "River" in admin_client.get(reverse("leaderboard:index")).content.decode(),
            "leaderboard page": admin_client.get(reverse("leaderboard:dataset", args=["River"])).status_code,
            "leaderboard.json": client.get(
                reverse("leaderboard:api_dataset", args=["River"]), HTTP_AUTHORIZATION=f"Token {admin_key}"
            ).status_code,
            "in the campaign form": campaign_form.fields["dataset"].queryset.filter(name="River").exists(),
            "in the outputs form": OutputsUploadForm().fields["dataset"].queryset.filter(name="River").exists(),
            "in the API list": "River" in api_dataset_names(client, admin_key),
        }

    for seen in seen_mid_import(run_import, look):
        assert seen["rows written"] > 0 and seen["marked"]
        assert seen == {
            **seen,
            "in Dataset.objects": False,
            "on the home page": False,
            "dataset page": 404,
            "text page": 404,
            "run form": 404,
            "leaderboard index": False,
            "leaderboard page": 404,
            "leaderboard.json": 404,
            "in the campaign form": False,
            "in the outputs form": False,
            "in the API list": False,
        }
    assert Dataset.objects.get(name="River").importing_at is None
    assert api_dataset_names(client, admin_key)["River"]["texts"] == len(TEXTS)
    assert admin_client.get(reverse("scoring:dataset", args=["River"])).status_code == 200


def test_a_new_system_mid_import_is_hidden_from_its_dataset_forms_and_counts(admin_client, client, admin_key):
    people = make_people_dataset()
    text = people.texts.first()
    outputs = json.dumps({text.content: [["a", "b", "c"]] for text in people.texts.all()}).encode()

    def run_import(on_progress):
        import_outputs(
            as_file(outputs), file_name="o.json", dataset=people, system_name="Hidden", on_progress=on_progress
        )

    def look():
        staged = System.with_importing.get(name="Hidden")
        return {
            "rows written": Output.objects.filter(system=staged).count(),
            "in System.objects": System.objects.filter(name="Hidden").exists(),
            "on the dataset page": "Hidden"
            in admin_client.get(reverse("scoring:dataset", args=["People"])).content.decode(),
            "on the text page": "Hidden"
            in admin_client.get(reverse("scoring:text", args=["People", text.pk])).content.decode(),
            "systems counted by the API": api_dataset_names(client, admin_key)["People"]["systems"],
            "in the campaign form": CampaignCreateForm().fields["systems"].queryset.filter(name="Hidden").exists(),
        }

    for seen in seen_mid_import(run_import, look):
        assert seen == {
            "rows written": seen["rows written"],
            "in System.objects": False,
            "on the dataset page": False,
            "on the text page": False,
            "systems counted by the API": 0,
            "in the campaign form": False,
        }
        assert seen["rows written"] > 0
    assert System.objects.get(name="Hidden").outputs.count() == 3
    assert api_dataset_names(client, admin_key)["People"]["systems"] == 1


def test_outputs_for_a_dataset_mid_import_are_refused_naming_it(admin_key):
    refusals = []

    def on_progress(stage, done, total):
        if stage == "storing" and done < total:
            with pytest.raises(ImportRefused) as refused:
                import_outputs(as_file(b"{}"), file_name="o.json", dataset="River", system_name="Early")
            refusals.append(str(refused.value))

    import_dataset(as_file(DATASET_FILE), file_name="river.json", name="River", on_progress=on_progress)
    assert refusals and all('There is no dataset "River"' in refusal for refusal in refusals)


def test_a_second_import_of_a_name_being_imported_is_refused(admin_key):
    refusals = []

    def on_progress(stage, done, total):
        if stage == "storing" and done < total and not refusals:
            with pytest.raises(ImportRefused) as refused:
                import_dataset(as_file(DATASET_FILE), file_name="again.json", name="River")
            refusals.append(str(refused.value))

    import_dataset(as_file(DATASET_FILE), file_name="river.json", name="River", on_progress=on_progress)
    assert refusals == [
        'Dataset "River" is being imported right now; try again once that import has finished; nothing was imported.'
    ]
    assert Text.objects.filter(dataset__name="River").count() == len(TEXTS)
