"""A paperworks run directory as an Inspect AI eval log (``paperworks export RUN --format inspect``).

The log is built from inspect_ai's own pydantic types (``EvalLog``, ``EvalSample``, ``EvalResults``,
``ModelEvent``, ``ToolEvent`` ...) and written by ``inspect_ai.log.write_eval_log``, so ``inspect view``
and ``read_eval_log`` open it. What maps to what:

- run.json → ``EvalSpec`` (task ``paperworks/<suite>``, model, epochs, limits, git revision), the
  status (succeeded → success, failed → error, cancelled → cancelled, else started) and the times;
- each ``samples.jsonl`` record → one ``EvalSample``: input, target, the workflow's answer as the
  output completion, the conversation (from the sample's ``model_call`` / ``tool_call`` events and the
  prompts they point at) as ``messages``, one Inspect ``Score`` per paperworks scorer (the same
  number as ``value``; ``passed``, the scorer's details in its metadata), usage as ``ModelUsage``,
  error and limit;
- events → ``ModelEvent`` per model call (its full prompt as input, its reply and tokens as output),
  ``ToolEvent`` per tool call, ``SampleLimitEvent`` per limit, ``ScoreEvent`` per score;
- ``results.json`` → ``EvalResults``: one ``EvalScore`` per scorer whose metrics are paperworks' own
  figures (``accuracy``, ``mean``, ``pass@k``, grouped ones as ``accuracy[level=3]``; each with its
  stderr and n in the metric's metadata, and accuracy's stderr also as Inspect's usual ``stderr``
  metric); the per-sample time, token and cost means go to the results' metadata. Numbers are copied,
  not recomputed, so Inspect shows what paperworks reported.

A single-workflow run (``paperworks run``) becomes a log with one sample and no scores.

The parts, one idea each: ``inspect_run`` reads the run directory, ``inspect_transcript`` maps messages
and events, ``inspect_scores`` scores and metrics, ``inspect_samples`` one sample record; this module
assembles the ``EvalLog`` and writes it.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.core.errors import UserError
from paperworks.eval.records import SampleRecord
from paperworks.integrations.inspect_run import _read_jsonl, _records, _results, read_run
from paperworks.integrations.inspect_samples import _error, answer_text, eval_sample
from paperworks.integrations.inspect_scores import eval_results, inspect_score
from paperworks.integrations.inspect_transcript import chat_message, conversation, inspect_events

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

__all__ = ["FORMATS", "answer_text", "build_log", "chat_message", "conversation", "default_out", "eval_results",
           "eval_sample", "export_inspect", "inspect_events", "inspect_score", "read_run"]

FORMATS = ("inspect",)
"""Formats ``paperworks export`` writes."""

_STATUS = {"succeeded": "success", "failed": "error", "cancelled": "cancelled"}


def _require_inspect() -> None:
    try:
        import inspect_ai  # noqa: F401
    except ImportError as exc:
        raise UserError("export --format inspect needs inspect_ai: pip install 'paperworks[ecosystem]'") from exc


def build_log(run_dir: str | Path) -> EvalLog:
    """The Inspect ``EvalLog`` of a paperworks eval (or single workflow) run directory."""
    _require_inspect()
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalPlan,
        EvalPlanStep,
        EvalRevision,
        EvalSpec,
        EvalStats,
    )
    from inspect_ai.model import ModelUsage

    path, record = read_run(run_dir)
    events = _read_jsonl(path / "events.jsonl")
    model = str(record.get("model") or "unknown")
    run_id = str(record.get("id") or path.name)
    if record.get("kind") == "eval":
        records = _records(path)
        results = _results(path, record, records)
        by_sample: dict[str, list[dict[str, Any]]] = {}
        for e in events:
            if isinstance(e.get("sample"), str):
                by_sample.setdefault(e["sample"], []).append(e)
        samples = [eval_sample(r, by_sample.get(r.key, []), path, model, uuid=f"{run_id}-{r.key}",
                               limits=record.get("limits") or {}) for r in records]
        scorers = list(dict.fromkeys(n for r in records for n in r.scores))
        task, ids = f"paperworks/{record.get('suite')}", list(record.get("sample_ids") or [])
        epochs = int(record.get("epochs") or 1)
        eval_results_ = eval_results(results, scorers, len(ids) * epochs or len(samples), len(samples))
        task_version: Any = record.get("suite_version") or 0
        dataset = EvalDataset(name=str(record.get("suite")), location=record.get("suite_path"), samples=len(ids),
                              sample_ids=ids)
    else:
        rec = SampleRecord(id=run_id, epoch=1, input=record.get("input") or {}, target=None,
                           output=record.get("output"), status=str(record.get("status") or ""),
                           error=record.get("error"), usage=record.get("usage") or {}, limit=record.get("limit"),
                           working_s=record.get("working_s"),
                           time_s=float(record.get("elapsed_s") or 0.0), started_at=str(record.get("created_at") or ""),
                           finished_at=str(record.get("finished_at") or ""))
        samples = [eval_sample(rec, events, path, model, uuid=run_id, limits=record.get("limits") or {})]
        task, ids, epochs, task_version = f"paperworks/{record.get('workflow')}", [run_id], 1, 0
        eval_results_ = None
        dataset = EvalDataset(name=str(record.get("workflow")), samples=1, sample_ids=ids)
    limits = record.get("limits") or {}

    def whole(key: str) -> int | None:
        value = limits.get(key)
        return int(math.ceil(value)) if isinstance(value, int | float) else None

    args = record.get("args") or {}
    usage = ModelUsage()
    for s in samples:
        for u in s.model_usage.values():
            usage = usage + u
    versions = record.get("versions") or {}
    spec = EvalSpec(
        created=str(record.get("created_at") or datetime.now(tz=UTC).isoformat()), task=task,
        task_version=task_version, task_id=run_id, run_id=run_id, eval_id=run_id,
        task_args={"workflow": record.get("workflow"), "config": args.get("config") or record.get("config") or {}},
        solver=f"paperworks/{record.get('workflow')}", dataset=dataset, model=model,
        config=EvalConfig(epochs=epochs, limit=args.get("limit"), token_limit=whole("tokens"),
                          time_limit=whole("time_s"), working_limit=whole("working_time_s"),
                          cost_limit=limits.get("cost"), max_samples=args.get("concurrency")),
        revision=EvalRevision(type="git", origin="", commit=str(record["git_sha"])) if record.get("git_sha") else None,
        packages={k: str(v) for k, v in versions.items() if k != "python"},
        metadata={"paperworks_run": str(path), "kind": record.get("kind"), "seed": record.get("seed"),
                  "judge_model": record.get("judge_model"), "skipped_scorers": record.get("skipped_scorers")},
    )
    status = _STATUS.get(str(record.get("status")), "started")
    plan = EvalPlan(steps=[EvalPlanStep(solver=f"paperworks/{record.get('workflow')}",
                                        params=args.get("config") or record.get("config") or {})])
    return EvalLog(
        status=status, eval=spec, plan=plan, results=eval_results_,  # type: ignore[arg-type]
        stats=EvalStats(started_at=str(record.get("created_at") or ""),
                        completed_at=str(record.get("finished_at") or ""),
                        model_usage={model: usage} if usage.total_tokens or usage.total_cost else {}),
        error=_error(record.get("error") if status == "error" else None), samples=samples)


def default_out(run_dir: Path, log: EvalLog) -> Path:
    """``RUN_DIR/inspect/<created>_<task>_<id>.eval``: Inspect's own naming, so ``inspect view --log-dir
    RUN_DIR/inspect`` lists it."""
    stamp = log.eval.created.replace(":", "-").split("+")[0]
    task = log.eval.task.replace("/", "-")
    return run_dir / "inspect" / f"{stamp}_{task}_{log.eval.run_id}.eval"


def export_inspect(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the Inspect log of ``run_dir`` to ``out`` (``.eval`` or ``.json``); returns where it went.

    Everything is checked (the run, the output's suffix) before anything is written."""
    _require_inspect()
    if out is not None and Path(out).suffix not in (".eval", ".json"):
        raise UserError(f"--out {out}: expected a file name ending in .eval or .json (the Inspect log formats)")
    from inspect_ai.log import write_eval_log

    path, _ = read_run(run_dir)
    log = build_log(path)
    target = Path(out) if out is not None else default_out(path, log)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(target), format="json" if target.suffix == ".json" else "eval")
    return target
