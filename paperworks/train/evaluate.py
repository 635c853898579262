"""Evaluations inside a training run, each a plain ``paperworks eval`` run directory (resumable, viewable):
the held-out generated problems every few steps, and the whole eval suite for the base model and for
the trained adapter at the end. The suite's own generation settings (greedy for arith) apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperworks.eval import harness
from paperworks.workflows.runner import run_sync


@dataclass
class EvalOutcome:
    """What one evaluation measured."""

    run_dir: str
    accuracy: float | None
    stderr: float | None
    mean_reward: float | None
    samples: int
    tokens: int
    wall_s: float


def evaluate(suite: str, log_dir: Path, model: str, *, config: dict[str, Any], seed: int = 0,
             concurrency: int = 8, limit: int | None = None) -> EvalOutcome:
    """Run (or finish) ``suite`` with ``model`` in ``log_dir`` (one eval run directory there); ``limit``: its
    first N items only."""
    import json
    import time

    from paperworks.core.runs import RunDir
    from paperworks.eval.samples_log import SamplesLog

    started = time.monotonic()
    existing = sorted(log_dir.glob("*/run.json")) if log_dir.exists() else []
    if existing:
        run = RunDir(existing[0].parent)
        status = json.loads(existing[0].read_text(encoding="utf-8")).get("status")
        done = status == "succeeded" and (run.path / "results.json").is_file()
    else:
        run = harness.create_eval(harness.EvalArgs(suite=suite, model=model, seed=seed, concurrency=concurrency,
                                                   log_dir=str(log_dir), config=dict(config),
                                                   limit=limit))
        done = False
    if not done:
        run_sync(harness.run_eval(run))
    records = SamplesLog(run.path / "samples.jsonl").read()
    values: list[float] = []
    passed: list[float] = []
    tokens = 0
    for r in records:
        first = next(iter(r.scores.values()), None) if r.scores else None
        values.append(float(first.get("value") or 0.0) if first and r.error is None else 0.0)
        passed.append(1.0 if first and r.error is None and first.get("passed") else 0.0)
        tokens += int((r.usage or {}).get("total_tokens") or 0)
    n = len(records)
    acc = sum(passed) / n if n else None
    stderr = (acc * (1 - acc) / (n - 1)) ** 0.5 if acc is not None and n > 1 else None
    return EvalOutcome(run_dir=str(run.path), accuracy=acc, stderr=stderr,
                       mean_reward=sum(values) / n if n else None, samples=n, tokens=tokens,
                       wall_s=round(time.monotonic() - started, 2))
