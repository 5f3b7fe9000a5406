"""Judge stage throughput: one worker, the OpenAI judge, a fake endpoint answering after 50 ms.

Prints judgements per second for the support check and the split at 16 requests in flight
(target: at least 12 per second per worker), one request at a time for comparison, and the
requests a second identical run sends (target: none, all from the cache).

    .venv/bin/python -m benchmarks.judge_stage
"""

import time

from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.judges import SPLIT, SUPPORT, OpenAIJudge
from tests.fake_openai import FakeOpenAIServer

LATENCY_SECONDS = 0.05
IN_FLIGHT = 16
JUDGEMENTS = 640
SERIAL_JUDGEMENTS = 40
TARGET_PER_SECOND = 12


def benchmark_pairs(count):
    """Distinct (text, triple) pairs, so that every judgement needs its own request."""
    return [
        (
            f"Report {number}: the Harbour Authority opened terminal {number} in Rotterdam and Antwerp.",
            ["Harbour Authority", "opened", f"terminal {number} in Rotterdam and Antwerp"],
        )
        for number in range(count)
    ]


def timed_run(judge, task, pairs):
    """(seconds, HTTP requests sent) for judging ``pairs``."""
    judge_batch = judge.check_support if task == SUPPORT else judge.split
    requests_before = judge.usage.requests
    started = time.perf_counter()
    verdicts = judge_batch(pairs)
    seconds = time.perf_counter() - started
    unusable = sum(not verdict.parsed for verdict in verdicts)
    if unusable:
        raise RuntimeError(f"{unusable} of {len(verdicts)} {task} replies could not be read")
    return seconds, judge.usage.requests - requests_before


def main():
    with FakeOpenAIServer(latency=LATENCY_SECONDS) as server:
        pairs = benchmark_pairs(JUDGEMENTS)
        print(f"Judge stage: fake OpenAI-compatible endpoint answering after {LATENCY_SECONDS * 1000:.0f} ms")
        print(f"{'run':<44} {'judgements':>10} {'requests':>9} {'seconds':>8} {'per second':>11}")

        def report(label, count, requests, seconds):
            print(f"{label:<44} {count:>10} {requests:>9} {seconds:>8.2f} {count / seconds:>11.1f}")

        serial = OpenAIJudge(base_url=server.base_url, api_key="benchmark", concurrency=1)
        seconds, requests = timed_run(serial, SUPPORT, pairs[:SERIAL_JUDGEMENTS])
        report("support, 1 in flight", SERIAL_JUDGEMENTS, requests, seconds)

        cache = InMemoryRequestCache()
        rates = {}
        for task in (SUPPORT, SPLIT):
            judge = OpenAIJudge(base_url=server.base_url, api_key="benchmark", concurrency=IN_FLIGHT, cache=cache)
            seconds, requests = timed_run(judge, task, pairs)
            rates[task] = JUDGEMENTS / seconds
            report(f"{task}, {IN_FLIGHT} in flight", JUDGEMENTS, requests, seconds)

        second_requests = 0
        for task in (SUPPORT, SPLIT):
            rerun = OpenAIJudge(base_url=server.base_url, api_key="benchmark", concurrency=IN_FLIGHT, cache=cache)
            seconds, requests = timed_run(rerun, task, pairs)
            second_requests += requests
            report(f"{task}, second identical run (cache)", JUDGEMENTS, requests, seconds)

        slowest = min(rates.values())
        verdict = "met" if slowest >= TARGET_PER_SECOND else "MISSED"
        print(f"slowest stage at {IN_FLIGHT} in flight: {slowest:.1f} judgements/s per worker "
              f"(target >= {TARGET_PER_SECOND}/s: {verdict})")
        print(f"requests sent by the second identical run: {second_requests} (target 0: "
              f"{'met' if second_requests == 0 else 'MISSED'})")


if __name__ == "__main__":
    main()
