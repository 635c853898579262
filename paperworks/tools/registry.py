"""The tool registry: name → ``Tool``, an explicit table of ``module:attribute`` strings.

A tool module defines its tools with ``@tool`` (``paperworks.tools.base``) and imports nothing from
here; this table names them, and a module is imported only when one of its tools is asked for. To
offer a new tool by name, add a line to ``BUILTIN``.

The mechanism (``tool``, ``Tool``, ``ToolContext``, ``ToolError``, ``execute_call``) lives in
``paperworks.tools.base`` and is re-exported here for the callers that import it from this module.
"""

from __future__ import annotations

import importlib

from paperworks.core.errors import UserError
from paperworks.tools.base import INLINE_OBSERVATION, Tool, ToolContext, ToolError, execute_call, tool

__all__ = ["BUILTIN", "INLINE_OBSERVATION", "TOOLS", "Tool", "ToolContext", "ToolError", "execute_call",
           "get_tools", "load_tool", "tool"]

BUILTIN: dict[str, str] = {
    "write_file": "paperworks.tools.files:write_file",
    "read_file": "paperworks.tools.files:read_file",
    "list_files": "paperworks.tools.files:list_files",
    "describe_image": "paperworks.tools.images:describe_image",
    "calculate": "paperworks.tools.math:calculate",
    "archive_search": "paperworks.tools.archive.tools:archive_search",
    "archive_list": "paperworks.tools.archive.tools:archive_list",
    "read_document": "paperworks.tools.documents.tools:read_document",
    "ocr": "paperworks.tools.ocr.tools:ocr",
    "image_orientation": "paperworks.tools.ocr.tools:image_orientation",
    "identify_language": "paperworks.tools.ocr.tools:identify_language",
    "transcribe_audio": "paperworks.tools.speech_rec.tools:transcribe_audio",
    "video_frames": "paperworks.tools.speech_rec.tools:video_frames",
    "translate_text": "paperworks.tools.translate.tools:translate_text",
    # About paperworks itself: it reads the workflow registry, so it lives in workflows/ (loaded by name).
    "list_workflows": "paperworks.workflows.meta_tools:list_workflows",
}
"""Every tool offered by name, in a stable order; each module loads when one of its tools is first asked for."""


def load_tool(name: str) -> Tool:
    """The tool registered as ``name`` (its module imported on first use); ``KeyError`` if unknown."""
    module, _, attribute = BUILTIN[name].partition(":")
    found = getattr(importlib.import_module(module), attribute)
    if not isinstance(found, Tool):  # pragma: no cover - a wrong table entry
        raise TypeError(f"{BUILTIN[name]} is not a tool (decorate it with @tool)")
    return found


TOOLS: dict[str, Tool]
"""All the tools by name, every table entry loaded on first access (``from ... import TOOLS``); a
snapshot of ``BUILTIN``, not a place to register tools. ``get_tools`` loads only the ones named."""


def __getattr__(name: str) -> dict[str, Tool]:
    """``TOOLS``, built from the table the first time it is asked for (PEP 562)."""
    if name == "TOOLS":
        table = {n: load_tool(n) for n in BUILTIN}
        globals()["TOOLS"] = table
        return table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_tools(names: list[str] | None = None) -> list[Tool]:
    """Registered tools by name (all of them when ``names`` is None)."""
    if names is None:
        return [load_tool(n) for n in BUILTIN]
    missing = [n for n in names if n not in BUILTIN]
    if missing:
        raise UserError(f"unknown tool(s) {missing}; known: {sorted(BUILTIN)}")
    return [load_tool(n) for n in names]
