"""Running one (sample, epoch): the workflow thread, then every scorer, into a ``SampleRecord``.

Shared by the local (asyncio) executor and the Ray executor.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paperworks.core.budget import Budget, Limits, current_budget
from paperworks.core.errors import one_line
from paperworks.core.events import EventLog, current_events
from paperworks.core.runs import now_iso
from paperworks.eval.records import SampleRecord, Score, folder_name
from paperworks.eval.scorers import ScoreContext, extract_answer, get_scorer
from paperworks.eval.suite import Suite, load_suite, open_suite, without_scorers
from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import WorkflowSpec, get_workflow
from paperworks.workflows.runner import run_thread


@dataclass
class EvalSetup:
    """Everything that is the same for every sample of an eval run (rebuilt from ``run.json``)."""

    run_dir: Path
    suite: Suite
    spec: WorkflowSpec
    workflow_config: Any
    model: str
    judge_model: str | None
    seed: int
    epochs: int
    limits: Limits
    cache: bool
    generation: dict[str, Any] = field(default_factory=dict)
    recursion_limit: int = 100
    max_retries: int | None = None
    timeout_s: float | None = None

    @classmethod
    def from_record(cls, run_dir: Path, record: dict[str, Any]) -> EvalSetup:
        """Rebuild the setup from an eval's ``run.json``."""
        suite = (open_suite(str(record["suite"]), record["suite_data"], record.get("suite_attachments"))
                 if record.get("suite_data") else load_suite(record["suite_path"]))
        suite = without_scorers(suite, set(record.get("skipped_scorers") or {}))
        spec = get_workflow(suite.spec.workflow)
        args = record.get("args") or {}
        return cls(
            run_dir=run_dir, suite=suite, spec=spec,
            workflow_config=spec.parse_config({**(suite.spec.config or {}), **(args.get("config") or {})}),
            model=record["model"], judge_model=record.get("judge_model"), seed=int(record.get("seed", 0)),
            epochs=int(record["epochs"]), limits=Limits(**(record.get("limits") or {})),
            cache=bool(args.get("cache", False)),
            generation={**(suite.spec.generation or {}), **(args.get("generation") or {})},
            recursion_limit=int(args.get("recursion_limit", 100)),
            max_retries=args.get("max_retries"), timeout_s=args.get("timeout"),
        )


async def run_sample(setup: EvalSetup, graph: Any, sample: Any, epoch: int, events: EventLog) -> SampleRecord:
    """Run (or continue) one sample's thread, score it and return its record. Never raises for the
    sample's own failure; only cancellation propagates."""
    key = f"{sample.id}#{epoch}"
    started, start = now_iso(), time.monotonic()
    budget = Budget(setup.limits)
    log = events.bind(sample=key)
    tokens = (current_events.set(log), current_budget.set(budget))
    retries = 0

    def count_retries(event: dict[str, Any]) -> None:
        nonlocal retries
        if event.get("type") == "model_retry" and event.get("sample") == key:
            retries += 1

    log.listeners = [*log.listeners, count_retries]
    artifact_dir = setup.run_dir / "artifacts" / folder_name(key)  # never a path out of the run
    ctx = RunContext(model=setup.model, seed=setup.seed + epoch - 1, generation=dict(setup.generation),
                     cache=setup.cache, run_dir=str(setup.run_dir), artifact_dir=str(artifact_dir),
                     max_retries=setup.max_retries, timeout_s=setup.timeout_s)
    graph_config = {"configurable": {"thread_id": key}, "recursion_limit": setup.recursion_limit}
    try:
        log.emit("sample_start", epoch=epoch)
        result = await run_thread(graph, setup.spec, graph_config, None, sample.input, ctx, budget, log)
        working, waiting = round(budget.working_s, 3), round(budget.waiting_s, 3)
        scores: dict[str, dict[str, Any]] = {}
        error, error_kind = result.error, result.error_kind
        score_s = 0.0
        if result.status == "succeeded":
            budget.limits = replace(budget.limits, messages=None)  # the judge's calls are not the sample's
            scoring = time.monotonic()
            scores, scorer_error = await _score(setup, sample, result.output)
            score_s = time.monotonic() - scoring
            if scorer_error:
                error, error_kind = scorer_error, "scorer_error"
    finally:
        current_events.reset(tokens[0])
        current_budget.reset(tokens[1])
    artifacts = sorted(str(p.relative_to(setup.run_dir)) for p in artifact_dir.rglob("*") if p.is_file()) \
        if artifact_dir.exists() else []
    record = SampleRecord(
        id=sample.id, epoch=epoch, input=sample.input, target=sample.target, output=result.output,
        scores=scores, status=result.status if not error_kind == "scorer_error" else "failed",
        error=error, error_kind=error_kind, usage=budget.usage.to_dict(), time_s=round(time.monotonic() - start, 3),
        working_s=working, waiting_s=waiting, limit=result.limit,
        started_at=started, finished_at=now_iso(), artifacts=artifacts,
        metadata={**sample.metadata, "retries": retries},
    )
    log.emit("sample_end", status=record.status, error=error, limit=record.limit, time_s=record.time_s,
             working_s=working, waiting_s=waiting, scores={k: v.get("value") for k, v in scores.items()},
             score_s=round(score_s, 4))
    return record


async def _score(setup: EvalSetup, sample: Any, output: Any) -> tuple[dict[str, dict[str, Any]], str | None]:
    answer = extract_answer(output, setup.suite.spec.answer_field)
    ctx = ScoreContext(judge_model=setup.judge_model, seed=setup.seed, cache=setup.cache)
    scores: dict[str, dict[str, Any]] = {}
    for spec in setup.suite.spec.scorers:
        fn = get_scorer(spec.name, setup.spec.scorers)
        try:
            score: Score = await fn(sample, output, answer, ctx, **(spec.args or {}))
        except Exception as exc:  # a bad row or a failing judge fails this sample, not the eval
            return scores, f"scorer '{spec.name}': {one_line(exc)}"
        scores[spec.name] = score.to_dict()
    return scores, None


async def run_bounded(todo: list[tuple[Any, int]], one: Callable[[Any, int], Awaitable[None]],
                      concurrency: int) -> None:
    """``one(sample, epoch)`` for every pair, ``concurrency`` at a time; on failure or cancellation the
    others are cancelled and awaited, so no task outlives the evaluation."""
    semaphore = asyncio.Semaphore(concurrency)

    async def bounded(sample: Any, epoch: int) -> None:
        async with semaphore:
            await one(sample, epoch)

    tasks = [asyncio.create_task(bounded(s, e)) for s, e in todo]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
