"""LOG_FORMAT=json writes one JSON object a line, keeping the fields a failure is logged with."""

import json
import logging
import sys

from genres_site.log_format import JsonFormatter


def record(message, *args, exc_info=None, **extra):
    entry = logging.LogRecord("scoring.jobs", logging.ERROR, __file__, 1, message, args, exc_info)
    entry.__dict__.update(extra)
    return entry


def test_a_failure_keeps_its_fields_as_keys():
    line = JsonFormatter().format(record("Chunk %d of run %d failed", 3, 7, event="chunk_failed", run=7, chunk=3))
    entry = json.loads(line)
    assert entry["message"] == "Chunk 3 of run 7 failed"
    assert entry["level"] == "ERROR" and entry["logger"] == "scoring.jobs"
    assert (entry["event"], entry["run"], entry["chunk"]) == ("chunk_failed", 7, 3)
    assert entry["time"].endswith("+00:00")
    assert "\n" not in line


def test_the_traceback_goes_into_the_object():
    try:
        raise ValueError("bad record")
    except ValueError:
        line = JsonFormatter().format(record("Import refused", exc_info=sys.exc_info(), upload=12))
    entry = json.loads(line)
    assert entry["upload"] == 12
    assert entry["exception"].startswith("Traceback") and "ValueError: bad record" in entry["exception"]


def test_values_json_cannot_hold_are_written_as_text():
    entry = json.loads(JsonFormatter().format(record("Judge failed", error=TimeoutError("slow"))))
    assert entry["error"] == "slow"
