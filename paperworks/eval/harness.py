"""``paperworks eval``: a workflow on a suite with a model — concurrent, resumable, recorded.

Task = suite data + workflow + scorers. Each (sample, epoch) is one LangGraph thread in the run's
checkpointer; finished ones are in ``samples.jsonl``. Resuming skips those and continues the
others from their last checkpoint, so a killed evaluation ends with the same records.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from paperworks.core.budget import Limits, Usage
from paperworks.core.errors import UserError, one_line
from paperworks.core.lock import RunLock
from paperworks.core.runs import RunDir, now_iso
from paperworks.core.seeding import seed_everything
from paperworks.eval.metrics import compute_results
from paperworks.eval.options import DISPLAYS, LOG_LEVELS, check_choice, check_limit, parse_tags
from paperworks.eval.records import Results, SampleRecord
from paperworks.eval.sample_runner import EvalSetup, run_bounded, run_sample
from paperworks.eval.samples_log import SamplesLog
from paperworks.eval.suite import open_suite, unavailable_scorers, without_scorers

JUDGED = {"judge"}
"""Scorers that need ``--judge-model``."""
MAX_PAIRS = 1_000_000
"""Most (sample, epoch) pairs one eval may hold."""
logger = logging.getLogger("paperworks.eval")


@dataclass
class EvalArgs:
    """What the user asked for (recorded in run.json ``args``)."""

    suite: str
    model: str
    judge_model: str | None = None
    limit: int | list[int] | None = None
    """The first N samples, or ``[A, B]``: the A-th to the B-th (from 1, inclusive; ``--limit A-B``)."""
    sample_ids: list[str] = field(default_factory=list)
    epochs: int | None = None
    seed: int = 0
    concurrency: int = 4
    cache: bool = False
    time_limit: float | None = None
    working_limit: float | None = None
    token_limit: int | None = None
    cost_limit: float | None = None
    log_dir: str | None = None
    fail_on_error: float | None = None
    executor: str = "local"
    ray_address: str | None = None
    recursion_limit: int = 100
    max_retries: int | None = None
    timeout: float | None = None
    data: str | None = None
    """For suites built from a user's data file (``histbench``): the workbook."""
    attachments: str | None = None
    """... and its attachment folder (default: found beside the workbook)."""
    config: dict[str, Any] = field(default_factory=dict)
    """Workflow settings over the suite's own ``config`` (``-c key=value``)."""
    generation: dict[str, Any] = field(default_factory=dict)
    """Generation settings over the suite's own ``generation`` (``--gen key=value``)."""
    message_limit: int | None = None
    """Model messages per sample (``--message-limit``): the call past it is refused and the sample ends."""
    tags: list[str] = field(default_factory=list)
    """``--tags``: labels recorded in run.json and shown by ``paperworks runs`` and ``view``."""
    metadata: dict[str, str] = field(default_factory=dict)
    """``--metadata key=value``: recorded in run.json and shown by ``view``."""
    display: str = "full"
    """``--display``: full, conversation, rich, plain or none (kept by ``--resume``)."""
    log_level: str = "warning"
    """``--log-level``: debug, info, warning or error (kept by ``--resume``)."""


def check_args(args: EvalArgs) -> None:
    """The options alone, before anything is loaded: one-line ``UserError``s naming the flag."""
    if args.epochs is not None and (isinstance(args.epochs, bool) or args.epochs < 1):
        raise UserError(f"--epochs must be at least 1, got {args.epochs}")
    args.limit = check_limit(args.limit)
    if isinstance(args.concurrency, bool) or not isinstance(args.concurrency, int) or args.concurrency < 1:
        raise UserError(f"--max-samples (--concurrency) must be at least 1, got {args.concurrency}")
    args.tags = parse_tags(args.tags)
    if not isinstance(args.metadata, dict) or not all(isinstance(v, str) for v in args.metadata.values()):
        raise UserError(f"--metadata must be key=value pairs, got {args.metadata!r}")
    args.display = check_choice(args.display, DISPLAYS, "--display") or "full"
    args.log_level = check_choice(args.log_level, LOG_LEVELS, "--log-level") or "warning"
    if args.executor not in ("local", "ray"):
        raise UserError(f"--executor must be 'local' or 'ray', got '{args.executor}'")
    if args.max_retries is not None and args.max_retries < 0:
        raise UserError(f"--max-retries must be 0 or more, got {args.max_retries}")
    if args.timeout is not None and not args.timeout > 0:
        raise UserError(f"--timeout must be greater than 0, got {args.timeout}")
    if args.recursion_limit < 1:
        raise UserError(f"--recursion-limit must be at least 1, got {args.recursion_limit}")
    if args.fail_on_error is not None and not 0 <= args.fail_on_error <= 1:
        raise UserError(f"--fail-on-error must be a fraction between 0 and 1, got {args.fail_on_error}")
    Limits(time_s=args.time_limit, working_time_s=args.working_limit, tokens=args.token_limit,
           cost=args.cost_limit, messages=args.message_limit).validate()


def create_eval(args: EvalArgs) -> RunDir:
    """Validate the options, the suite (scorers and targets included) and the model, then make the
    eval's run directory. Nothing is created when anything is wrong."""
    from paperworks.models.gateway import check_model
    from paperworks.models.types import validate_generation

    check_args(args)
    suite = open_suite(args.suite, args.data, args.attachments)
    skipped = unavailable_scorers(suite)
    if skipped and len(skipped) == len(suite.spec.scorers):
        raise UserError(f"suite '{suite.spec.name}': no scorer can run here: "
                        + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    suite = without_scorers(suite, set(skipped))
    samples = suite.select(args.limit, args.sample_ids or None)
    validate_generation(suite.spec.generation, f"suite '{suite.spec.name}': generation")
    validate_generation(args.generation, "--gen")
    if args.config:  # the merged settings must validate before anything is created
        from paperworks.workflows.registry import get_workflow

        get_workflow(suite.spec.workflow).parse_config({**(suite.spec.config or {}), **args.config})
    check_model(args.model)
    if any(s.name in JUDGED for s in suite.spec.scorers):
        if not args.judge_model:
            raise UserError(f"suite '{suite.spec.name}' is scored by a judge model: pass --judge-model")
        check_model(args.judge_model)
    defaults = suite.spec.limits

    def pick(flag: Any, name: str) -> Any:
        return flag if flag is not None else getattr(defaults, name, None)

    limits = Limits(time_s=pick(args.time_limit, "time_s"), working_time_s=pick(args.working_limit, "working_time_s"),
                    tokens=pick(args.token_limit, "tokens"), cost=pick(args.cost_limit, "cost"),
                    messages=pick(args.message_limit, "messages")).validate()
    epochs = args.epochs if args.epochs is not None else suite.spec.epochs
    if len(samples) * epochs > MAX_PAIRS:  # the (sample, epoch) list is built in memory: refuse, don't hang
        raise UserError(f"--epochs {epochs} × {len(samples)} samples is {len(samples) * epochs:,} sample runs; "
                        f"at most {MAX_PAIRS:,} per eval")
    root = Path(args.log_dir) if args.log_dir else None
    from paperworks.models.local.smollm import local_weights  # cheap: no torch, no llama.cpp load

    return RunDir.create(f"eval-{suite.spec.name}", {
        "kind": "eval", "suite": suite.spec.name, "suite_version": suite.spec.version,
        "suite_path": str(suite.folder.resolve()), "workflow": suite.spec.workflow,
        "suite_data": str(Path(args.data).resolve()) if args.data else None,
        "suite_attachments": str(Path(args.attachments).resolve()) if args.attachments else None,
        "model": args.model, "judge_model": args.judge_model, "seed": args.seed, "epochs": epochs,
        "local_weights": local_weights(args.model, args.judge_model),
        "limits": limits.to_dict(), "sample_ids": [s.id for s in samples],
        "limited": bool(args.limit is not None or args.sample_ids), "args": asdict(args),
        "skipped_scorers": skipped, "tags": list(args.tags), "metadata": dict(args.metadata),
    }, root=root)


@dataclass
class Progress:
    """Live counters for the progress display."""

    total: int
    done: int = 0
    passed: int = 0
    scored: int = 0
    errors: int = 0
    usage: Usage = field(default_factory=Usage)
    started: float = field(default_factory=time.monotonic)

    def add(self, record: SampleRecord) -> None:
        self.done += 1
        self.errors += record.error is not None
        self.usage.add(Usage.from_dict(record.usage))
        first = next(iter(record.scores.values()), None)
        if first is not None and first.get("passed") is not None:
            self.scored += 1
            self.passed += bool(first["passed"])
        elif record.error is not None:
            self.scored += 1

    @property
    def accuracy(self) -> float | None:
        return self.passed / self.scored if self.scored else None


ProgressFn = Callable[[Progress, SampleRecord | None], None]


def pending_work(run: RunDir, log: SamplesLog) -> tuple[EvalSetup, list[tuple[Any, int]], list[SampleRecord]]:
    """The setup, the (sample, epoch) pairs still to run, and the records already finished."""
    record = run.read_record()
    if record.get("kind") != "eval":
        raise UserError(f"{run.path} is not an evaluation run")
    try:
        setup = EvalSetup.from_record(run.path, record)
        sample_ids = [str(i) for i in record["sample_ids"]]
        int(record["epochs"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a hand-edited or damaged run.json
        what = f"field {exc}" if isinstance(exc, KeyError) else one_line(exc)
        raise UserError(f"{run.record_path}: not a usable eval record ({what}); start a new eval") from exc
    by_id = {s.id: s for s in setup.suite.samples}
    missing = [i for i in sample_ids if i not in by_id]
    if missing:
        raise UserError(f"suite '{setup.suite.spec.name}' changed since the run began: samples {missing[:5]} are gone")
    log.repair()
    done = log.read()
    finished = {(r.id, r.epoch) for r in done}
    todo = [(by_id[i], e) for i in sample_ids for e in range(1, setup.epochs + 1) if (i, e) not in finished]
    return setup, todo, done


async def run_eval(run: RunDir, on_progress: ProgressFn | None = None) -> Results:
    """Run every unfinished (sample, epoch) of the eval, then write ``results.json``.

    Holds the run directory's lock throughout: a second writer is refused with one line."""
    with RunLock(run.path):
        return await _run_eval(run, on_progress)


async def _run_eval(run: RunDir, on_progress: ProgressFn | None) -> Results:
    log = SamplesLog(run.path / "samples.jsonl")
    setup, todo, done = pending_work(run, log)
    record = run.read_record()
    args = record.get("args") or {}
    seed_everything(setup.seed)
    progress = Progress(total=len(done) + len(todo))
    for r in done:
        progress.add(r)
    if on_progress:
        on_progress(progress, None)
    run.update_record(status="running", resumed_at=now_iso() if done else None)
    logger.info("eval %s: %d sample runs to do, %d done before", run.id, len(todo), len(done))
    elapsed_before = float(record.get("elapsed_s", 0.0))
    start = time.monotonic()

    def finished(rec: SampleRecord) -> None:
        log.append(rec)
        progress.add(rec)
        logger.info("sample %s: %s%s (%.1fs)", rec.key, rec.status, f" ({rec.error})" if rec.error else "", rec.time_s)
        if on_progress:
            on_progress(progress, rec)

    status = "failed"
    try:
        if args.get("executor") == "ray":
            from paperworks.eval.ray_executor import run_with_ray

            await run_with_ray(run, setup, todo, finished, args.get("ray_address"), int(args.get("concurrency", 4)))
        else:
            await _run_local(run, setup, todo, finished, int(args.get("concurrency", 4)))
        status = "succeeded"
    except (asyncio.CancelledError, KeyboardInterrupt):
        status = "cancelled"
        raise
    finally:
        elapsed = elapsed_before + time.monotonic() - start
        run.update_record(status=status, elapsed_s=round(elapsed, 3), finished_at=now_iso())
    results = compute_results(log.read(), suite=setup.suite.spec.name, model=setup.model, epochs=setup.epochs,
                              limited=bool(record.get("limited")), elapsed_s=round(elapsed, 3),
                              scorers=[s.name for s in setup.suite.spec.scorers],
                              group_by=setup.suite.spec.group_by)
    write_results(run, results)
    return results


def write_results(run: RunDir, results: Results) -> None:
    """``results.json`` (atomically)."""
    import json
    import os

    path = run.path / "results.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(results), indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


async def _run_local(run: RunDir, setup: EvalSetup, todo: list[tuple[Any, int]],
                     finished: Callable[[SampleRecord], None], concurrency: int) -> None:
    """Samples as asyncio tasks over one compiled graph and one checkpointer, ``concurrency`` at a time."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    events = run.events()
    async with AsyncSqliteSaver.from_conn_string(str(run.checkpoints_path)) as saver:
        graph = setup.spec.build_graph(setup.workflow_config).compile(checkpointer=saver)

        async def one(sample: Any, epoch: int) -> None:
            finished(await run_sample(setup, graph, sample, epoch, events))

        await run_bounded(todo, one, concurrency)


def error_fraction(results: Results, run: RunDir) -> float:
    """Failed (sample, epoch) pairs over all of them."""
    record = run.read_record()
    total = len(record.get("sample_ids", [])) * int(record.get("epochs", 1))
    return sum(results.errors.values()) / total if total else 0.0
