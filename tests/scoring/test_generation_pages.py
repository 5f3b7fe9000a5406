"""A generation run from the staff page, the API and the command line, against the local fake endpoint."""

import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from devtools.fake_openai import FakeOpenAIServer
from scoring.models import ApiToken, GenerationRun, System
from tests.scoring.run_fixtures import ASPIRIN, work

pytestmark = [pytest.mark.django_db(transaction=True)]


def reply_to(prompt):
    return "nothing here" if ASPIRIN in prompt else '[["Marie Curie", "born in", "Warsaw"]]'


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer() as running:
        running.reply_with(reply_to)
        yield running


def fields(server, **more):
    return {"base_url": server.base_url, "model": "gpt-4o-mini", "api": "auto", "temperature": "0", "max_tokens": "64",
            "seeds": "54,64", "chunk_texts": "2", **more}  # fmt: skip


def test_staff_estimate_start_and_watch_a_run_then_see_its_systems_and_provenance(admin_client, dataset, server):
    page = reverse("scoring:generation_new", args=[dataset.name])
    assert "Generate outputs" in admin_client.get(dataset.get_absolute_url()).content.decode()
    form = admin_client.get(page)
    assert form.status_code == 200 and "open-gre v1" in form.content.decode()  # the stored templates, shown
    estimated = admin_client.post(page, {**fields(server), "action": "estimate"})
    assert estimated.status_code == 200 and estimated.context["estimate"]["to_send"] == 6
    asked_before = server.count()

    started = admin_client.post(page, {**fields(server), "action": "start"})

    run = GenerationRun.objects.get()
    assert started.status_code == 302 and started.url == run.get_absolute_url()
    assert admin_client.get(reverse("scoring:generation_progress", args=[run.pk])).json()["chunks_total"] == 2
    work()
    assert server.count() - asked_before == 6
    shown = admin_client.get(run.get_absolute_url()).content.decode()
    assert "gpt-4o-mini seed 54" in shown and "gpt-4o-mini seed 64" in shown
    assert server.base_url.split("/")[2] in shown and "open-gre v1" in shown
    assert "Replies without triples (2)" in shown and "no list of triples in the reply" in shown
    listed = admin_client.get(dataset.get_absolute_url()).content.decode()  # each system links to what made it
    assert listed.count(f'href="{run.get_absolute_url()}"') == 2 and "gpt-4o-mini at 127.0.0.1" in listed
    assert admin_client.post(reverse("scoring:generation_reparse", args=[run.pk])).status_code == 302
    assert server.count() - asked_before == 6


def test_refused_to_who_is_not_staff_and_invalid_fields_named(admin_client, annotator_user, dataset, server):
    annotator = Client()
    annotator.force_login(annotator_user)
    assert annotator.get(reverse("scoring:generation_new", args=[dataset.name])).status_code == 403
    page = reverse("scoring:generation_new", args=[dataset.name])
    refused = admin_client.post(page, {**fields(server, seeds="one", new_template="no placeholder"), "action": "start"})
    assert refused.status_code == 400 and "seeds" in refused.context["form"].errors
    assert not GenerationRun.objects.exists()


def test_the_api_starts_a_run_and_reads_its_status(client, admin_user, dataset, server):
    _, key = ApiToken.issue(admin_user)
    token = {"HTTP_AUTHORIZATION": f"Token {key}"}
    template = "List the relations of $TEXT$ as JSON triples."
    started = client.post(
        reverse("scoring:api_generations", args=[dataset.name]),
        fields(server, new_template=template, new_template_name="terse", group="api run"),
        **token,
    )
    assert started.status_code == 202, started.content
    body = started.json()
    assert body["provenance"]["template"] == {"name": "terse", "version": 1}
    assert body["provenance"]["endpoint_host"] == server.base_url.split("/")[2]
    work()
    status = client.get(body["status_url"], **token).json()
    assert status["status"] == "done" and [system["name"] for system in status["systems"]] == [
        "api run seed 54",
        "api run seed 64",
    ]
    invalid = client.post(reverse("scoring:api_generations", args=[dataset.name]), {"model": "m"}, **token)
    assert invalid.status_code == 400 and "base_url" in invalid.json()["fields"]


def test_the_command_estimates_then_generates_here_with_a_progress_bar(dataset, server, capsys):
    options = ["--dataset", dataset.name, "--model", "llama3:8b", "--base-url", server.base_url, "--seeds", "1,2"]
    call_command("generate_outputs", *options, "--estimate", "--json")
    assert json.loads(capsys.readouterr().out)["prompts"] == 6

    call_command("generate_outputs", *options, "--sync", "--chunk-texts", "1")

    captured = capsys.readouterr()
    assert f"generation {GenerationRun.objects.get().pk}: 100%" in captured.err and "3/3" in captured.err
    assert "llama3-8b seed 1: 3 outputs" in captured.out and "2 replies without triples" in captured.out
    assert System.objects.get(name="llama3-8b seed 2").provenance["model"] == "llama3:8b"
    call_command("generate_outputs", "--reparse", str(GenerationRun.objects.get().pk))
    assert "llama3-8b seed 2: 3 outputs" in capsys.readouterr().out
