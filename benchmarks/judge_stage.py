"""Judge stage throughput: one worker, the OpenAI judge, a local endpoint answering after 50 ms;
then each transport at real latencies.

The endpoint (``benchmarks.endpoint``: bare asyncio on uvloop, keep-alive) runs in a process of
its own, so that it does not share the judge's interpreter, and costs little CPU per request.
The judge runs on the lean transport, the one for local servers. For each run it prints judgements and requests per second and, for one prompt per request, the
share of the ceiling that ``in flight / latency`` sets (targets: at least 90% at 16
and at 64 in flight); then prompts batched on the completions API at 16 in flight (target: at
least 5 times the judgements per second of one prompt per request), and the requests that a
second identical run sends (target: none, every reply from the cache). The load average is
printed before and after: the machine is shared. The CPU time the judge's process spends per
request shows what one worker could reach on a core of its own (1000 / ms per request); the
last two lines send the same requests with no judge around them, through the lean HTTP client
and through aiohttp: the floor that the transport, the endpoint and the machine allow, and the
reason the lean transport exists.

Then both transports (``GENRES_OPENAI_TRANSPORT``: the ``openai`` package's client, the default,
and the lean client) at the latencies of real endpoints: 1 s with 64 and 256 in flight, and
50 ms with 64, support questions one prompt a request, each figure as a share of in flight ÷
latency and CPU ms per request, with the one-minute load average just before it (targets: the
default at least 90% at 1 s × 64, lean at least 90% at 1 s × 256 and 50 ms × 64).

    .venv/bin/python -m benchmarks.judge_stage              # both parts
    .venv/bin/python -m benchmarks.judge_stage transports   # the transports only
"""

import asyncio
import json
import os
import sys
import time

import aiohttp

from benchmarks.endpoint import endpoint_process
from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.http_client import HTTPClient
from scoring.genres.judges.base import SPLIT, SUPPORT
from scoring.genres.judges.openai_compatible import DEFAULT_BATCH_SIZE, OpenAIJudge
from scoring.genres.openai_backend import new_event_loop

LATENCY_SECONDS = 0.05
# (in flight, prompts per request, judgements): each run lasts some 4 s at its ceiling, long
# enough that the first and last rounds of requests weigh little.
RUNS = ((16, 1, 1280), (64, 1, 5120), (16, DEFAULT_BATCH_SIZE, 20480))
TARGET_SHARE = 0.9
TARGET_BATCH_GAIN = 5
# The stage's targets are the judge's own overhead at a local server's latency: on the transport
# for that (the default's CPU per request is compared below, under "transports").
STAGE_TRANSPORT = "lean"
# (transport, latency in seconds, in flight, target share or None): each run is some 8 rounds
# of requests at 1 s and 60 at 50 ms, so that its first and last rounds weigh little.
TRANSPORT_RUNS = tuple(
    (transport, latency, in_flight, target)
    for transport, targets in (
        ("openai", {(1.0, 64): TARGET_SHARE}),
        ("lean", {(1.0, 256): TARGET_SHARE, (0.05, 64): TARGET_SHARE}),
    )
    for latency, in_flight in ((1.0, 64), (1.0, 256), (0.05, 64))
    for target in [targets.get((latency, in_flight))]
)
ROUNDS = {1.0: 8, 0.05: 60}


def benchmark_pairs(count, run):
    """Distinct (text, triple) pairs, so that every judgement needs its own prompt."""
    return [
        (
            f"Report {run}-{number}: the Harbour Authority opened terminal {number} in Rotterdam and Antwerp.",
            ["Harbour Authority", "opened", f"terminal {number} in Rotterdam and Antwerp"],
        )
        for number in range(count)
    ]


def timed_run(judge, task, pairs):
    """(seconds, CPU seconds of this process, HTTP requests sent) for judging ``pairs``."""
    judge_batch = judge.check_support if task == SUPPORT else judge.split
    requests_before = judge.usage.requests
    started, cpu_started = time.perf_counter(), time.process_time()
    verdicts = judge_batch(pairs)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    unusable = sum(not verdict.parsed for verdict in verdicts)
    if unusable:
        raise RuntimeError(f"{unusable} of {len(verdicts)} {task} replies could not be read")
    return seconds, cpu_seconds, judge.usage.requests - requests_before


async def post_with_aiohttp(base_url: str, bodies: list[bytes], in_flight: int) -> None:
    """Send every body to /completions with aiohttp, ``in_flight`` at a time."""
    pending = iter(bodies)
    async with aiohttp.ClientSession(headers={"Content-Type": "application/json"}) as session:

        async def sender() -> None:
            for body in pending:
                async with session.post(f"{base_url}/completions", data=body) as response:
                    json.loads(await response.read())

        await asyncio.gather(*(sender() for _ in range(in_flight)))


async def post_with_http_client(base_url: str, bodies: list[bytes], in_flight: int) -> None:
    """Send every body to /completions with the judge's HTTP client, ``in_flight`` at a time."""
    pending = iter(bodies)
    client = HTTPClient(base_url, {"Content-Type": "application/json"}, timeout=60)

    async def sender() -> None:
        for body in pending:
            json.loads((await client.post("/completions", body)).body)

    await asyncio.gather(*(sender() for _ in range(in_flight)))
    client.close()


CLIENTS_ALONE = {"the lean HTTP client": post_with_http_client, "aiohttp": post_with_aiohttp}


def transport_alone(post_all, base_url: str, in_flight: int, count: int) -> tuple[float, float]:
    """(requests/s, CPU ms per request) of ``post_all`` sending the judge's support prompts, no judge around it."""
    judge = OpenAIJudge(base_url=base_url, api_key="benchmark", batch_size=1)
    bodies = [
        json.dumps({"model": judge.model, **payload}).encode()
        for payload in judge._payloads(benchmark_pairs(count, "transport"), SUPPORT)
    ]
    started, cpu_started = time.perf_counter(), time.process_time()
    new_event_loop().run_until_complete(post_all(base_url, bodies, in_flight))
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return count / seconds, 1000 * cpu_seconds / count


def load_average():
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


def transports() -> None:
    """Each transport at 1 s and 50 ms, one prompt a request."""
    print("Transports: support questions, one prompt a request, a local endpoint answering after the latency")
    print(
        f"{'transport':<10} {'latency':>8} {'in flight':>9} {'requests/s':>11} {'of ceiling':>11} {'CPU ms/request':>15}  load"
    )
    for latency in sorted({latency for _transport, latency, _in_flight, _target in TRANSPORT_RUNS}, reverse=True):
        with endpoint_process(latency) as base_url:
            for transport in ("openai", "lean"):  # steady state: imports and first connections before the clock
                warm_up = OpenAIJudge(base_url=base_url, api_key="benchmark", concurrency=64, transport=transport)
                warm_up.check_support(benchmark_pairs(64, f"warm-up-{transport}"))
            for number, (transport, run_latency, in_flight, target) in enumerate(TRANSPORT_RUNS):
                if run_latency != latency:
                    continue
                load = os.getloadavg()[0]
                count = in_flight * ROUNDS[latency]
                judge = OpenAIJudge(
                    base_url=base_url, api_key="benchmark", concurrency=in_flight, batch_size=1, transport=transport
                )
                seconds, cpu_seconds, requests = timed_run(judge, SUPPORT, benchmark_pairs(count, f"t{number}"))
                share = requests / seconds / (in_flight / latency)
                verdict = (
                    "" if target is None else f"  target >= {target:.0%}: {'met' if share >= target else 'MISSED'}"
                )
                print(
                    f"{transport:<10} {latency * 1000:>6.0f}ms {in_flight:>9} {requests / seconds:>11.0f} {share:>11.1%}"
                    f" {1000 * cpu_seconds / requests:>15.2f}  {load:.2f}{verdict}"
                )
    print(f"after: {load_average()}")


def stage() -> None:
    print(
        f"Judge stage: OpenAI judge (completions API, {STAGE_TRANSPORT} transport), a local endpoint answering after"
        f" {LATENCY_SECONDS * 1000:.0f} ms"
    )
    print(f"before: {load_average()}")
    print(
        f"{'run':<42} {'judgements':>10} {'requests':>9} {'seconds':>8} {'judgements/s':>13} {'requests/s':>11}"
        f" {'of ceiling':>11} {'CPU ms/request':>15}"
    )
    with endpoint_process(LATENCY_SECONDS) as base_url:
        rates = {}
        cache = None
        for number, (in_flight, batch_size, count) in enumerate(RUNS):
            pairs = benchmark_pairs(count, number)
            cache = InMemoryRequestCache()
            for task in (SUPPORT, SPLIT):
                judge = OpenAIJudge(
                    base_url=base_url,
                    api_key="benchmark",
                    concurrency=in_flight,
                    batch_size=batch_size,
                    cache=cache,
                    transport=STAGE_TRANSPORT,
                )
                seconds, cpu_seconds, requests = timed_run(judge, task, pairs)
                rates[task, in_flight, batch_size] = count / seconds
                ceiling = in_flight / LATENCY_SECONDS
                label = f"{task}, {in_flight} in flight, {batch_size} prompt{'s' if batch_size > 1 else ''}/request"
                print(
                    f"{label:<42} {count:>10} {requests:>9} {seconds:>8.2f} {count / seconds:>13.0f}"
                    f" {requests / seconds:>11.0f} {requests / seconds / ceiling:>11.0%}"
                    f" {1000 * cpu_seconds / requests:>15.2f}"
                )
        second_requests = 0
        for task in (SUPPORT, SPLIT):  # the last run again, on its cache
            rerun = OpenAIJudge(base_url=base_url, api_key="benchmark", batch_size=DEFAULT_BATCH_SIZE, cache=cache)
            _seconds, _cpu_seconds, requests = timed_run(rerun, task, pairs)
            second_requests += requests
        for name, post_all in CLIENTS_ALONE.items():
            rate, cpu_ms = transport_alone(post_all, base_url, 64, 5120)
            label = f"{name} alone, 64 in flight"
            print(
                f"{label:<42} {5120:>10} {5120:>9} {5120 / rate:>8.2f} {'':>13}"
                f" {rate:>11.0f} {rate / (64 / LATENCY_SECONDS):>11.0%} {cpu_ms:>15.2f}"
            )
    print(f"after: {load_average()}")
    for in_flight in (16, 64):
        share = min(rates[task, in_flight, 1] for task in (SUPPORT, SPLIT)) / (in_flight / LATENCY_SECONDS)
        verdict = "met" if share >= TARGET_SHARE else "MISSED"
        print(
            f"one prompt per request, {in_flight} in flight: {share:.1%} of in flight/latency "
            f"(slower task; target >= {TARGET_SHARE:.0%}: {verdict})"
        )
    gain = min(rates[task, 16, DEFAULT_BATCH_SIZE] / rates[task, 16, 1] for task in (SUPPORT, SPLIT))
    print(
        f"{DEFAULT_BATCH_SIZE} prompts per request at 16 in flight: {gain:.1f}x the judgements/s of one prompt "
        f"(slower task; target >= {TARGET_BATCH_GAIN}x: {'met' if gain >= TARGET_BATCH_GAIN else 'MISSED'})"
    )
    print(
        f"requests sent by a second identical run: {second_requests} (target 0: "
        f"{'met' if second_requests == 0 else 'MISSED'})"
    )


def main() -> None:
    if sys.argv[1:] != ["transports"]:
        stage()
    transports()


if __name__ == "__main__":
    main()
