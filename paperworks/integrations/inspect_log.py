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
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.core.errors import UserError
from paperworks.eval.records import SampleRecord

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import ChatMessage, ModelOutput, StopReason

FORMATS = ("inspect",)
"""Formats ``paperworks export`` writes."""

_STATUS = {"succeeded": "success", "failed": "error", "cancelled": "cancelled"}
_LIMIT = {"time": "time", "working_time": "working", "tokens": "token", "cost": "cost"}
"""paperworks' limit kinds → Inspect's ``EvalSampleLimitType``."""
_LIMIT_FIELD = {"time": "time_s", "working_time": "working_time_s", "tokens": "tokens", "cost": "cost"}
"""... → the field of run.json ``limits`` holding the bound."""


def _require_inspect() -> None:
    try:
        import inspect_ai  # noqa: F401
    except ImportError as exc:
        raise UserError("export --format inspect needs inspect_ai: pip install 'paperworks[ecosystem]'") from exc


# -- reading the run ---------------------------------------------------------------------------------
def read_run(run_dir: str | Path) -> tuple[Path, dict[str, Any]]:
    """The run directory and its run.json; a one-line ``UserError`` for anything that is not a
    finished-or-not paperworks run directory of a kind the exporter knows."""
    path = Path(run_dir).expanduser()
    if not path.is_dir():
        from paperworks.core.runs import RunDir

        path = RunDir.open(str(run_dir)).path  # a run id; a one-line error when there is none
    record_path = path / "run.json"
    if not record_path.is_file():
        raise UserError(f"{run_dir}: not a paperworks run directory (no run.json)")
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{record_path}: unreadable run record ({type(exc).__name__})") from exc
    if not isinstance(record, dict):
        raise UserError(f"{record_path}: expected a JSON object")
    kind = record.get("kind")
    if kind == "eval":
        if not (path / "samples.jsonl").is_file():
            raise UserError(f"{run_dir}: eval run has no samples.jsonl (no sample finished yet)")
    elif kind != "run":
        raise UserError(f"{run_dir}: a '{kind}' run cannot be exported; export an eval run or a workflow run")
    return path, record


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not path.is_file():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line of a killed run
        if isinstance(row, dict):
            rows.append(row)
    return rows


def _records(path: Path) -> list[SampleRecord]:
    from paperworks.eval.samples_log import SamplesLog

    return sorted(SamplesLog(path / "samples.jsonl").read(), key=lambda r: (r.id, r.epoch))


def _results(path: Path, record: dict[str, Any], records: list[SampleRecord]) -> dict[str, Any]:
    """results.json, or (for a run killed before writing it) the same figures computed from the records."""
    results_path = path / "results.json"
    if results_path.is_file():
        try:
            data = json.loads(results_path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return data
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(f"{results_path}: unreadable results ({type(exc).__name__})") from exc
    from dataclasses import asdict

    from paperworks.eval.metrics import compute_results

    return asdict(compute_results(records, suite=str(record.get("suite")), model=str(record.get("model")),
                                  epochs=int(record.get("epochs") or 1), limited=bool(record.get("limited")),
                                  elapsed_s=float(record.get("elapsed_s") or 0.0)))


# -- messages and events -----------------------------------------------------------------------------
def _text(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in value)
    return "" if value is None else str(value)


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return {"value": value}
    return value if isinstance(value, dict) else ({} if value is None else {"value": value})


def _tool_calls(calls: list[Any] | None) -> list[Any] | None:
    from inspect_ai.tool import ToolCall

    out = []
    for i, call in enumerate(calls or []):
        if not isinstance(call, dict):
            continue
        fn: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
        out.append(ToolCall(id=str(call.get("id") or f"call_{i}"), function=str(fn.get("name")),
                            arguments=_arguments(fn.get("arguments"))))
    return out or None


def chat_message(msg: dict[str, Any]) -> ChatMessage:
    """One OpenAI-style message dict (what paperworks sends its models) as an Inspect ``ChatMessage``."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser

    role, content = msg.get("role"), _text(msg.get("content"))
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content, tool_calls=_tool_calls(msg.get("tool_calls")))
    if role == "tool":
        return ChatMessageTool(content=content, tool_call_id=msg.get("tool_call_id"), function=msg.get("name"))
    return ChatMessageUser(content=content)


def _model_output(model: str, text: str, calls: list[Any] | None, finish: Any, prompt_tokens: int = 0,
                  completion_tokens: int = 0, cost: float | None = None, time_s: float | None = None) -> ModelOutput:
    from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput, ModelUsage

    stops: dict[Any, StopReason] = {"stop": "stop", "max_tokens": "max_tokens", "length": "max_tokens",
                                    "model_length": "model_length", "tool_calls": "tool_calls",
                                    "content_filter": "content_filter"}
    stop: StopReason = stops.get(finish, "unknown")
    message = ChatMessageAssistant(content=text, tool_calls=_tool_calls(calls), model=model)
    usage = ModelUsage(input_tokens=prompt_tokens, output_tokens=completion_tokens,
                       total_tokens=prompt_tokens + completion_tokens, total_cost=cost)
    return ModelOutput(model=model, choices=[ChatCompletionChoice(message=message, stop_reason=stop)],
                       usage=usage, time=time_s)


def _tool_infos(tools: Any) -> list[Any]:
    from inspect_ai.tool import ToolInfo

    out = []
    for tool in tools or []:
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if not isinstance(fn, dict) or not fn.get("name"):
            continue
        try:
            out.append(ToolInfo.model_validate({"name": fn["name"], "description": fn.get("description") or "",
                                                "parameters": fn.get("parameters") or {}}))
        except ValueError:  # a schema Inspect's ToolParams cannot hold: keep the name and description
            out.append(ToolInfo(name=fn["name"], description=fn.get("description") or ""))
    return out


def _when(t: Any) -> datetime:
    return datetime.fromtimestamp(float(t), tz=UTC) if isinstance(t, int | float) else datetime.now(tz=UTC)


def _iso(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _prompt(run_dir: Path, event: dict[str, Any]) -> dict[str, Any]:
    from paperworks.eval.transcript import load_prompt

    return load_prompt(run_dir, event) or {}


def conversation(events: list[dict[str, Any]], run_dir: Path) -> list[ChatMessage]:
    """A sample's messages: the last model call's full prompt plus its reply, then any tool results after
    it; without a stored prompt, rebuilt turn by turn from the events."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool

    calls = [i for i, e in enumerate(events) if e.get("type") == "model_call"]
    if not calls:
        return []
    last = events[calls[-1]]
    prompt = _prompt(run_dir, last).get("messages")
    messages: list[ChatMessage] = []
    if isinstance(prompt, list):
        messages = [chat_message(m) for m in prompt if isinstance(m, dict)]
        tail = events[calls[-1]:]
    else:
        first = _prompt(run_dir, events[calls[0]]).get("messages") or []
        messages = [chat_message(m) for m in first if isinstance(m, dict)]
        tail = events[calls[0]:]
    from paperworks.eval.transcript import load_observation

    for event in tail:
        if event.get("type") == "model_call":
            messages.append(ChatMessageAssistant(content=str(event.get("text") or ""), model=event.get("model"),
                                                 tool_calls=_tool_calls(event.get("tool_calls"))))
        elif event.get("type") == "tool_call":
            ok = event.get("ok", True)
            messages.append(ChatMessageTool(
                content=load_observation(run_dir, event), function=str(event.get("tool")),
                tool_call_id=event.get("id"),
                error=None if ok else _tool_error(load_observation(run_dir, event))))
    return messages


def _tool_error(text: str) -> Any:
    from inspect_ai.tool import ToolCallError

    return ToolCallError(type="unknown", message=text or "tool failed")


def inspect_events(events: list[dict[str, Any]], run_dir: Path, start: float | None = None) -> list[Any]:
    """The sample's model calls, tool calls and limits as Inspect events (in order)."""
    from inspect_ai.event import ModelEvent, SampleLimitEvent, ToolEvent
    from inspect_ai.model import GenerateConfig

    out: list[Any] = []
    t0 = start if start is not None else next((e["t"] for e in events if isinstance(e.get("t"), int | float)), 0.0)
    pending: dict[str, str] = {}  # tool name -> id of the last call of that tool the model asked for
    for event in events:
        kind, t = event.get("type"), event.get("t")
        working = max(0.0, float(t) - float(t0)) if isinstance(t, int | float) else 0.0
        if kind == "model_call":
            prompt = _prompt(run_dir, event)
            model = str(event.get("model") or prompt.get("model") or "unknown")
            latency = event.get("latency_s")
            output = _model_output(model, str(event.get("text") or ""), event.get("tool_calls"),
                                   event.get("finish_reason"), int(event.get("prompt_tokens") or 0),
                                   int(event.get("completion_tokens") or 0), event.get("cost"), latency)
            for call in event.get("tool_calls") or []:
                if isinstance(call, dict) and call.get("name"):
                    pending[str(call["name"])] = str(call.get("id") or "")
            settings = {k: v for k, v in (prompt.get("settings") or {}).items()
                        if k in ("max_tokens", "temperature", "top_p", "top_k", "seed", "stop_seqs")}
            out.append(ModelEvent(
                model=model, input=[chat_message(m) for m in prompt.get("messages") or [] if isinstance(m, dict)],
                tools=_tool_infos(prompt.get("tools")), tool_choice="auto", config=GenerateConfig(**settings),
                output=output, timestamp=_when(t), working_start=working,
                working_time=float(latency) if isinstance(latency, int | float) else None,
                cache="read" if event.get("cached") else None,
                metadata={"waiting_s": event.get("waiting_s"), "sample": event.get("sample")}))
        elif kind == "tool_call":
            from paperworks.eval.transcript import load_observation

            name = str(event.get("tool"))
            observation = load_observation(run_dir, event)
            ok = event.get("ok", True)
            out.append(ToolEvent(
                id=str(event.get("id") or pending.get(name) or f"tool_{len(out)}"), function=name,
                arguments=_arguments(event.get("arguments")), result=observation,
                error=None if ok else _tool_error(observation), failed=None if ok else True,
                timestamp=_when(t), working_start=working,
                working_time=event.get("latency_s") if isinstance(event.get("latency_s"), int | float) else None))
        elif kind == "limit":
            limit_type = _LIMIT.get(str(event.get("kind")), "custom")
            out.append(SampleLimitEvent(type=limit_type, message=str(event.get("message") or "limit"),  # type: ignore[arg-type]
                                        timestamp=_when(t), working_start=working))
    return out


# -- samples -----------------------------------------------------------------------------------------
def _input_text(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        return str(next(iter(value.values())))
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _target(value: Any) -> str | list[str]:
    if value is None:
        return ""
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value)


def answer_text(output: Any, scores: dict[str, dict[str, Any]]) -> str:
    """The completion Inspect shows: the answer the scorers read, else the output's ``answer``."""
    for score in scores.values():
        if isinstance(score, dict) and score.get("answer") is not None:
            return str(score["answer"])
    if isinstance(output, dict) and output.get("answer") is not None:
        return str(output["answer"])
    return "" if output is None else (output if isinstance(output, str) else json.dumps(output, default=str))


def inspect_score(score: dict[str, Any]) -> Any:
    """A paperworks ``Score.to_dict()`` as an Inspect ``Score``: the same number as ``value``."""
    from inspect_ai.scorer import Score

    value = score.get("value")
    number = float(value) if isinstance(value, int | float) and math.isfinite(value) else 0.0
    return Score(value=number, answer=score.get("answer"), explanation=score.get("explanation"),
                 metadata={"passed": score.get("passed"), "details": score.get("details") or {}})


def _usage(model: str, usage: dict[str, Any]) -> dict[str, Any]:
    from inspect_ai.model import ModelUsage

    if not usage:
        return {}
    prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    total = usage.get("total_tokens")
    return {model: ModelUsage(input_tokens=prompt, output_tokens=completion,
                              total_tokens=int(total) if isinstance(total, int | float) else prompt + completion,
                              total_cost=float(usage.get("cost") or 0.0))}


def _error(message: str | None) -> Any:
    from inspect_ai._util.error import EvalError

    return EvalError(message=message, traceback="", traceback_ansi="") if message else None


def eval_sample(rec: SampleRecord, events: list[dict[str, Any]], run_dir: Path, model: str,
                uuid: str | None = None, limits: dict[str, Any] | None = None) -> EvalSample:
    """One paperworks record (with its events) as an Inspect ``EvalSample``; ``limits``: run.json's."""
    from inspect_ai.event import ScoreEvent
    from inspect_ai.log import EvalSample, EvalSampleLimit

    messages = conversation(events, run_dir)
    answer = answer_text(rec.output, rec.scores)
    last = next((e for e in reversed(events) if e.get("type") == "model_call"), None)
    output = _model_output(model, answer, None, (last or {}).get("finish_reason") or "stop",
                           int(rec.usage.get("prompt_tokens") or 0), int(rec.usage.get("completion_tokens") or 0),
                           rec.usage.get("cost"), rec.time_s)
    scores = {name: inspect_score(s) for name, s in rec.scores.items() if isinstance(s, dict)}
    evts = inspect_events(events, run_dir)
    end = next((e.get("t") for e in reversed(events) if isinstance(e.get("t"), int | float)), None)
    for name, score in scores.items():
        evts.append(ScoreEvent(score=score, target=_target(rec.target), scorer=name,
                               timestamp=_when(end), working_start=float(rec.time_s or 0.0)))
    limit = None
    if rec.limit:
        bound = (limits or {}).get(_LIMIT_FIELD.get(rec.limit, rec.limit))
        limit = EvalSampleLimit(type=_LIMIT.get(rec.limit, "custom"),  # type: ignore[arg-type]
                                limit=float(bound) if isinstance(bound, int | float) else 0.0, reason=rec.error)
    if not messages:
        from inspect_ai.model import ChatMessageUser

        messages = [ChatMessageUser(content=_input_text(rec.input))]
    return EvalSample(
        id=rec.id, epoch=rec.epoch, input=_input_text(rec.input), target=_target(rec.target),
        messages=messages, output=output, scores=scores or None,
        metadata={**(rec.metadata or {}), "paperworks": {"status": rec.status, "output": rec.output,
                                                         "error_kind": rec.error_kind, "artifacts": rec.artifacts,
                                                         "waiting_s": rec.waiting_s}},
        events=evts, model_usage=_usage(model, rec.usage), started_at=_iso(rec.started_at),
        completed_at=_iso(rec.finished_at), total_time=rec.time_s, working_time=rec.working_s,
        uuid=uuid, error=_error(rec.error), limit=limit)


# -- results -----------------------------------------------------------------------------------------
def eval_results(results: dict[str, Any], scorers: list[str], total: int, completed: int) -> Any:
    """paperworks' metrics as Inspect ``EvalResults`` (values copied, not recomputed)."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    metrics: dict[str, dict[str, Any]] = results.get("metrics") or {}
    names = list(dict.fromkeys([*scorers, *(k.split("/", 1)[0] for k in metrics if "/" in k)]))
    per_sample = {"time_s", "working_s", "waiting_s", "tokens", "cost"}
    eval_scores = []
    for name in names:
        if name in per_sample:
            continue
        table: dict[str, Any] = {}
        for key, m in metrics.items():
            if not key.startswith(name + "/") or not isinstance(m, dict):
                continue
            metric = key[len(name) + 1:]
            table[metric] = EvalMetric(name=metric, value=float(m.get("value") or 0.0),
                                       metadata={"stderr": m.get("stderr"), "n": m.get("n")})
            if metric == "accuracy" and m.get("stderr") is not None:
                table["stderr"] = EvalMetric(name="stderr", value=float(m["stderr"]))
        if table:
            scored = next((int(m.get("n") or 0) for k, m in metrics.items() if k.startswith(name + "/")), None)
            eval_scores.append(EvalScore(name=name, scorer=name, scored_samples=scored, metrics=table))
    return EvalResults(total_samples=total, completed_samples=completed, scores=eval_scores,
                       metadata={"paperworks_metrics": {k: v for k, v in metrics.items()
                                                        if k.split("/", 1)[0] in per_sample},
                                 "errors": results.get("errors") or {}, "usage": results.get("usage") or {},
                                 "elapsed_s": results.get("elapsed_s"), "limited": results.get("limited")})


# -- the log -----------------------------------------------------------------------------------------
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
