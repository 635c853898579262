"""Tools: typed Python functions whose signature and docstring become the model-facing schema.

    @tool
    def calculate(expression: str) -> str:
        '''Evaluate an arithmetic expression exactly.

        Args:
            expression: e.g. "17 * 23 + 2**10".
        '''

A parameter annotated ``ToolContext`` is injected (the run's artifact folder) and hidden from the
model. A tool's exception, or arguments that fail validation, come back to the model as an
``error: ...`` observation rather than stopping the run.

This is the mechanism only: ``@tool`` wraps a function into a ``Tool`` and registers nothing. Which
tools exist, by name, is the explicit table in ``paperworks.tools.registry``.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args, get_type_hints

from pydantic import BaseModel, Field, ValidationError, create_model

from paperworks.core.artifacts import ArtifactStore
from paperworks.core.errors import one_line
from paperworks.core.events import emit, store_blob
from paperworks.models.types import ToolCall


@dataclass
class ToolContext:
    """What a tool may touch: the run's artifact folder (``None`` outside a run)."""

    artifacts: ArtifactStore | None = None


class ToolError(Exception):
    """Raised by a tool for an expected failure; its message goes back to the model."""


def _split_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Summary text and ``Args:`` descriptions of a Google-style docstring."""
    doc = inspect.cleandoc(doc or "")
    parts = re.split(r"^\s*(Args|Arguments|Parameters):\s*$", doc, maxsplit=1, flags=re.M)
    summary = parts[0].strip()
    params: dict[str, str] = {}
    if len(parts) == 3:
        current = None
        for line in parts[2].splitlines():
            if re.match(r"^\s*(Returns|Raises|Examples?):", line):
                break
            m = re.match(r"^\s*(\w+)\s*(\([^)]*\))?:\s*(.*)$", line)
            if m:
                current = m.group(1)
                params[current] = m.group(3).strip()
            elif current and line.strip():
                params[current] += " " + line.strip()
    return " ".join(summary.split()), params


class Tool:
    """A callable tool with a JSON schema."""

    def __init__(self, fn: Callable[..., Any], name: str | None = None) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.description, param_docs = _split_docstring(fn.__doc__ or "")
        hints = get_type_hints(fn)
        self.context_param: str | None = None
        fields: dict[str, Any] = {}
        for pname, param in inspect.signature(fn).parameters.items():
            annotation = hints.get(pname, Any)
            if annotation is ToolContext or ToolContext in get_args(annotation):
                self.context_param = pname
                continue
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[pname] = (annotation, Field(default, description=param_docs.get(pname)))
        self.args_model: type[BaseModel] = create_model(f"{self.name}_args", **fields)

    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry."""
        params = self.args_model.model_json_schema()
        params.pop("title", None)
        for prop in params.get("properties", {}).values():
            prop.pop("title", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }

    async def __call__(self, arguments: dict[str, Any], ctx: ToolContext | None = None) -> str:
        """Validate ``arguments``, run the tool (sync tools in a thread) and return its text result."""
        if "_unparsed" in arguments:
            raise ToolError(f"arguments are not valid JSON: {arguments['_unparsed'][:200]}")
        try:
            args = self.args_model.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            raise ToolError(f"invalid arguments for {self.name}: {problems}") from exc
        kwargs = {k: getattr(args, k) for k in type(args).model_fields}
        if self.context_param:
            kwargs[self.context_param] = ctx or ToolContext()
        if inspect.iscoroutinefunction(self.fn):
            result = await self.fn(**kwargs)
        else:
            result = await asyncio.to_thread(self.fn, **kwargs)
        return result if isinstance(result, str) else str(result)


def tool(fn: Callable[..., Any]) -> Tool:
    """Decorator: make ``fn`` a tool named after it (list it in ``registry.BUILTIN`` to offer it by name)."""
    return Tool(fn)


INLINE_OBSERVATION = 4000
"""Observations up to this many characters are recorded inline in ``tool_call`` events; longer ones go
whole to a blob beside the log (``observation_ref``), so every trace can be read back in full."""


async def execute_call(call: ToolCall, tools: dict[str, Tool], ctx: ToolContext | None) -> tuple[str, bool]:
    """Run one tool call; returns (observation, ok). Never raises for a tool's own failure."""
    start = time.monotonic()
    tool_ = tools.get(call.name)
    if tool_ is None:
        observation, ok = f"error: no tool named '{call.name}'; available: {', '.join(sorted(tools))}", False
    else:
        try:
            observation, ok = await tool_(call.arguments, ctx), True
        except ToolError as exc:
            observation, ok = f"error: {exc}", False
        except Exception as exc:
            observation, ok = f"error: {one_line(exc)}", False
    record: dict[str, Any] = {"observation": observation}
    if len(observation) > INLINE_OBSERVATION:  # the full text beside the log, a pointer and a head inline
        ref = store_blob({"observation": observation})
        if ref is not None:
            record = {"observation": observation[:500], "observation_ref": ref, "observation_chars": len(observation)}
    emit("tool_call", tool=call.name, arguments=call.arguments, ok=ok, latency_s=round(time.monotonic() - start, 3),
         **record)
    return observation, ok
