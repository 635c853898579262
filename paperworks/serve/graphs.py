"""One LangGraph graph factory per built-in workflow, for a LangGraph server (``langgraph.json``).

The server calls a factory for every run with the run's ``RunnableConfig``; the factory builds the
workflow's graph with the run's workflow settings and compiles it without a checkpointer (the server
supplies its own) as a ``ServedGraph``. Run settings that travel in the runtime context (``RunContext``:
``model``, ``seed``, ``generation``, ``cache``, ``max_retries``, ``timeout_s``, ``artifact_dir``) and the
workflow's own settings (``max_steps``, ``max_iterations``, ...) are passed together as the run's
``context`` (or, the older way, its ``config.configurable``; the server keeps the two in sync)::

    client.runs.stream(thread_id, "agent", input={"task": "What is 17*23?"},
                       context={"model": "openai/gpt-4o-mini", "max_steps": 4},
                       stream_mode="messages-tuple")

Every key is validated before the graph is built; a bad one fails the run with a one-line
``UserError`` naming it.

What ``ServedGraph`` adds to the compiled graph, for every stream mode the server offers:

- the input: the workflow's input as ``paperworks run NAME -i`` takes it (``{"task": ...}``, or plain
  text for a one-field input) becomes the initial state; a state update (``{"messages": [...]}``) is
  taken as it is; anything else fails the run with the CLI's one-line error;
- the runtime context reaches every node in every mode (langgraph-api 0.4.28 passes none when
  ``events`` is among the modes; it is rebuilt from ``config.configurable`` then);
- model tokens stream (``paperworks.serve.streaming``): ``messages``, ``messages-tuple``, ``events``, and
  the run's paperworks events in ``custom``;
- each run is recorded under the runs directory like a ``paperworks run`` (``paperworks.serve.record``);
- real input, output and context JSON schemas (``paperworks.serve.schemas``).

Defaults the server supplies: the model is ``$PAPERWORKS_SERVE_MODEL`` (``paperworks serve --model``)
or ``RunContext``'s default, and each thread's artifacts go to
``<runs dir>/serve/<workflow>/<thread id>/artifacts`` (``$PAPERWORKS_RUNS_DIR``, default ``./runs``).

Not served: the runner's budgets (``--time-limit``, ``--token-limit``, ``--cost-limit``); the recursion
limit is the server's own ``config.recursion_limit``.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from pydantic import TypeAdapter, ValidationError

from paperworks.core.errors import UserError
from paperworks.core.paths import runs_dir
from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import BUILTIN, get_workflow

MODEL_ENV = "PAPERWORKS_SERVE_MODEL"
"""The model a served run uses when its context names none (``paperworks serve --model``)."""

CONTEXT_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RunContext))
"""The run settings that travel in LangGraph's runtime context."""

SERVER_SET: tuple[str, ...] = ("stream", "run_dir")
"""``RunContext`` fields the server sets for every run; a run that gives one is refused."""

_SERVER_KEYS = frozenset({
    "thread_id", "thread_ts", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "graph_id", "assistant_id",
    "run_id", "user_id", "cron_id", "langgraph_request_id", "langgraph_auth_user", "langgraph_auth_user_id",
    "langgraph_auth_permissions", "langsmith-trace", "langsmith-project", "langsmith-metadata",
    "langsmith-tags",
})


def _is_server_key(key: str) -> bool:
    """Keys the LangGraph server itself puts into ``configurable`` (ids, headers, internals)."""
    return (key in _SERVER_KEYS or key.startswith(("__", "langgraph_", "langsmith", "x-", "ls_"))
            or "-" in key)


@dataclasses.dataclass(frozen=True)
class ServeSettings:
    """One served run's validated settings."""

    workflow: str
    context: dict[str, Any]
    """``RunContext`` fields given by the run."""
    config: Any
    """The workflow's validated settings model (None for a workflow without settings)."""


def parse_settings(workflow: str, configurable: Mapping[str, Any] | None) -> ServeSettings:
    """Split a run's ``configurable`` (= its ``context``) into runtime-context fields and workflow
    settings, and validate both; a one-line ``UserError`` naming the first bad key."""
    spec = get_workflow(workflow)
    ours = {k: v for k, v in (configurable or {}).items() if not _is_server_key(str(k))}
    context = {k: ours.pop(k) for k in list(ours) if k in CONTEXT_KEYS}
    for key in SERVER_SET:
        if key in context:
            raise UserError(f"context '{key}' is set by the server (every served run streams and is recorded in a "
                            f"run directory of its own); leave it out (workflow '{workflow}')")
    known = list(spec.config_model.model_fields) if spec.config_model is not None else []
    unknown = [k for k in ours if k not in known]
    if unknown and not (spec.config_model is not None and spec.config_model.model_config.get("extra") == "allow"):
        raise UserError(f"unknown run setting {', '.join(repr(k) for k in unknown)} for workflow '{workflow}'; "
                        f"context keys: {', '.join(CONTEXT_KEYS)}; workflow settings: {', '.join(known) or 'none'}")
    _validate_context(workflow, context)
    return ServeSettings(workflow, context, spec.parse_config(ours))


_CONTEXT_ADAPTER: TypeAdapter[RunContext] = TypeAdapter(RunContext)


def _validate_context(workflow: str, context: dict[str, Any]) -> None:
    from paperworks.models.checks import check_model
    from paperworks.models.types import validate_generation

    try:
        _CONTEXT_ADAPTER.validate_python(context, strict=False)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise UserError(f"context '{loc}': {err['msg']} (workflow '{workflow}')") from exc
    check_model(str(context.get("model") or default_model()))
    validate_generation(dict(context.get("generation") or {}), where="context 'generation'")
    for key in ("max_retries",):
        if context.get(key) is not None and int(context[key]) < 0:
            raise UserError(f"context '{key}' must be 0 or more, got {context[key]}")
    if context.get("timeout_s") is not None and not float(context["timeout_s"]) > 0:
        raise UserError(f"context 'timeout_s' must be greater than 0, got {context['timeout_s']}")


def default_model() -> str:
    """The model of a served run that names none."""
    return os.environ.get(MODEL_ENV) or RunContext.model


def thread_dir(workflow: str, thread_id: str | None) -> Path:
    """Where a served thread's artifacts go."""
    return runs_dir().resolve() / "serve" / workflow / (thread_id or "no-thread")


@dataclasses.dataclass
class ServedRunContext(RunContext):
    """``RunContext`` of a served run: its model reports every call to the node's LangChain callbacks, so
    the tokens reach LangGraph's ``messages`` and ``events`` streams."""

    def get_model(self) -> Any:
        from paperworks.serve.streaming import CallbackModel

        return CallbackModel(super().get_model())


def run_context(workflow: str, configurable: Mapping[str, Any], context: Any = None,
                run_dir: str | None = None) -> ServedRunContext:
    """The runtime context of one served run: the run's context fields (``context``, else the same keys in
    ``config.configurable``), this server's defaults for the model and the thread's artifact folder, always
    streaming, recorded in ``run_dir``."""
    if isinstance(context, RunContext):
        values = {f.name: getattr(context, f.name) for f in dataclasses.fields(RunContext)}
    else:
        values = {k: v for k, v in configurable.items() if k in CONTEXT_KEYS}
        if isinstance(context, Mapping):
            values.update({k: v for k, v in context.items() if k in CONTEXT_KEYS})
    values = {k: v for k, v in values.items() if v is not None or k not in ("model", "artifact_dir")}
    values.setdefault("model", default_model())
    values.setdefault("artifact_dir", str(thread_dir(workflow, configurable.get("thread_id")) / "artifacts"))
    values.update(stream=True, run_dir=run_dir)
    checked = _CONTEXT_ADAPTER.validate_python(values, strict=False)  # "7" -> 7, as the context validation
    return ServedRunContext(**{f.name: getattr(checked, f.name) for f in dataclasses.fields(RunContext)})


class ServedGraph(CompiledStateGraph):
    """A workflow's compiled graph as the server runs it (see the module's docstring). It keeps no state
    of its own (``copy`` rebuilds it from its fields), so the workflow is its name."""

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        from paperworks.serve.schemas import input_schema

        return input_schema(self.name)

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        from paperworks.serve.schemas import output_schema

        return output_schema(self.name)

    def get_context_jsonschema(self) -> dict[str, Any]:
        from paperworks.serve.schemas import context_schema

        return context_schema(self.name, default_model())

    async def astream(self, input: Any, config: Any = None, *, context: Any = None,  # type: ignore[override]
                      stream_mode: Any = None, subgraphs: bool = False, **kwargs: Any) -> AsyncIterator[Any]:
        from contextlib import aclosing

        from paperworks.core.errors import PaperworksError, one_line
        from paperworks.core.seeding import seed_everything
        from paperworks.serve.inputs import graph_input
        from paperworks.serve.record import ServedRecord, set_current
        from paperworks.serve.streaming import forward_event
        from paperworks.workflows.runner import _graph_error

        workflow = self.name
        spec = get_workflow(workflow)
        configurable = dict((config or {}).get("configurable") or {})
        try:  # a bad setting or a wrong input shape fails here, before a run directory exists
            settings = parse_settings(workflow, configurable)
            update, parsed = graph_input(workflow, input)
        except PaperworksError as exc:
            thread = configurable.get("thread_id") or "-"
            print(f"paperworks: {workflow} run refused: {one_line(exc)} (thread {thread})", file=sys.stderr, flush=True)
            raise
        requested = self.stream_mode if stream_mode is None else stream_mode
        single = isinstance(requested, str)
        modes = [requested] if single else list(requested)
        internal = [m for m in ("tasks", "updates", "values") if m not in modes]
        v2 = kwargs.get("version") == "v2"
        run_id = (config or {}).get("run_id")
        served = {"thread_id": configurable.get("thread_id"), "run_id": str(run_id) if run_id else None,
                  "assistant_id": configurable.get("assistant_id"), "graph_id": configurable.get("graph_id"),
                  "input": update if parsed is None and isinstance(update, dict) else None}
        ctx = run_context(workflow, configurable, context)
        served["artifact_dir"] = ctx.artifact_dir
        record = ServedRecord.create(workflow, ctx, settings.config, parsed, served,
                                     (config or {}).get("recursion_limit"), [forward_event])
        status, error, final, interrupted = "failed", None, None, False
        pumping: asyncio.Task[None] | None = None
        try:
            ctx = dataclasses.replace(ctx, run_dir=str(record.run.path))
            record.events.emit("run_start", run_id=record.run.id, workflow=workflow, model=ctx.model,
                               resumed=update is None, thread_id=served["thread_id"])
            seed_everything(ctx.seed)
            # The graph runs in a task of its own whose context holds the run's event log and budget (the
            # gateway and the tools emit into them): langgraph-api drives this generator one ``anext`` per
            # new task, so a context variable set here would not reach the nodes.
            inner = super().astream(update, config, context=ctx, stream_mode=[*modes, *internal],  # type: ignore[call-overload]
                                    subgraphs=subgraphs, **kwargs)
            relay: asyncio.Queue[tuple[Any, BaseException | None]] = asyncio.Queue(maxsize=1)
            end = object()

            async def pump() -> None:
                try:
                    async with aclosing(inner) as stream:
                        async for item in stream:
                            await relay.put((item, None))
                except asyncio.CancelledError:
                    raise
                except BaseException as exc:  # handed to the consumer, which raises it
                    await relay.put((end, exc))
                    return
                await relay.put((end, None))

            run_context_vars = contextvars.copy_context()
            run_context_vars.run(set_current, record)
            pumping = asyncio.get_running_loop().create_task(pump(), context=run_context_vars)
            while True:
                item, failure = await relay.get()
                if item is end:
                    if failure is not None:
                        raise failure
                    break
                if v2:
                    ns, mode, chunk = tuple(item.get("ns") or ()), item["type"], item.get("data")
                elif subgraphs:
                    ns, mode, chunk = item
                else:
                    (mode, chunk), ns = item, ()
                if not ns:
                    if mode == "tasks" and isinstance(chunk, dict):
                        record.node_event(chunk)
                    elif mode == "values":
                        final = chunk
                        if v2 and item.get("interrupts"):
                            interrupted = True
                    elif mode == "updates" and isinstance(chunk, dict) and "__interrupt__" in chunk:
                        interrupted = True
                if mode in internal:
                    continue
                if v2 or not single:
                    yield item
                else:
                    yield (ns, chunk) if subgraphs else chunk
            if interrupted:
                status = "interrupted"
            else:
                status = spec.status(final or {}) if spec.status else "succeeded"
                if status != "succeeded":
                    output = spec.output(final or {})
                    error = str((output.get("answer") if isinstance(output, dict) else None) or status)
        except (asyncio.CancelledError, GeneratorExit):
            status, error = "cancelled", "cancelled (the client went away or cancelled the run)"
            raise
        except PaperworksError as exc:
            error = one_line(exc)
            raise
        except Exception as exc:
            error = _graph_error(exc)
            raise
        finally:
            try:
                if pumping is not None and not pumping.done():
                    pumping.cancel()
                    await asyncio.gather(pumping, return_exceptions=True)
            finally:
                try:
                    output = spec.output(final) if isinstance(final, dict) else None
                except Exception:
                    output = None
                record.finish(status, output, error)


def build(workflow: str, config: Mapping[str, Any] | None = None) -> Any:
    """The compiled graph of ``workflow`` for one run's config (no checkpointer: the server's own)."""
    configurable = dict((config or {}).get("configurable") or {})
    settings = parse_settings(workflow, configurable)
    builder = get_workflow(workflow).build_graph(settings.config)
    builder.context_schema = ServedRunContext
    graph = builder.compile(name=workflow)
    graph.__class__ = ServedGraph
    return graph


def initial_state(workflow: str, raw_input: Any) -> dict[str, Any]:
    """The graph input of a served run from the workflow's input (a JSON object, or plain text for a
    one-field input), as ``paperworks run NAME -i`` takes it."""
    spec = get_workflow(workflow)
    return spec.make_state(spec.parse_input(raw_input))


def _factory(workflow: str) -> Callable[[Any], Any]:
    def factory(config: Any) -> Any:
        return build(workflow, config)

    factory.__name__ = factory.__qualname__ = workflow
    factory.__doc__ = f"Graph factory of the '{workflow}' workflow for a LangGraph server."
    return factory


agent = _factory("agent")
spada = _factory("spada")
histagent = _factory("histagent")
dfps = _factory("dfps")
fps = _factory("fps")
ogmar = _factory("ogmar")
steertts = _factory("steertts")

FACTORIES: dict[str, Callable[[Any], Any]] = {
    "agent": agent, "spada": spada, "histagent": histagent, "dfps": dfps, "fps": fps, "ogmar": ogmar,
    "steertts": steertts,
}
assert set(FACTORIES) == set(BUILTIN), "every built-in workflow needs a factory here"


def graph_specs() -> dict[str, dict[str, str]]:
    """``langgraph.json``'s ``graphs`` entries: workflow name -> module attribute and description."""
    return {name: {"path": f"{__name__}:{name}", "description": get_workflow(name).description}
            for name in FACTORIES}
