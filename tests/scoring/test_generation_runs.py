"""Generation runs against the local fake OpenAI-compatible server, through RQ (an in-process worker):
two seeds make two systems of one replicate group whose outputs are what the replies parse to; a
second identical run sends no request; a reply that cannot be parsed is listed with its reason."""

import json

import pytest

from devtools.fake_openai import CHAT, COMPLETIONS, Failure, FakeOpenAIServer
from leaderboard.exports import parquet_bytes, provenance_rows
from leaderboard.metrics import metric_scores
from leaderboard.presenters import generated_systems
from scoring.generation_jobs import enqueue_generation, estimate, generate_in_process, parse_run
from scoring.genres.generation import NO_LIST, GenerationSettings
from scoring.models import GenerationReply, GenerationRun, GenerationTemplate, Output, System
from scoring.models.runs import RunRefused, ScoringRun
from tests.scoring.run_fixtures import ASPIRIN, CURIE, PARIS, work

# postgres_relevant: the parse upserts outputs (ON CONFLICT) and a new template version locks the latest.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_relevant]

REPLIES = {
    CURIE: '[["Marie Curie", "born in", "Warsaw"]]',
    ASPIRIN: "I cannot say.",
    PARIS: 'Here you are:\n```json\n[["Paris", "capital of", "France"], ["Paris", "hosts"]]\n```',
}
PARSED = {CURIE: [["Marie Curie", "born in", "Warsaw"]], ASPIRIN: [], PARIS: [["Paris", "capital of", "France"]]}


def reply_to(prompt):
    """The fake model's reply: fixed per text, so what each output must parse to is known."""
    return next(reply for text, reply in REPLIES.items() if text in prompt)


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer() as running:
        running.reply_with(reply_to)
        yield running


def start(dataset, server, seeds=(1, 54), api="chat", chunk_texts=2, **options):
    run_settings = GenerationSettings(base_url=server.base_url, model="fake/model:7b", api=api, temperature=0.7)
    return GenerationRun.create(dataset, run_settings, seeds, chunk_texts=chunk_texts, **options)


def test_two_seeds_make_two_replicate_systems_whose_outputs_are_the_parsed_replies(dataset, server):
    asked_before = server.count()
    run = start(dataset, server)
    enqueue_generation(run)
    work()
    run.refresh_from_db()

    assert run.status == "done", run.error
    assert server.count() - asked_before == 6
    bodies = [entry.body for entry in server.log[asked_before:]]
    assert sorted(body["seed"] for body in bodies) == [1, 1, 1, 54, 54, 54]
    assert {body["temperature"] for body in bodies} == {0.7} and server.paths()[CHAT] >= 6
    systems = list(run.systems.order_by("seed"))
    assert [(system.name, system.replicate_group, system.seed) for system in systems] == [
        ("fake-model-7b seed 1", "fake-model-7b", "1"),
        ("fake-model-7b seed 54", "fake-model-7b", "54"),
    ]
    for system in systems:
        outputs = {output.text.content: output for output in system.outputs.select_related("text")}
        assert {text: output.triples for text, output in outputs.items()} == PARSED
        assert outputs[PARIS].raw == REPLIES[PARIS]
        assert any("dropped" in warning for warning in outputs[PARIS].parse_warnings)
    provenance = systems[1].provenance
    assert provenance["endpoint_host"] == server.base_url.split("/")[2]
    assert provenance["model"] == "fake/model:7b" and provenance["seed"] == 54
    assert provenance["template"] == {"name": "open-gre", "version": 1}
    assert "test-key" not in json.dumps(provenance) and "api_key" not in json.dumps(provenance)
    unparsed = run.replies.exclude(problem="")
    assert [(reply.text.content, reply.seed, reply.problem) for reply in unparsed] == [
        (ASPIRIN, 1, NO_LIST),
        (ASPIRIN, 54, NO_LIST),
    ]
    state = run.progress_state()
    assert state["requests"] == 6 and state["unparsed"] == 2 and state["parsed"]

    # The same run again, under another name: every reply comes from the cache.
    again = start(dataset, server, group="again")
    asked_before = server.count()
    generate_in_process(again)
    assert again.status == "done" and server.count() == asked_before
    assert again.progress_state()["requests"] == 0 and again.progress_state()["cache_hits"] == 6
    assert GenerationReply.objects.filter(run=again, cached=True).count() == 6
    assert {system.name for system in again.systems.all()} == {"again seed 1", "again seed 54"}


def test_parsing_again_asks_nothing_and_keeps_the_outputs(dataset, server, monkeypatch):
    monkeypatch.setattr("scoring.generation_jobs.LIVE_COUNTS_SECONDS", 0)
    monkeypatch.setenv("GENRES_GENERATION_BATCH_SIZE", "1")  # a request a prompt: the live count moves
    run = start(dataset, server, seeds=[7], api="completions", group="reparsed", chunk_texts=3)
    seen = []
    generate_in_process(run, on_chunk=lambda progress: seen.append(progress.progress_state()["requests"]))
    assert seen == [1, 2, 3, 3]  # live while the one chunk asks, then once it is done
    asked_before = server.count()
    GenerationReply.objects.filter(run=run, text__content=ASPIRIN).update(raw='[["aspirin", "relieves", "headache"]]')

    systems = parse_run(run)

    assert server.count() == asked_before and server.paths()[COMPLETIONS] >= 3
    output = Output.objects.get(system=systems[0], text__content=ASPIRIN)
    assert output.triples == [["aspirin", "relieves", "headache"]]
    assert not run.replies.exclude(problem="").exists()
    assert System.objects.filter(replicate_group="reparsed").count() == 1


def test_a_run_that_scores_when_done_makes_its_scoring_run(dataset, server):
    run = start(dataset, server, seeds=[3], group="scored", score_when_done=True)
    generate_in_process(run)
    run.refresh_from_db()
    assert run.scoring_run is not None
    assert run.scoring_run.status == ScoringRun.Status.DONE
    assert list(run.scoring_run.systems.values_list("name", flat=True)) == ["scored seed 3"]
    # The provenance follows the scores into leaderboard.json, its CSV export and its page.
    rows = metric_scores(dataset, run.scoring_run.fingerprint)["rows"]
    generated = next(row for row in rows if row["system"] == "scored seed 3")
    assert generated["provenance"]["model"] == "fake/model:7b" and generated["provenance"]["seed"] == 3
    header, *exported = list(provenance_rows({"scores": rows}))
    assert [dict(zip(header, row, strict=True))["template"] for row in exported] == ["open-gre"]
    assert parquet_bytes("provenance", {"scores": rows}).startswith(b"PAR1")
    assert generated_systems({"scores": rows})[0]["settings"] == "chat, temperature 0.7, max tokens 512, seed 3"


def test_refusals_and_the_estimate(dataset, server):
    run_settings = GenerationSettings(base_url=server.base_url, model="m")
    with pytest.raises(RunRefused, match="seeds"):
        GenerationRun.create(dataset, run_settings, [])
    with pytest.raises(RunRefused, match="URL"):
        GenerationRun.create(dataset, GenerationSettings(base_url="ftp://x", model="m"), [1])
    with pytest.raises(RunRefused, match="credentials"):  # the URL is stored and shown; a key never is
        GenerationRun.create(dataset, GenerationSettings(base_url="https://h/v1?api-key=secret", model="m"), [1])
    System.objects.create(name="m seed 1")
    with pytest.raises(RunRefused, match="exist already"):
        GenerationRun.create(dataset, run_settings, [1])
    System.objects.create(name="uploaded m", replicate_group="m", seed="2")
    with pytest.raises(RunRefused, match="uploaded m exist already"):  # its group's seed 2 is taken
        GenerationRun.create(dataset, run_settings, [2])
    with pytest.raises(ValueError, match=r"\$TEXT\$"):
        GenerationTemplate.save_version("mine", "no placeholder")
    first = GenerationTemplate.save_version("mine", "Triples of $TEXT$")
    assert GenerationTemplate.save_version("mine", "Triples of $TEXT$ ") == first
    assert GenerationTemplate.save_version("mine", "All triples of $TEXT$").version == 2

    counted = estimate(dataset, run_settings, first.text, [1, 2])
    assert (counted["prompts"], counted["cached"], counted["to_send"], counted["requests_to_send"]) == (6, 0, 6, 6)
    assert counted["completion_tokens_at_most"] == 6 * 512


def test_a_request_that_fails_for_good_is_listed_and_only_it_is_asked_again(dataset, server):
    run_settings = GenerationSettings(base_url=server.base_url, model="flaky")
    server.script(Failure(400))  # not worth retrying: the request fails for good at once
    run = GenerationRun.create(dataset, run_settings, [5], chunk_texts=3)
    generate_in_process(run)
    [failed] = run.replies.exclude(error="")
    assert failed.problem.startswith("the request failed: HTTP 400") and failed.raw == ""
    assert Output.objects.get(system__name="flaky seed 5", text=failed.text).triples == []
    assert run.systems.get().outputs.count() == 3  # nothing else lost

    asked_before = server.count()
    generate_in_process(GenerationRun.create(dataset, run_settings, [5], group="flaky again"))
    assert server.count() - asked_before == 1
