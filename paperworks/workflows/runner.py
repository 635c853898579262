"""The durable runner: compiles a workflow with a SQLite checkpointer in the run directory, streams
node events (recorded in ``events.jsonl`` and shown by listeners), enforces the run's limits and
resumes an interrupted run without re-running finished nodes.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperworks.core.aio import run_sync
from paperworks.core.budget import Budget, Limits, Usage, current_budget
from paperworks.core.errors import LimitExceeded, ModelError, PaperworksError, UserError, one_line
from paperworks.core.events import Listener, current_events, to_jsonable
from paperworks.core.lock import RunLock
from paperworks.core.runs import RunDir, now_iso
from paperworks.core.seeding import seed_everything
from paperworks.core.timelimit import enforce_time_limits
from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import WorkflowSpec, get_workflow

DEFAULT_RECURSION_LIMIT = 100


@dataclass
class RunOutcome:
    """How a run (or one chat turn) ended."""

    run: RunDir
    status: str
    output: Any = None
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    elapsed_s: float = 0.0


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return to_jsonable(value)


def create_run(
    spec: WorkflowSpec, raw_input: Any, *, model: str, config_values: dict[str, Any] | None = None,
    limits: Limits | None = None, seed: int = 0, generation: dict[str, Any] | None = None,
    cache: bool = False, kind: str = "run", recursion_limit: int = DEFAULT_RECURSION_LIMIT,
    max_retries: int | None = None, timeout: float | None = None,
) -> RunDir:
    """Validate everything (input, settings, generation settings, limits, the model and its
    credentials), then make the run directory and its ``run.json``; nothing is created on an error."""
    from paperworks.models.gateway import check_model
    from paperworks.models.types import SEED_MAX, validate_generation

    (limits or Limits()).validate()
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise UserError(f"--seed must be an integer between 0 and {SEED_MAX}, got {seed!r}")
    if recursion_limit < 1:
        raise UserError(f"--recursion-limit must be at least 1, got {recursion_limit}")
    if max_retries is not None and max_retries < 0:
        raise UserError(f"--max-retries must be 0 or more, got {max_retries}")
    if timeout is not None and not timeout > 0:
        raise UserError(f"--timeout must be greater than 0, got {timeout}")
    validate_generation(generation or {})
    parsed_input = spec.parse_input(raw_input) if raw_input is not None else None
    config = spec.parse_config(config_values or {})
    if spec.preflight is not None:
        spec.preflight(parsed_input, config, Path.cwd())
    check_model(model)
    from paperworks.models.local.smollm import local_weights  # cheap: no torch, no llama.cpp load

    return RunDir.create(spec.name, {
        "kind": kind,
        "workflow": spec.name,
        "model": model,
        "input": parsed_input.model_dump(mode="json") if parsed_input is not None else None,
        "config": config.model_dump(mode="json") if config is not None else None,
        "limits": (limits or Limits()).to_dict(),
        "seed": seed,
        "generation": generation or {},
        "cache": cache,
        "recursion_limit": recursion_limit,
        "max_retries": max_retries,
        "timeout": timeout,
        "local_weights": local_weights(model),
        "usage": Usage().to_dict(),
        "elapsed_s": 0.0,
    })


async def execute(
    run: RunDir, update: dict[str, Any] | None = None, *, listeners: list[Listener] | None = None,
    stream: bool = False, model: str | None = None,
) -> RunOutcome:
    """Run (or continue) the run's graph to its end.

    ``update`` is the graph input: the initial state, a chat turn, or None to continue from the
    last checkpoint (a resume). ``model`` overrides the recorded model (recorded too).
    """
    with RunLock(run.path):
        return await _execute(run, update, listeners=listeners, stream=stream, model=model)


async def _execute(
    run: RunDir, update: dict[str, Any] | None, *, listeners: list[Listener] | None, stream: bool,
    model: str | None,
) -> RunOutcome:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    record = run.read_record()
    spec = get_workflow(record["workflow"])
    if model and model != record.get("model"):
        from paperworks.models.gateway import check_model

        check_model(model)
        record = run.update_record(model=model)
    config = spec.parse_config(record.get("config") or {})
    limits = Limits(**(record.get("limits") or {}))
    budget = Budget(limits, Usage.from_dict(record.get("usage") or {}), float(record.get("elapsed_s", 0.0)),
                    float(record.get("waiting_s", 0.0)))
    budget.messages = int(record.get("messages") or 0)  # a resumed run (a chat's next turn) keeps its count
    ctx = RunContext(model=record["model"], seed=int(record.get("seed", 0)),
                     generation=dict(record.get("generation") or {}), cache=bool(record.get("cache")),
                     stream=stream, run_dir=str(run.path), max_retries=record.get("max_retries"),
                     timeout_s=record.get("timeout"))
    seed_everything(ctx.seed)
    events = run.events(listeners)
    tokens = (current_events.set(events), current_budget.set(budget))
    graph_config: dict[str, Any] = {"configurable": {"thread_id": run.id},
                                    "recursion_limit": int(record.get("recursion_limit", DEFAULT_RECURSION_LIMIT))}
    run.update_record(status="running", error=None)
    events.emit("run_start", run_id=run.id, workflow=spec.name, model=ctx.model, resumed=update is None)
    status, output, error, limit = "failed", None, None, None
    try:
        async with AsyncSqliteSaver.from_conn_string(str(run.checkpoints_path)) as saver:
            graph = spec.build_graph(config).compile(checkpointer=saver)
            result = await run_thread(graph, spec, graph_config, update, record.get("input"), ctx, budget, events)
        status, output, error, limit = result.status, result.output, result.error, result.limit
    except (asyncio.CancelledError, KeyboardInterrupt):
        status, error = "cancelled", "cancelled by the user"
        raise
    finally:
        run.update_record(status=status, error=error, output=output, usage=budget.usage.to_dict(),
                          messages=budget.messages, elapsed_s=round(budget.elapsed_s, 3),
                          working_s=round(budget.working_s, 3), waiting_s=round(budget.waiting_s, 3), limit=limit,
                          finished_at=now_iso())
        events.emit("run_end", status=status, error=error, usage=budget.usage.to_dict(),
                    elapsed_s=round(budget.elapsed_s, 3), working_s=round(budget.working_s, 3),
                    waiting_s=round(budget.waiting_s, 3))
        current_events.reset(tokens[0])
        current_budget.reset(tokens[1])
    return RunOutcome(run, status, output, error, budget.usage, budget.elapsed_s)


@dataclass
class ThreadResult:
    """How one graph thread ended: status, output, one-line error and its kind (see eval.records)."""

    status: str
    output: Any = None
    error: str | None = None
    error_kind: str | None = None
    limit: str | None = None
    """Which limit ended it (time, working_time, tokens, cost) when the status is limit_exceeded."""


async def run_thread(
    graph: Any, spec: WorkflowSpec, graph_config: dict[str, Any], update: dict[str, Any] | None,
    raw_input: Any, ctx: RunContext, budget: Budget, events: Any,
) -> ThreadResult:
    """Run one thread of a compiled graph to its end, continuing from its checkpoint if it has one.

    ``update`` is the graph input (None: continue; a thread with no checkpoint yet starts from
    ``raw_input``). Never raises for a failure of the run itself: it is classified in the result.
    Cancellation (Ctrl-C) propagates.
    """
    try:
        snapshot = await graph.aget_state(graph_config)
        never_stepped = (snapshot.metadata or {}).get("source") == "input"
        if update is None and snapshot.values and never_stepped:
            # Killed right after LangGraph saved the input, before any step: continuing from that
            # checkpoint runs nothing, so forget it and start the thread again from its input.
            await graph.checkpointer.adelete_thread(graph_config["configurable"]["thread_id"])
            snapshot = await graph.aget_state(graph_config)
        if update is None and not snapshot.values:
            update = spec.make_state(spec.parse_input(raw_input))
        if update is not None or snapshot.next:
            await _stream(graph, update, graph_config, ctx, budget, events)
        final = (await graph.aget_state(graph_config)).values
        output = _jsonable(spec.output(final))
        status = spec.status(final) if spec.status else "succeeded"
        if status == "succeeded":
            return ThreadResult(status, output)
        message = output.get("answer") if isinstance(output, dict) else None
        return ThreadResult(status, output, str(message or status), status)
    except LimitExceeded as exc:
        events.emit("limit", kind=exc.kind, message=str(exc))
        return ThreadResult("limit_exceeded", None, str(exc), "limit_exceeded", limit=exc.kind)
    except ModelError as exc:
        return ThreadResult("failed", None, one_line(exc), "model_error")
    except UserError as exc:
        return ThreadResult("failed", None, one_line(exc), "input_error")
    except PaperworksError as exc:
        return ThreadResult("failed", None, one_line(exc), "workflow_error")
    except Exception as exc:
        return ThreadResult("failed", None, _graph_error(exc), "workflow_error")


def _graph_error(exc: Exception) -> str:
    try:
        from langgraph.errors import GraphRecursionError
    except ImportError:  # pragma: no cover
        return one_line(exc)
    if isinstance(exc, GraphRecursionError):
        return "graph recursion limit reached (raise it with --recursion-limit)"
    return one_line(exc)


async def _stream(graph: Any, update: dict[str, Any] | None, graph_config: dict[str, Any], ctx: RunContext,
                  budget: Budget, events: Any) -> None:
    """Stream the graph to its end, recording node events; a time limit cancels it mid-call."""
    starts: dict[str, float] = {}
    async with enforce_time_limits(budget):
        async for mode, chunk in graph.astream(update, graph_config, context=ctx,
                                               stream_mode=["tasks", "updates"]):
            if mode != "tasks":
                continue
            if "input" in chunk:
                starts[chunk["id"]] = time.monotonic()
                events.emit("node_start", node=chunk["name"])
            else:
                took = time.monotonic() - starts.pop(chunk["id"], time.monotonic())
                err = chunk.get("error")
                events.emit("node_end", node=chunk["name"], seconds=round(took, 3),
                            error=one_line(err) if err else None,
                            update=_summarise(chunk.get("result")))
            budget.check()


def _summarise(result: Any, limit: int = 2000) -> Any:
    """A JSON view of a node's state update for the event log: ``messages`` in full (the trace),
    other values as JSON when short, else the start of their JSON text marked as cut."""
    if not isinstance(result, dict):
        return None
    out: dict[str, Any] = {}
    for key, value in to_jsonable(result).items():
        if key == "messages":
            out[key] = value
            continue
        text = json.dumps(value, ensure_ascii=False)
        out[key] = value if len(text) <= limit else {"truncated": True, "json": text[:limit]}
    return out


def open_for_resume(ref: str) -> RunDir:
    """The run to resume; refuses evaluations and finished runs with a clear message."""
    run = RunDir.open(ref)
    record = run.read_record()
    if record.get("kind") not in ("run", "chat"):
        raise UserError(f"{run.path} is a {record.get('kind')} run; resume it with its own command")
    if record.get("served"):  # its checkpoints are the LangGraph server's, not in the run directory
        raise UserError(f"{run.path} was run by paperworks serve; continue it on the server (thread "
                        f"{record['served'].get('thread_id')})")
    return run


__all__ = ["RunOutcome", "create_run", "execute", "open_for_resume", "run_sync"]


async def read_state(run: RunDir) -> dict[str, Any]:
    """The run's latest graph state (empty before its first checkpoint)."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    record = run.read_record()
    spec = get_workflow(record["workflow"])
    config = spec.parse_config(record.get("config") or {})
    async with AsyncSqliteSaver.from_conn_string(str(run.checkpoints_path)) as saver:
        graph = spec.build_graph(config).compile(checkpointer=saver)
        snapshot = await graph.aget_state({"configurable": {"thread_id": run.id}})
        return dict(snapshot.values or {})
