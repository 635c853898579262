"""One LangGraph graph factory per built-in workflow, for a LangGraph server (``langgraph.json``).

The server calls a factory for every run with the run's ``RunnableConfig``; the factory builds the
workflow's graph with the run's workflow settings and compiles it without a checkpointer (the server
supplies its own). Run settings that travel in the runtime context (``RunContext``: ``model``,
``seed``, ``generation``, ``cache``, ``max_retries``, ``timeout_s``, ...) and the workflow's own settings
(``max_steps``, ``max_iterations``, ...) are passed together as the run's ``context`` (or, the older
way, its ``config.configurable``; the server keeps the two in sync)::

    client.runs.stream(thread_id, "agent", input={"messages": [{"role": "user", "content": "17*23?"}]},
                       context={"model": "openai/gpt-4o-mini", "max_steps": 4})

Every key is validated before the graph is built; a bad one fails the run with a one-line
``UserError`` naming it. The server keeps only the ``RunContext`` fields for the runtime context,
so the workflow settings reach the graph through the factory alone.

Defaults the server supplies: the model is ``$PAPERWORKS_SERVE_MODEL`` (``paperworks serve --model``)
or ``RunContext``'s default, and each thread's artifacts go to
``<runs dir>/serve/<workflow>/<thread id>/artifacts`` (``$PAPERWORKS_RUNS_DIR``, default ``./runs``).

Not served: the runner's budgets (``--time-limit``, ``--token-limit``, ``--cost-limit``) and its
``events.jsonl``; they belong to ``paperworks run``, not the runtime context. The recursion limit is
the server's own ``config.recursion_limit``. The graph's input is the workflow's initial state
(``initial_state(name, raw)`` makes it from the workflow's input, as ``paperworks run -i`` takes it).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from paperworks.core.errors import UserError
from paperworks.core.paths import runs_dir
from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import BUILTIN, get_workflow

MODEL_ENV = "PAPERWORKS_SERVE_MODEL"
"""The model a served run uses when its context names none (``paperworks serve --model``)."""

CONTEXT_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RunContext))
"""The run settings that travel in LangGraph's runtime context."""

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


def _context_schema(workflow: str, thread_id: str | None) -> type[RunContext]:
    """``RunContext`` with this server's defaults (model, the thread's artifact folder): the server hands
    the run's context fields to this class, so fields the run leaves out take these values."""
    artifact_dir = str(thread_dir(workflow, thread_id) / "artifacts")
    return dataclasses.make_dataclass(
        "ServedRunContext",
        [("model", str, dataclasses.field(default=default_model())),
         ("artifact_dir", str | None, dataclasses.field(default=artifact_dir))],
        bases=(RunContext,),
        namespace={"__doc__": RunContext.__doc__, "__module__": __name__},
    )


def build(workflow: str, config: Mapping[str, Any] | None = None) -> Any:
    """The compiled graph of ``workflow`` for one run's config (no checkpointer: the server's own)."""
    configurable = dict((config or {}).get("configurable") or {})
    settings = parse_settings(workflow, configurable)
    builder = get_workflow(workflow).build_graph(settings.config)
    builder.context_schema = _context_schema(workflow, configurable.get("thread_id"))
    return builder.compile(name=workflow)


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
