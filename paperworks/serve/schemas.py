"""JSON schemas of a served workflow, for ``GET /assistants/{id}/schemas`` (LangGraph Studio's forms).

- input: the workflow's input as ``paperworks run NAME -i`` takes it (its fields first, with their
  descriptions and constraints), and the graph state keys a run may give instead (a state update);
- output: the graph state a run ends with (what ``runs.wait`` returns);
- context: the run settings, the ``RunContext`` fields a caller sets (``model``, ``seed``, ``generation``,
  ...) and the workflow's own settings (``max_steps``, ``tools``, ...), with types, defaults and
  descriptions.

LangGraph builds the first two from the state ``TypedDict``, which pydantic refuses on Python < 3.12
(``typing.TypedDict``), so the server answered null; these are built field by field instead.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import typing
from functools import cache
from typing import Any

from pydantic import TypeAdapter

from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import get_workflow

SERVER_MANAGED: tuple[str, ...] = ("stream", "run_dir")
"""``RunContext`` fields the server sets itself (every served run streams and is recorded)."""


def _title(workflow: str) -> str:
    return "".join(part.capitalize() for part in workflow.replace("-", "_").split("_"))


def _strip(tp: Any) -> Any:
    """``Annotated[list[X], reducer]`` -> ``list[X]``."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def type_schema(tp: Any) -> dict[str, Any]:
    """The JSON schema of one annotation (``{}``, anything, where pydantic cannot say)."""
    try:
        schema = TypeAdapter(_strip(tp)).json_schema()
    except Exception:
        return {}
    schema.pop("title", None)
    return schema


def _attribute_docs(cls: type) -> dict[str, str]:
    """``field: T = ...`` followed by a string literal: that string, per field (dataclass attribute docs)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[node.target.id] = " ".join(after.value.value.split()).replace("``", "`")
    return docs


@cache
def state_keys(workflow: str) -> dict[str, Any]:
    """The workflow's graph state keys and their annotations."""
    builder = get_workflow(workflow).build_graph(None)
    return typing.get_type_hints(builder.state_schema, include_extras=True)


@cache
def _state_properties(workflow: str) -> tuple[tuple[str, Any], ...]:
    return tuple((k, type_schema(v)) for k, v in state_keys(workflow).items())


def output_schema(workflow: str) -> dict[str, Any]:
    """The graph state of a finished run (every key optional: a workflow fills them as it goes)."""
    return {
        "title": f"{_title(workflow)}State",
        "description": f"The '{workflow}' graph state a run ends with.",
        "type": "object",
        "properties": {k: dict(v) for k, v in _state_properties(workflow)},
    }


def input_schema(workflow: str) -> dict[str, Any]:
    """The workflow input (as ``paperworks run -i``) and, as an alternative, a state update."""
    spec = get_workflow(workflow)
    model = spec.input_model.model_json_schema()
    properties: dict[str, Any] = dict(model.get("properties") or {})
    fields = list(properties)
    state_only = [(k, v) for k, v in _state_properties(workflow) if k not in properties]
    for key, schema in state_only:
        properties[key] = {**schema, "description": "Graph state key (a state update; give either the "
                                                    "workflow input fields or state keys, not both)."}
    required = list(model.get("required") or [])
    description = (f"What `paperworks run {workflow} -i` takes: {{{', '.join(fields)}}}"
                   + (f" ({', '.join(required)} required)" if required else "")
                   + (f"; or a state update with any of {', '.join(k for k, _ in state_only)}" if state_only else "")
                   + ". Plain text is taken as the one required field, as on the command line.")
    out: dict[str, Any] = {"title": f"{_title(workflow)}Input", "description": description, "type": "object",
                           "properties": properties}
    if model.get("$defs"):
        out["$defs"] = model["$defs"]
    return out


def context_fields() -> list[tuple[str, Any, Any, str]]:
    """``RunContext`` fields a caller may set: (name, annotation, default, description)."""
    hints = typing.get_type_hints(RunContext)
    docs = _attribute_docs(RunContext)
    out = []
    for f in dataclasses.fields(RunContext):
        if f.name in SERVER_MANAGED:
            continue
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        out.append((f.name, hints[f.name], None if default is dataclasses.MISSING else default,
                    docs.get(f.name, "")))
    return out


def context_schema(workflow: str, default_model: str) -> dict[str, Any]:
    """Run settings: the runtime-context fields, then the workflow's own settings (``-c key=value``)."""
    properties: dict[str, Any] = {}
    for name, tp, default, doc in context_fields():
        schema = type_schema(tp)
        if name == "model":
            default = default_model
        if name == "artifact_dir":
            doc = ("Where this thread's artifacts go (default on this server: <runs dir>/serve/<workflow>/<thread "
                   "id>/artifacts, shared by the thread's runs).")
        properties[name] = {"title": name.replace("_", " ").title(), **schema, "default": default,
                            "description": doc}
    spec = get_workflow(workflow)
    defs: dict[str, Any] = {}
    required: list[str] = []
    if spec.config_model is not None:
        cfg = spec.config_model.model_json_schema()
        try:
            defaults = spec.config_model.model_validate({}).model_dump(mode="json")
        except Exception:  # a workflow with a required setting: no defaults to show for it
            defaults = {}
        for name, schema in (cfg.get("properties") or {}).items():
            if "default" not in schema and name in defaults:
                schema = {**schema, "default": defaults[name]}  # a default_factory's value
            properties[name] = schema
        defs = dict(cfg.get("$defs") or {})
        required = list(cfg.get("required") or [])
    out: dict[str, Any] = {
        "title": f"{_title(workflow)}Settings",
        "description": (f"Run settings of '{workflow}': model, seed, generation, cache, max_retries, timeout_s and "
                        f"artifact_dir, then the workflow's own settings (as `paperworks run {workflow} -c "
                        "key=value`). Give them as the run's context (or config.configurable)."),
        "type": "object",
        "properties": properties,
    }
    if required:
        out["required"] = required
    if defs:
        out["$defs"] = defs
    return out
