"""The RQ jobs of a generation run, its parse into systems, and its estimate.

    enqueue_generation(run)  ->  one generate_chunk job per chunk (on any worker): the chunk's
                                 replies committed with it; the last chunk to commit parses
                                 every reply into one system per seed, and scores them if asked

The chunks are ``scoring.jobs``' and ``scoring.healing``'s like a scoring run's: the same
heartbeat, retries and heal pass. Replies enter the shared request cache as their request is
answered (``Generator``, one prompt or a batch of them), so a chunk asked again after its worker
died sends only what it had not been answered, and a second identical run sends nothing.
"""

import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rq import get_current_job

from scoring.genres.aspects import METRICS
from scoring.genres.generation import (
    GenerationSettings,
    Generator,
    Reply,
    estimated_tokens,
    generation_requests,
    parse_reply,
    render,
)
from scoring.genres.openai_backend import environment
from scoring.genres.pricing import cost_usd
from scoring.genres.scorer import ScoreSettings
from scoring.jobs import ChunkHeartbeat, enqueue_chunks, enqueue_run, run_in_process, work_chunks_here
from scoring.models import Dataset, Output, System, Text
from scoring.models.cache import DatabaseRequestCache
from scoring.models.chunked import Chunk
from scoring.models.generation import GenerationChunk, GenerationReply, GenerationRun
from scoring.models.runs import ScoringRun
from scoring.progress import publish_progress

LIVE_COUNTS_SECONDS = 2.0
# The endpoint's key comes from here (else OPENAI_API_KEY): it is never stored with the run.
API_KEY_VARIABLE = "GENRES_GENERATION_API_KEY"


def generator_for(run_settings: GenerationSettings) -> Generator:
    """The generator of these settings, with the shared cache and the workers' shared rate limit."""
    return Generator(
        run_settings,
        DatabaseRequestCache(),
        api_key=environment(API_KEY_VARIABLE, None),
        redis_client=redis.Redis.from_url(settings.REDIS_URL),
    )


def enqueue_generation(run: GenerationRun) -> None:
    run.start()
    enqueue_chunks(run.chunks.exclude(status=Chunk.Status.DONE))
    publish_progress(run)


def generate_chunk(chunk_id: int) -> None:
    """The RQ job of one chunk."""
    job = get_current_job()
    assert job is not None  # run by a worker
    run_generation_chunk(chunk_id, job.id)


def questions_of(run: GenerationRun, text_ids: Sequence[int]) -> list[tuple[int, int, str]]:
    """(text id, seed, prompt) of every request of these texts, seed after seed."""
    contents = dict(Text.objects.filter(pk__in=text_ids).values_list("pk", "content"))
    template = run.template.text
    return [(text_id, seed, render(template, contents[text_id])) for seed in run.seeds for text_id in text_ids]


class LiveCounts:
    """While a chunk asks, its requests and cache hits so far reach its run's page every
    LIVE_COUNTS_SECONDS: a chunk of slow replies would otherwise show nothing until it is done."""

    def __init__(self, chunk: GenerationChunk, publish: Callable[[], object]) -> None:
        self.chunk, self.publish = chunk, publish
        self.last = time.monotonic()

    def answer(self, answered: int, cached: int) -> None:
        if time.monotonic() - self.last >= LIVE_COUNTS_SECONDS:
            self.last = time.monotonic()
            self.chunk.count_so_far(answered, cached)
            self.publish()


def run_generation_chunk(
    chunk_id: int,
    job_id: str,
    on_progress: Callable[[GenerationRun], object] = publish_progress,
    score: Callable[[ScoringRun], object] = enqueue_run,
) -> None:
    """Ask for the chunk's replies and commit them, unless cancelled or superseded; the last chunk
    parses them, and hands the scoring run asked for to ``score``."""
    chunk = GenerationChunk.claim(chunk_id, job_id)
    if chunk is None:
        return
    run = chunk.run
    with ChunkHeartbeat(chunk):
        if run.is_cancelled():
            chunk.stop_for_cancel()
        else:
            questions = questions_of(run, chunk.text_ids)
            generator = generator_for(run.settings_object())
            live = LiveCounts(chunk, lambda: on_progress(run))
            replies = generator.generate([(prompt, seed) for _text, seed, prompt in questions], live.answer)
            rows = [
                GenerationReply(
                    run=run, text_id=text_id, seed=seed, raw=reply.raw, error=reply.error, cached=reply.cached
                )
                for (text_id, seed, _prompt), reply in zip(questions, replies, strict=True)
            ]
            usage = generator.service.usage
            counted = {
                "requests": usage.requests,
                "cache_hits": usage.cache_hits,
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "cost_usd": cost_usd(run.model, usage.prompt_tokens, usage.completion_tokens),
            }
            if chunk.complete(rows, counted) and run.finish_if_complete():
                finish(run)
                if run.scoring_run:
                    score(run.scoring_run)
    run.refresh_from_db()
    on_progress(run)


def finish(run: GenerationRun) -> None:
    """After the last chunk: parse the replies into systems, and make the scoring run if the run asked for one."""
    try:
        parse_run(run)
    except SystemTaken as taken:
        GenerationRun.objects.filter(pk=run.pk).update(error=f"{taken}: rename it, then parse again")
        return
    if run.score_when_done:
        scoring = ScoringRun.create(run.dataset, run.systems.all(), METRICS, ScoreSettings(), user=run.created_by)
        GenerationRun.objects.filter(pk=run.pk).update(scoring_run=scoring)
        run.scoring_run = scoring


class SystemTaken(RuntimeError):
    """A system the run would write is another's (made or uploaded meanwhile under the same name)."""


def run_systems(run: GenerationRun) -> dict[int, System]:
    """Per seed, the run's system, made on its first parse with the run's provenance."""
    systems = {}
    for seed in run.seeds:
        name, label = run.system_name(seed)
        system, made = System.with_importing.get_or_create(
            name=name,
            defaults={"replicate_group": run.group, "seed": label, "notes": f"Generated by {run}."},
        )
        if not made and (system.provenance or {}).get("generation_run") != run.pk:
            raise SystemTaken(f'a system "{name}" exists that this run did not make')
        system.provenance = run.provenance(seed)
        system.save(update_fields=["provenance"])
        systems[seed] = system
    return systems


@transaction.atomic
def parse_run(run: GenerationRun) -> list[System]:
    """Parse every stored reply into its system's outputs, as often as wanted: the model is not asked.

    Each reply's ``problem`` says why it gave no triples; a reply that did not parse still makes
    an output (no triples, the raw reply and the reasons kept), so nothing is lost.
    """
    run.refresh_from_db()
    systems = run_systems(run)
    run.systems.set(systems.values())
    outputs, changed = [], []
    for reply in run.replies.all().iterator(chunk_size=500):
        parsed = parse_reply(Reply(raw=reply.raw, error=reply.error))
        outputs.append(
            Output(
                system=systems[reply.seed],
                text_id=reply.text_id,
                triples=parsed.triples,
                raw=reply.raw,
                parse_warnings=parsed.warnings,
            )
        )
        if reply.problem != parsed.problem:
            reply.problem = parsed.problem
            changed.append(reply)
    Output.objects.bulk_create(
        outputs,
        batch_size=500,
        update_conflicts=True,
        unique_fields=["system", "text"],
        update_fields=["triples", "raw", "parse_warnings", "malformed", "updated_at"],
    )
    GenerationReply.objects.bulk_update(changed, ["problem"], batch_size=500)
    GenerationRun.objects.filter(pk=run.pk).update(parsed_at=timezone.now())
    return list(systems.values())


def generate_in_process(run: GenerationRun, on_chunk: Callable[[GenerationRun], object] | None = None) -> GenerationRun:
    """Generate the run here, chunk after chunk, without Redis queues; ``on_chunk(run)`` after each.
    A scoring run asked for when done is scored here too."""
    run.start()

    def work(chunk_id: int, job_id: str, on_progress: Callable[[GenerationRun], object]) -> None:
        run_generation_chunk(chunk_id, job_id, on_progress, score=run_in_process)

    return work_chunks_here(run, work, on_chunk)


def estimate(dataset: Dataset, run_settings: GenerationSettings, template: str, seeds: Sequence[int]) -> dict[str, Any]:
    """What a run would ask, before it starts: prompts, how many the cache holds, the requests the
    others take (several prompts of a seed in one on the completions API), tokens and a cost ceiling."""
    contents = list(dataset.texts.order_by("position").values_list("content", flat=True))
    questions = [(render(template, content), seed) for seed in sorted(set(seeds)) for content in contents]
    keys = [run_settings.cache_key(prompt, seed) for prompt, seed in questions]
    cached = DatabaseRequestCache().get_many(set(keys))
    to_send_per_seed = Counter(seed for key, (_prompt, seed) in zip(keys, questions, strict=True) if key not in cached)
    requests = generation_requests(run_settings)
    prompt_tokens = sum(estimated_tokens(prompt) for prompt, _seed in questions)
    completion_tokens = len(questions) * run_settings.max_tokens
    return {
        "prompts": len(questions),
        "cached": len(questions) - to_send_per_seed.total(),
        "to_send": to_send_per_seed.total(),
        "requests_to_send": sum(requests.requests_for(count) for count in to_send_per_seed.values()),
        "prompt_tokens_estimated": prompt_tokens,
        "completion_tokens_at_most": completion_tokens,
        "cost_usd_at_most": round(cost_usd(run_settings.model, prompt_tokens, completion_tokens), 4),
    }
