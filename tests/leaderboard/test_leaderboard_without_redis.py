"""Imports run without a reachable Redis say once per process that leaderboards are not rebuilt now,
not once per scheduled build."""

import json
import logging
from io import StringIO

import pytest
import redis
from django.core.management import call_command
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq import Queue

from leaderboard import jobs
from tests.scoring.import_fixtures import DATASET_JSONL, TURING

# Builds are scheduled when the transaction of an import commits.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def unreachable_redis():
    # Refused at once, without redis-py's retries and their back-off.
    unreachable = redis.Redis(host="127.0.0.1", port=1, retry=Retry(NoBackoff(), 0))
    # Undone before the autouse leaderboard_queue fixture empties the real queue.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "queue", lambda: Queue(jobs.QUEUE, connection=unreachable))
        patch.setattr(jobs, "_unreachable_warned", False)
        yield


def test_several_imports_in_one_process_warn_once(unreachable_redis, tmp_path, caplog):
    dataset = tmp_path / "people.jsonl"
    dataset.write_bytes(DATASET_JSONL)
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps({TURING: [["Alan Turing", "born in", "London"]]}))

    with caplog.at_level(logging.WARNING, logger=jobs.__name__):
        call_command("import_dataset", str(dataset), "--name", "People", stdout=StringIO())
        for system in ("GPT-4", "LLaMA-2", "Vicuna"):
            call_command("import_outputs", str(outputs), "--dataset", "People", "--system", system, stdout=StringIO())

    warnings = [record.getMessage() for record in caplog.records if record.name == jobs.__name__]
    assert len(warnings) == 1
    assert warnings[0].startswith("Redis is unreachable (")
    assert "leaderboards are not rebuilt now" in warnings[0]
