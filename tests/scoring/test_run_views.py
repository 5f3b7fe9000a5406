"""The run pages: starting a run after an estimate, the run page, its JSON state, cancel and resume."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from devtools.fake_openai import FakeOpenAIServer
from scoring.genres.judges.registry import get_judge
from scoring.genres.scorer import ScoreSettings
from scoring.jobs import run_in_process
from scoring.models.cache import DatabaseRequestCache
from scoring.models.runs import RunChunk, ScoringRun
from tests.scoring.run_fixtures import echo

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def researcher(client, django_user_model):
    """Signed in, may see outputs and runs, is not staff."""
    user = django_user_model.objects.create_user("researcher", password="researcher-pass-123")
    user.user_permissions.add(Permission.objects.get(codename="view_output"))
    client.force_login(user)
    return client


def form_data(**choices):
    """What the run form posts: Echo, us and fs, offline embedder and judge, unless told otherwise."""
    return {
        "systems": [echo().pk],
        "metrics": ["us", "fs"],
        "embedder": "hashing",
        "judge": "heuristic",
        "chunk_texts": 50,
        "action": "start",
        **choices,
    }


def new_run(dataset, metrics=("us", "fs")):
    return ScoringRun.create(dataset, [echo()], metrics, ScoreSettings(), chunk_texts=2)


def test_the_form_shows_an_estimate_before_anything_starts(admin_client, dataset):
    response = admin_client.get(reverse("scoring:run_new", args=[dataset.name]))
    assert response.status_code == 200
    content = response.content.decode()
    assert "No judge requests" in content and "heuristic judge is offline" in content
    assert "Ground truth" in content and "Echo" in content
    assert not ScoringRun.objects.exists()


def test_the_openai_estimate_counts_requests_and_those_already_cached(admin_client, dataset, monkeypatch):
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        form = form_data(metrics=["fs"], judge="openai", action="estimate")
        url = reverse("scoring:run_new", args=[dataset.name])
        # Echo has 3 triples, two of them the same question: 2 distinct requests.
        content = admin_client.post(url, form).content.decode()
        assert "About <strong>2 judge requests</strong>, 0 of them cached" in content
        judge = get_judge("openai", cache=DatabaseRequestCache())
        judge.check_support([("Marie Curie was born in Warsaw.", ["Marie Curie", "born in", "Warsaw"])])
        content = admin_client.post(url, form).content.decode()
        assert "About <strong>2 judge requests</strong>, 1 of them cached" in content
        assert "<strong>1</strong> to send, for 3 triple judgements" in content
        assert server.count() == 1  # estimates send nothing
    assert not ScoringRun.objects.exists()


def test_a_judge_that_cannot_be_set_up_is_a_form_error(admin_client, dataset, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    form = form_data(metrics=["fs"], judge="openai")
    response = admin_client.post(reverse("scoring:run_new", args=[dataset.name]), form)
    assert response.status_code == 400
    assert "OPENAI_API_KEY is not set" in response.content.decode()
    assert not ScoringRun.objects.exists()


def test_starting_a_run_queues_it_and_opens_its_page(admin_client, admin_user, dataset):
    form = form_data(metrics=["us", "prf"], chunk_texts=2)
    response = admin_client.post(reverse("scoring:run_new", args=[dataset.name]), form)
    run = ScoringRun.objects.get()
    assert response.status_code == 302 and response.url == run.get_absolute_url()
    assert (run.status, run.metrics, run.created_by) == ("queued", ["us", "prf"], admin_user)
    assert list(run.systems.all()) == [echo()]
    assert run.chunks.count() == 2  # three texts, two a chunk


def test_a_bad_choice_starts_nothing(admin_client, dataset):
    url = reverse("scoring:run_new", args=[dataset.name])
    for bad in (form_data(metrics=["xx"]), form_data(chunk_texts=0), form_data(systems=[])):
        response = admin_client.post(url, bad)
        assert response.status_code == 400
    assert not ScoringRun.objects.exists()


def test_only_staff_start_cancel_or_resume(researcher, dataset):
    run = new_run(dataset)
    assert researcher.get(reverse("scoring:run_new", args=[dataset.name])).status_code == 403
    assert researcher.post(reverse("scoring:run_cancel", args=[run.pk])).status_code == 403
    assert researcher.post(reverse("scoring:run_resume", args=[run.pk])).status_code == 403
    run.refresh_from_db()
    assert run.status == "queued"


def test_researchers_see_the_run_page_and_its_state(researcher, dataset):
    run = run_in_process(new_run(dataset))
    page = researcher.get(run.get_absolute_url())
    assert page.status_code == 200
    content = page.content.decode()
    assert "content-word-overlap" in content and "heuristic, no LLM" in content
    assert f'data-progress-url="/runs/{run.pk}/progress.json"' in content
    assert "Resume" not in content  # staff only, and a finished run has nothing to resume
    state = researcher.get(reverse("scoring:run_progress", args=[run.pk])).json()
    assert state["status"] == "done" and state["chunks_done"] == state["chunks_total"] == 2
    assert state["percent"] == 100 and state["active"] is False


def test_people_without_the_permission_are_refused(client, annotator_user, dataset):
    run = new_run(dataset)
    client.force_login(annotator_user)
    assert client.get(run.get_absolute_url()).status_code == 403
    assert client.get(reverse("scoring:run_progress", args=[run.pk])).status_code == 403


def test_cancel_is_a_post_that_stops_the_run(admin_client, dataset):
    run = new_run(dataset)
    assert admin_client.get(reverse("scoring:run_cancel", args=[run.pk])).status_code == 405
    response = admin_client.post(reverse("scoring:run_cancel", args=[run.pk]), follow=True)
    assert "cancelled" in response.content.decode()
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert set(run.chunks.values_list("status", flat=True)) == {RunChunk.Status.CANCELLED}


def test_resume_queues_the_unfinished_chunks_again(admin_client, dataset):
    run = new_run(dataset)
    run.start()
    run.record_provenance({"embedder": "hashing"}, "f" * 64)
    run.fail("chunk 1 of run: worker lost")
    response = admin_client.post(reverse("scoring:run_resume", args=[run.pk]), follow=True)
    assert "2 unfinished chunks queued again" in response.content.decode()
    run.refresh_from_db()
    assert run.status == "running" and run.error == ""
    assert set(run.chunks.values_list("status", flat=True)) == {RunChunk.Status.QUEUED}


def test_a_finished_run_cannot_be_resumed(admin_client, dataset):
    run = run_in_process(new_run(dataset))
    response = admin_client.post(reverse("scoring:run_resume", args=[run.pk]), follow=True)
    assert "only unfinished runs can be resumed" in response.content.decode()
