"""The workflow registry: name → ``WorkflowSpec`` (``build_graph``, input model, description).

Built-in workflows are listed in ``BUILTIN``; a user's own workflow is named ``package.module:SPEC``
(or published under the ``paperworks.workflows`` entry-point group). Modules load lazily.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from paperworks.core.errors import UserError

BUILTIN: dict[str, str] = {
    "agent": "paperworks.workflows.agent:SPEC",
    "spada": "paperworks.workflows.spada:SPEC",
    "histagent": "paperworks.workflows.histagent:SPEC",
    "dfps": "paperworks.workflows.dfps:SPEC",
    "fps": "paperworks.workflows.dfps.fps:SPEC",
    "ogmar": "paperworks.workflows.ogmar:SPEC",
    "steertts": "paperworks.workflows.steertts:SPEC",
}


@dataclass
class WorkflowSpec:
    """Everything the runner, the CLI and the eval harness need to know about a workflow."""

    name: str
    description: str
    build_graph: Callable[[Any], Any]
    """``build_graph(config) -> StateGraph`` (uncompiled; the runner compiles it with its checkpointer)."""
    input_model: type[BaseModel]
    """Validates the user's input (``paperworks run NAME -i ...``)."""
    make_state: Callable[[Any], dict[str, Any]]
    """The initial graph state for a validated input."""
    output: Callable[[dict[str, Any]], Any]
    """The run's result, from the final state."""
    config_model: type[BaseModel] | None = None
    """Workflow settings (``-c key=value``), echoed into run.json."""
    status: Callable[[dict[str, Any]], str] | None = None
    """Final status from the final state (default "succeeded"), e.g. "step_limit"."""
    chat_turn: Callable[[str], dict[str, Any]] | None = None
    """State update for one user turn in ``paperworks chat`` (None: the workflow does not chat)."""
    scorers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    edit: Callable[[Path, dict[str, Any], Path], dict[str, Any]] | None = None
    """``edit(source_run_dir, overrides, new_run_dir) -> output``: redo a finished run with new parameter
    values and no model call (``paperworks run NAME --edit RUN --set k=v``); None if unsupported."""
    preflight: Callable[[BaseModel | None, BaseModel | None, Path], None] | None = None
    """``preflight(input_or_None, config_or_None, base)``: checks of the input and settings against the file
    system (attachments and data files exist, relative ones against ``base``), raising a one-line
    ``UserError``; ``create_run`` calls it before the run directory is made."""

    def parse_input(self, raw: Any, where: str = "input") -> BaseModel:
        """Validate raw input; a one-line ``UserError`` naming the field otherwise."""
        if isinstance(raw, str):
            raw = self._text_to_input(raw, where)
        try:
            return self.input_model.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
            raise UserError(f"{where}: field '{loc}': {err['msg']} (workflow '{self.name}')") from exc

    def _text_to_input(self, text: str, where: str) -> dict[str, Any]:
        required = [n for n, f in self.input_model.model_fields.items() if f.is_required()]
        if len(required) == 1:
            return {required[0]: text}
        raise UserError(
            f"{where}: workflow '{self.name}' needs a JSON object with fields {required}, not plain text"
        )

    def parse_config(self, values: dict[str, Any]) -> BaseModel | None:
        """Validate workflow settings; a one-line ``UserError`` otherwise."""
        if self.config_model is None:
            if values:
                raise UserError(f"workflow '{self.name}' takes no settings (got {sorted(values)})")
            return None
        known = list(self.config_model.model_fields)
        unknown = [k for k in values if k not in known]
        if unknown and self.config_model.model_config.get("extra") != "allow":
            raise UserError(f"unknown setting {', '.join(repr(k) for k in unknown)} for workflow '{self.name}'; "
                            f"valid settings: {', '.join(known)}")
        try:
            return self.config_model.model_validate(values)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise UserError(f"setting '{loc}': {err['msg']} (workflow '{self.name}')") from exc


def _entry_points() -> dict[str, str]:
    try:
        return {ep.name: ep.value for ep in metadata.entry_points(group="paperworks.workflows")}
    except Exception:  # broken third-party metadata must not break the CLI
        return {}


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _load_ref(ref: str) -> WorkflowSpec:
    module_name, _, attr = ref.partition(":")
    if not _DOTTED.fullmatch(module_name) or (attr and not attr.isidentifier()):
        raise UserError(f"workflow reference {ref!r} is not 'package.module:ATTR' (a dotted module name, then an "
                        "optional attribute name)")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise UserError(f"cannot import workflow module '{module_name}': {exc}") from exc
    except Exception as exc:  # the user's own module failed while importing: say so in one line
        raise UserError(f"importing workflow module '{module_name}' failed: {type(exc).__name__}: "
                        f"{str(exc).splitlines()[0] if str(exc) else ''}") from exc
    spec = getattr(module, attr or "SPEC", None)
    if not isinstance(spec, WorkflowSpec):
        raise UserError(f"'{ref}' is not a WorkflowSpec")
    return spec


def workflow_names() -> list[str]:
    """Names of all known workflows (built-in first)."""
    return list(BUILTIN) + sorted(n for n in _entry_points() if n not in BUILTIN)


def get_workflow(name: str) -> WorkflowSpec:
    """The spec for a workflow name or a ``module:ATTR`` reference."""
    if ":" in name:  # a user's own workflow: its reference is its name (so runs can be resumed)
        return dataclasses.replace(_load_ref(name), name=name)
    refs = {**_entry_points(), **BUILTIN}
    if name not in refs:
        raise UserError(f"unknown workflow '{name}'; known: {', '.join(workflow_names())}")
    return _load_ref(refs[name])


def list_workflows() -> list[WorkflowSpec]:
    """All known workflow specs."""
    return [get_workflow(n) for n in workflow_names()]
