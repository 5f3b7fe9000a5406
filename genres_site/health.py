"""``/healthz``: what a load balancer asks of a web machine before sending it requests.

It answers 200 while this process reaches the database and Redis, the two things no page can
do without, and 503 otherwise. RQ workers are reported (per queue, how many beat recently) but
do not fail the check: annotators' saves and the leaderboard snapshots need no worker, so a web
machine with none still serves; a monitor alerts on ``workers`` instead.
"""

from datetime import UTC, datetime, timedelta

import django_rq
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from rq import Worker

# rq workers beat every few seconds while idle or busy (worker_ttl 420 s is their key's life).
WORKER_SEEN_WITHIN = timedelta(seconds=60)


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _workers_seen() -> dict[str, int]:
    redis = django_rq.get_connection()
    recent = datetime.now(UTC) - WORKER_SEEN_WITHIN
    seen = {name: 0 for name in settings.RQ_QUEUES}
    for worker in Worker.all(connection=redis):
        beat = worker.last_heartbeat
        if beat is None or beat.replace(tzinfo=beat.tzinfo or UTC) < recent:
            continue
        for name in worker.queue_names():
            if name in seen:
                seen[name] += 1
    return seen


# Exempt so that another method is a 405, not the CSRF check's 403: the view only reads.
@csrf_exempt
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, str] = {}
    for name, check in (("database", _database), ("redis", lambda: django_rq.get_connection().ping())):
        try:
            check()
        except Exception as error:  # any failure means "not ready", named for the operator
            checks[name] = f"error: {type(error).__name__}"
        else:
            checks[name] = "ok"
    healthy = all(state == "ok" for state in checks.values())
    body: dict[str, object] = {"status": "ok" if healthy else "unavailable", **checks}
    if checks["redis"] == "ok":
        body["workers"] = _workers_seen()
    return JsonResponse(body, status=200 if healthy else 503)
