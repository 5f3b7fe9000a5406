"""The system page: one system on one dataset, with what made it (a generation run, or an uploaded
file), its outputs, its scores in every setting it was scored in, and its replicate group. Read by
staff and researchers (the "view output" permission), never by an annotator judging it blind;
linked from the dataset page and the leaderboard's rows for those who may read it."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from annotation.models import Campaign, CampaignAnnotator
from scoring.genres.scorer import ScoreSettings
from scoring.imports import import_dataset, import_outputs
from scoring.jobs import run_in_process
from scoring.models import Dataset, GenerationRun, Output, System
from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import ECHO_OUTPUTS, RECORDS, generated_replicates, jsonl

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def dataset(admin_user):
    """The tiny dataset: Echo uploaded by the admin, and a generation run's two replicates (seeds 1
    and 54), of which seed 1 has outputs on two of the three texts."""
    import_dataset(jsonl(RECORDS), file_name="tiny.jsonl", name="tiny")
    import_outputs(jsonl(ECHO_OUTPUTS), file_name="echo-v2.jsonl", dataset="tiny", system_name="Echo", user=admin_user)
    dataset = Dataset.objects.get(name="tiny")
    generated_replicates(dataset, admin_user)
    return dataset


def page(client, dataset, system_name):
    return client.get(reverse("scoring:system", args=[dataset.name, system_name]))


def researcher(user):
    user.user_permissions.add(Permission.objects.get(codename="view_output", content_type__app_label="scoring"))
    return user


def test_anonymous_visitors_are_sent_to_sign_in(client, dataset):
    response = page(client, dataset, "Echo")
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_annotators_never_see_it(client, dataset, annotator_user):
    client.force_login(annotator_user)
    assert page(client, dataset, "Echo").status_code == 403  # no "view output" permission
    # A researcher annotating an open campaign of the dataset's systems judges them blind.
    client.force_login(researcher(annotator_user))
    campaign = Campaign.objects.create(name="blind", dataset=dataset)
    campaign.systems.add(System.objects.get(name="Echo"))
    CampaignAnnotator.objects.create(campaign=campaign, annotator=annotator_user)
    response = page(client, dataset, "llama3-8b seed 1")
    assert response.status_code == 403 and "llama3" not in response.content.decode()


def test_a_researcher_reads_it(client, dataset, annotator_user):
    client.force_login(researcher(annotator_user))
    content = page(client, dataset, "Echo").content.decode()
    assert "<h1>Echo</h1>" in content
    assert "New scoring run" not in content  # staff's button


def test_unknown_systems_and_systems_without_outputs_on_the_dataset_are_404(admin_client, dataset):
    assert page(admin_client, dataset, "Nobody").status_code == 404
    System.objects.create(name="Elsewhere")
    assert page(admin_client, dataset, "Elsewhere").status_code == 404
    assert admin_client.get(reverse("scoring:system", args=["Missing", "Echo"])).status_code == 404


def test_an_uploaded_system_shows_its_upload_outputs_and_scores_per_setting(admin_client, dataset):
    systems = System.objects.filter(name__in=["Echo", "llama3-8b seed 1"])
    older = run_in_process(ScoringRun.create(dataset, systems, ["us"], ScoreSettings()))
    newer = run_in_process(ScoringRun.create(dataset, systems, ["us"], ScoreSettings(threshold=0.9)))
    content = page(admin_client, dataset, "Echo").content.decode()

    assert "Uploaded from a file" in content and "echo-v2.jsonl" in content
    facts = content[content.index('id="provenance"') : content.index('id="replicates"')]
    assert "<dt>By</dt><dd>admin</dd>" in facts and "Generation run" not in facts
    assert "Outputs <strong>3</strong> of 3 texts" in content and "Triples <strong>3</strong>" in content
    assert "Empty outputs <strong>1</strong>" in content and "A single run: no replicate group." in content
    table = content[content.index('id="scores"') :]
    rows = table.split("<tbody>")[1].split("</tbody>")[0].split("</tr>")[:-1]
    # Newest setting first; us = (1 + 0 + 0) / 3 in both (one triple; none; two identical ones).
    assert [f"?settings={run.fingerprint}#scores" in row for row, run in zip(rows, [newer, older], strict=True)] == [
        True,
        True,
    ]
    # Texts 3; triples per text (1 + 0 + 2) / 3; tokens per triple 4.5; us ×100 and the empty share, each 1/3.
    assert [re.findall(r'<td class="num">([^<]+)</td>', row) for row in rows] == [
        ["3", "1.0", "4.5", "33.3", "33.3"]
    ] * 2
    assert "New scoring run" in content


def test_a_generated_system_shows_its_provenance_and_replicates(admin_client, dataset):
    run = GenerationRun.objects.get()
    content = page(admin_client, dataset, "llama3-8b seed 1").content.decode()

    facts = content[content.index('id="provenance"') : content.index('id="replicates"')]
    assert f'href="{run.get_absolute_url()}">Run {run.pk}</a>' in facts
    for fact in ("10.1.2.3:8000", "llama3:8b", "<dd>chat</dd>", "<dd>0.7</dd>", "<dd>512</dd>", "<dd>1</dd>"):
        assert fact in facts
    assert 'href="#template">open-gre v1</a>' in facts and "</time> by admin</dd>" in facts
    assert "/v1" not in facts  # the host only, never the path (nor a key)
    assert 'id="template"' in content and "$TEXT$" in content  # the template's text, shown
    assert "Outputs <strong>2</strong> of 3 texts" in content and "Not scored on this dataset yet." in content
    group = content[content.index('id="replicates"') : content.index('id="template"')]
    assert "<strong>llama3-8b</strong>: 2 runs on this dataset." in group
    other = reverse("scoring:system", args=[dataset.name, "llama3-8b seed 54"])
    assert f'<dt>seed 54</dt><dd><a href="{other}">llama3-8b seed 54</a>' in group
    assert "llama3-8b seed 1 <span" in group  # itself, not a link


def test_a_hostile_system_name_is_escaped_and_reached(admin_client, dataset):
    hostile = System.objects.create(name=HOSTILE)
    Output.objects.create(system=hostile, text=dataset.texts.first(), triples=[])
    response = page(admin_client, dataset, HOSTILE)
    content = response.content.decode()
    assert response.status_code == 200
    assert HOSTILE not in content and "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    # The dataset page links to it, the name quoted in the address and escaped in the text.
    dataset_page = admin_client.get(dataset.get_absolute_url()).content.decode()
    assert HOSTILE not in dataset_page
    assert f'href="{reverse("scoring:system", args=[dataset.name, HOSTILE])}"' in dataset_page
    assert reverse("scoring:system", args=[dataset.name, HOSTILE]).endswith(
        "/systems/%3Cscript%3Ealert(1)%3C/script%3E/"
    )
