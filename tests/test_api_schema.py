"""The JSON API against its own OpenAPI description (schemathesis, in-process over WSGI).

Every operation gets a bounded number of generated requests from a staff user holding both an
API token and a session: no reply may be a server error, and every reply must be documented,
with the documented content type, headers and body. Generated files are never valid datasets,
so the replies of a successful import are checked on hand-made requests below.
"""

import json

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis import checks as schemathesis_checks

from leaderboard.jobs import build_snapshots
from scoring.models import ApiToken, Upload
from tests.annotation.campaign_factories import finish_next, make_campaign
from tests.leaderboard.conftest import leaderboard_queue  # noqa: F401 (autouse: empties the leaderboard queue)
from tests.leaderboard.leaderboard_fixtures import scored_dataset
from tests.scoring.conftest import scratch  # noqa: F401 (autouse: empties the scoring queue)
from tests.scoring.run_fixtures import ECHO_OUTPUTS, RECORDS

# Enough to reach the documented replies of an operation; the whole file takes about half a minute.
EXAMPLES_PER_OPERATION = 25
CHECKS = [
    schemathesis_checks.not_a_server_error,
    schemathesis_checks.status_code_conformance,
    schemathesis_checks.content_type_conformance,
    schemathesis_checks.response_headers_conformance,
    schemathesis_checks.response_schema_conformance,
]
# Another method is a 405 too, except on the pages' own JSON, where Django's CSRF check refuses an
# unsafe method (403) before the view would.
PAGE_DATA = ("/runs/{pk}/progress.json", "/uploads/{pk}/progress.json")

# The document as served; loading it needs no database.
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())


@pytest.fixture(autouse=True)
def connection_kept_open():
    """As Django's test client does: the end of a request must not close the connection that holds
    the test's transaction (PostgreSQL would then refuse to reopen it inside the atomic block)."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def credentials(db, admin_user):
    """A token and a session of a staff user, as schemathesis' call() takes them."""
    _, key = ApiToken.issue(admin_user)
    browser = Client()
    browser.force_login(admin_user)
    return {"headers": {"Authorization": f"Token {key}"}, "cookies": {"sessionid": browser.cookies["sessionid"].value}}


@pytest.fixture
def built_dataset(db):
    """The dataset "CDR" (the document's example name) with a finished run and a built leaderboard."""
    dataset, _ = scored_dataset(name="CDR")
    build_snapshots(dataset)
    return dataset


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_generated_requests_get_documented_replies(case, credentials, built_dataset):
    method_check = [] if case.operation.path in PAGE_DATA else [schemathesis_checks.unsupported_method]
    case.call_and_validate(**credentials, checks=CHECKS + method_check)


def jsonl(records):
    return "\n".join(json.dumps(record) for record in records).encode()


def call(credentials, path, method, status, **case):
    response = schema[path][method].Case(**case).call_and_validate(**credentials, checks=CHECKS)
    assert response.status_code == status, response.text
    return response.json()


def upload(credentials, path, status, **fields):
    return call(credentials, path, "POST", status, media_type="multipart/form-data", **fields)


def test_imports_and_their_status_match_the_description(credentials, settings):
    dataset = {"name": "People", "file": jsonl(RECORDS)}
    first = upload(credentials, "/api/datasets/", 201, body=dataset)
    assert upload(credentials, "/api/datasets/", 200, body=dataset)["unchanged"] is True
    outputs = {"system": "Echo", "lenient": "yes", "file": jsonl(ECHO_OUTPUTS)}
    upload(credentials, "/api/datasets/{name}/outputs/", 201, path_parameters={"name": "People"}, body=outputs)

    settings.GENRES_IMPORT_JOB_BYTES = 1
    queued = upload(credentials, "/api/datasets/", 202, body={"name": "Queued", "file": jsonl(RECORDS)})
    assert queued["active"] is True
    for upload_id in (first["upload"], queued["upload"]):
        call(credentials, "/api/uploads/{pk}/", "GET", 200, path_parameters={"pk": upload_id})
        call(credentials, "/uploads/{pk}/progress.json", "GET", 200, path_parameters={"pk": upload_id})
    assert Upload.objects.count() == 4


def test_leaderboard_and_run_replies_match_the_description(credentials, built_dataset):
    board = call(credentials, "/api/datasets/{name}/leaderboard.json", "GET", 200, path_parameters={"name": "CDR"})
    assert board["dataset"]["name"] == "CDR"
    sections = call(credentials, "/leaderboard/{name}/sections.json", "GET", 200, path_parameters={"name": "CDR"})
    assert sections["sections"]
    run = built_dataset.scoring_runs.get()
    assert call(credentials, "/runs/{pk}/progress.json", "GET", 200, path_parameters={"pk": run.pk})["run"] == run.pk


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_campaign_exports_match_the_description(credentials, suffix):
    campaign, _people = make_campaign(texts=2, annotators=2, systems=("alpha", "beta"))
    operation = schema[f"/api/campaigns/{{pk}}/judgements.{suffix}"]["GET"]
    response = operation.Case(path_parameters={"pk": campaign.pk}).call_and_validate(**credentials, checks=CHECKS)
    assert response.status_code == 200


def test_study_replies_match_the_description(credentials, built_dataset, admin_user):
    """Every read of the study API, on a campaign with judgements, and its two writes, succeeding."""
    campaign, people = make_campaign(texts=2, annotators=2, systems=("alpha", "beta"))
    for person in people:
        finish_next(person, campaign)
    name, pk = {"name": "CDR"}, {"pk": campaign.pk}
    run = call(
        credentials,
        "/api/datasets/{name}/runs/",
        "POST",
        202,
        path_parameters=name,
        media_type="multipart/form-data",
        body={},
    )
    call(credentials, "/api/runs/{pk}/", "GET", 200, path_parameters={"pk": run["run"]})
    for path, parameters, query in (
        ("/api/datasets/", {}, {"page_size": 1}),
        ("/api/datasets/{name}/", name, {}),
        ("/api/datasets/{name}/systems/", name, {}),
        ("/api/datasets/{name}/ratings/", name, {}),
        ("/api/campaigns/", {}, {}),
        ("/api/campaigns/{pk}/", pk, {}),
        ("/api/campaigns/{pk}/agreement/", pk, {}),
        ("/api/judgements/", {}, {"campaign": campaign.pk, "aspect": "ts", "page_size": 1}),
    ):
        reply = call(credentials, path, "GET", 200, path_parameters=parameters, query=query)
        assert reply
    created = call(
        credentials,
        "/api/campaigns/",
        "POST",
        201,
        media_type="multipart/form-data",
        body={
            "name": "Second",
            "dataset": campaign.dataset.name,
            "systems": ["alpha", "beta"],
            "sample_size": 1,
            "seed": 1,
            "annotators": [person.get_username() for person in people],
            "overlap_percent": 0,
        },
    )
    assert created["texts"] == 1
