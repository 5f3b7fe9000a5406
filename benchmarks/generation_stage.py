"""Generation throughput: the generator of generation runs against a local endpoint answering after
1 s, beside the judge's figure on the same endpoint.

The endpoint (``benchmarks.endpoint``, a process of its own) answers every chat request after the
latency. For each transport (the ``openai`` package's client, the default, and the lean client)
the generator asks 8 rounds of 64 distinct prompts, one seed, through an in-memory request cache
that it writes after every reply (as generation chunks do), and the judge asks as many support
questions, one prompt per request; each figure is printed as requests per second and as a share
of the ceiling that in flight ÷ latency sets (target: the generator within 5 points of the judge,
at least 85%). A second identical generation then shows the requests it sends (target: none).
Last, on the completions API, the generator asks 2 rounds of requests one prompt a request, then 2
of 16 prompts a request (``DEFAULT_BATCH_SIZE``, a seed's prompts sharing a request): prompts
per second of each, side by side, with the load average just before.

    .venv/bin/python -m benchmarks.generation_stage
"""

import os
import time

from benchmarks.endpoint import endpoint_process
from benchmarks.judge_stage import benchmark_pairs, timed_run
from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.completion_requests import COMPLETIONS
from scoring.genres.generation import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_TEMPLATE_TEXT,
    GenerationSettings,
    Generator,
    render,
)
from scoring.genres.judges.base import SUPPORT
from scoring.genres.judges.openai_compatible import OpenAIJudge

LATENCY_SECONDS = 1.0
IN_FLIGHT = 64
ROUNDS = 8
TARGET_SHARE = 0.85
TARGET_GAP = 0.05
BATCH_SIZE = DEFAULT_BATCH_SIZE
BATCHED_ROUNDS = 2


def questions(run: str, count: int = IN_FLIGHT * ROUNDS) -> list[tuple[str, int]]:
    texts = [f"Report {run}-{number}: the Harbour Authority opened terminal {number}." for number in range(count)]
    return [(render(DEFAULT_TEMPLATE_TEXT, text), 1) for text in texts]


def generation_rate(base_url: str, transport: str) -> tuple[float, int]:
    """(requests per second of a first run, requests a second identical run sends)."""
    cache = InMemoryRequestCache()
    settings = GenerationSettings(base_url=base_url, model="benchmark-model", temperature=0.7, max_tokens=256)

    def generator() -> Generator:
        return Generator(settings, cache, api_key="benchmark", concurrency=IN_FLIGHT, transport=transport)

    asked = questions(transport)
    first = generator()
    started = time.perf_counter()
    first.generate(asked)
    seconds = time.perf_counter() - started
    second = generator()
    second.generate(asked)
    return first.service.usage.requests / seconds, second.service.usage.requests


def batched_rates(base_url: str, transport: str) -> tuple[float, float]:
    """Prompts per second on the completions API, one prompt a request and BATCH_SIZE a request:
    BATCHED_ROUNDS rounds of requests each, so both runs keep IN_FLIGHT requests in flight."""
    rates = []
    for batch_size in (1, BATCH_SIZE):
        settings = GenerationSettings(base_url=base_url, model=f"benchmark-{batch_size}", api=COMPLETIONS)
        generator = Generator(
            settings,
            InMemoryRequestCache(),
            batch_size=batch_size,
            api_key="benchmark",
            concurrency=IN_FLIGHT,
            transport=transport,
        )
        asked = questions(f"{transport}-{batch_size}", BATCHED_ROUNDS * IN_FLIGHT * batch_size)
        started = time.perf_counter()
        generator.generate(asked)
        rates.append(len(asked) / (time.perf_counter() - started))
    return rates[0], rates[1]


def judge_rate(base_url: str, transport: str) -> float:
    judge = OpenAIJudge(
        base_url=base_url, api_key="benchmark", concurrency=IN_FLIGHT, batch_size=1, transport=transport
    )
    seconds, _cpu_seconds, requests = timed_run(judge, SUPPORT, benchmark_pairs(IN_FLIGHT * ROUNDS, f"g-{transport}"))
    return requests / seconds


def main() -> None:
    ceiling = IN_FLIGHT / LATENCY_SECONDS
    print(
        f"Generation against the judge: {IN_FLIGHT} in flight, a local endpoint answering after {LATENCY_SECONDS:g} s"
    )
    print(f"{'transport':<10} {'stage':<11} {'requests/s':>11} {'of ceiling':>11}  load")
    with endpoint_process(LATENCY_SECONDS) as base_url:
        for transport in ("openai", "lean"):
            # Steady state: imports and first connections before the clock, as judge_stage does.
            OpenAIJudge(
                base_url=base_url, api_key="benchmark", concurrency=IN_FLIGHT, transport=transport
            ).check_support(benchmark_pairs(IN_FLIGHT, f"warm-up-{transport}"))
            load = os.getloadavg()[0]
            generated, resent = generation_rate(base_url, transport)
            judged = judge_rate(base_url, transport)
            verdict = (
                "met"
                if generated / ceiling >= TARGET_SHARE and judged - generated <= TARGET_GAP * ceiling
                else "MISSED"
            )
            print(f"{transport:<10} {'generation':<11} {generated:>11.1f} {generated / ceiling:>11.1%}  {load:.2f}")
            print(f"{transport:<10} {'judge':<11} {judged:>11.1f} {judged / ceiling:>11.1%}  target: {verdict}")
            print(f"{transport:<10} second identical generation sent {resent} requests (target: 0)")
            load = os.getloadavg()[0]
            single, batched = batched_rates(base_url, transport)
            print(
                f"{transport:<10} completions, prompts/s: {single:.1f} one a request, {batched:.1f} "
                f"{BATCH_SIZE} a request ({batched / single:.1f}x)  load {load:.2f}"
            )


if __name__ == "__main__":
    main()
