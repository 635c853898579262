"""Rollouts as real workflow runs: one step's problems are an eval (same harness, runner, graph, tools,
sandbox and limits as ``paperworks eval``) with ``epochs = N`` and sampling on; its records give the
judge's rewards and its events the exact tokens sampled.

Rewards are read from ``samples.jsonl``, written by the eval harness's scorers after the workflow thread
has ended; nothing the policy wrote (its answer text, its files, its tool outputs) is read as a reward.
Token ids and sampling log-probabilities are read from the ``model_tokens`` events the embedded
model's provider writes for each call (generation setting ``logprobs``).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.eval import harness
from paperworks.eval.samples_log import SamplesLog
from paperworks.workflows.runner import run_sync


@dataclass
class CallRecord:
    """One model call as sampled: what was fed, what was sampled, with what probability."""

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    proxies: list[float]


@dataclass
class RolloutRecord:
    """One (problem, rollout): the judge's reward and the model calls in order."""

    sample_id: str
    epoch: int
    reward: float
    """The suite's first scorer's value (0 for a failed or unfinished run): the judge's verdict."""
    passed: bool
    status: str
    calls: list[CallRecord] = field(default_factory=list)
    shaping: dict[str, float] = field(default_factory=dict)
    """Terms a declared shaping may add (reported apart; added to the reward only when asked):
    ``tool_format`` (the first model call parsed as a tool call) and the judge's own sub-metrics (the
    first scorer's ``details["metrics"]``, e.g. SPADA's ``compiled``; 0 for a failed run)."""
    tokens: int = 0
    """Tokens the run used (prompt + completion, all calls)."""


@dataclass
class StepRollouts:
    """A step's rollouts and where they were run."""

    run_dir: Path
    records: list[RolloutRecord]
    wall_s: float
    judge_s: float
    """Seconds the scorers took (summed over samples)."""


def run_rollouts(suite_dir: Path, log_dir: Path, *, model: str, epochs: int, seed: int, temperature: float,
                 concurrency: int, config: dict[str, Any], gen: dict[str, Any]) -> StepRollouts:
    """Run (or, after an interruption, finish) the eval of ``suite_dir`` with ``epochs`` rollouts per
    problem in ``log_dir`` (one eval run directory there), then collect its rollouts.

    The embedded model's default repetition penalty (1.15) is off here unless ``gen`` sets one: it reshapes
    the distribution a token is drawn from, so the recorded sampling log-probabilities would not be the
    policy's that the trainer updates (on SPADA's code replies that put the mean |log-ratio| at 0.62)."""
    started = time.monotonic()
    existing = sorted(p for p in log_dir.glob("*/run.json")) if log_dir.exists() else []
    if existing:
        run_path = existing[0].parent
        from paperworks.core.runs import RunDir

        run = RunDir(run_path)
    else:
        args = harness.EvalArgs(suite=str(suite_dir), model=model, epochs=epochs, seed=seed,
                                concurrency=concurrency, log_dir=str(log_dir), config=dict(config),
                                generation={"repetition_penalty": 1.0, **gen, "temperature": temperature,
                                            "logprobs": True})
        run = harness.create_eval(args)
    results = run_sync(harness.run_eval(run))
    del results
    records, judge_s = collect(run.path)
    return StepRollouts(run.path, records, time.monotonic() - started, judge_s)


def collect(run_path: Path) -> tuple[list[RolloutRecord], float]:
    """Every finished (sample, epoch) of an eval run with its reward and token records, in suite order;
    and the seconds its scorers took."""
    record = json.loads((run_path / "run.json").read_text(encoding="utf-8"))
    order = {sid: i for i, sid in enumerate(record.get("sample_ids") or [])}
    tokens: dict[str, list[CallRecord]] = {}
    tool_format: dict[str, float] = {}
    judge_s = 0.0
    events = run_path / "events.jsonl"
    if events.exists():
        with open(events, encoding="utf-8") as fh:
            for line in fh:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue  # a line torn by a kill
                kind = ev.get("type")
                if kind == "model_tokens" and isinstance(ev.get("sample"), str):
                    tokens.setdefault(ev["sample"], []).append(_call(ev))
                elif kind == "model_call" and isinstance(ev.get("sample"), str) and ev["sample"] not in tool_format:
                    tool_format[ev["sample"]] = 1.0 if ev.get("tool_calls") else 0.0
                elif kind == "sample_end":
                    judge_s += float(ev.get("score_s") or 0.0)
    out: list[RolloutRecord] = []
    for r in SamplesLog(run_path / "samples.jsonl").read():
        first = next(iter(r.scores.values()), None) if r.scores else None
        value = float(first.get("value") or 0.0) if first and r.error is None else 0.0
        passed = bool(first.get("passed")) if first and r.error is None else False
        calls = tokens.get(f"{r.id}#{r.epoch}", [])
        used = int((r.usage or {}).get("total_tokens") or 0)
        terms = judge_metrics(first) if first and r.error is None else {}
        terms["tool_format"] = tool_format.get(f"{r.id}#{r.epoch}", 0.0)
        out.append(RolloutRecord(sample_id=r.id, epoch=r.epoch, reward=value, passed=passed, status=r.status,
                                 calls=calls, tokens=used, shaping=terms))
    out.sort(key=lambda x: (order.get(x.sample_id, 1 << 30), x.sample_id, x.epoch))
    return out, judge_s


def judge_metrics(score: dict[str, Any]) -> dict[str, float]:
    """The finite numbers in a score's ``details["metrics"]`` (what the judge measured besides its verdict)."""
    metrics = (score.get("details") or {}).get("metrics") if isinstance(score.get("details"), dict) else None
    out: dict[str, float] = {}
    for key, value in (metrics or {}).items() if isinstance(metrics, dict) else ():
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            out[str(key)] = float(value)
    return out


def _call(ev: dict[str, Any]) -> CallRecord:
    prompt, completion = ev.get("prompt_ids"), ev.get("completion_ids")
    logprobs, proxies = ev.get("logprobs"), ev.get("proxies") or []
    if not (isinstance(prompt, list) and isinstance(completion, list) and isinstance(logprobs, list)
            and len(logprobs) == len(completion)):
        raise UserError("a model_tokens event without matching prompt_ids/completion_ids/logprobs")
    return CallRecord([int(x) for x in prompt], [int(x) for x in completion],
                      [float(x) for x in logprobs], [float(x) for x in proxies])
