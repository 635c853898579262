"""Tools about paperworks itself (here, not in tools/, because they read the workflow registry)."""

from __future__ import annotations

from paperworks.tools.base import tool


@tool
def list_workflows() -> str:
    """List the paperworks workflows that can be run, one per line with its description."""
    from paperworks.workflows.registry import list_workflows as _list

    return "\n".join(f"{spec.name}: {spec.description}" for spec in _list())
