"""Which files an agent's tool may open: inside the run's artifact folder, or inside folders the
workflow allowed (a question's attachments, an archive corpus). Outside a run, any path."""

from __future__ import annotations

from pathlib import Path

from paperworks.core.errors import UserError
from paperworks.tools.base import ToolContext, ToolError

_ALLOWED: list[Path] = []


def allow_input_dir(folder: str | Path) -> None:
    """Let tools read files under ``folder`` during runs (idempotent)."""
    path = Path(folder).expanduser().resolve()
    if path not in _ALLOWED:
        _ALLOWED.append(path)


def resolve_input(path: str, ctx: ToolContext | None) -> Path:
    """The file a tool was asked to read. In a run: a path relative to the artifact folder, or an
    absolute path inside it or inside an allowed folder; raises ``ToolError`` otherwise."""
    if ctx is None or ctx.artifacts is None:
        return Path(path).expanduser()
    candidate = Path(path).expanduser()
    if candidate.is_absolute():
        resolved = candidate.resolve()
        roots = [ctx.artifacts.root.resolve(), *_ALLOWED]
        if any(resolved == root or root in resolved.parents for root in roots):
            return resolved
        raise ToolError(f"'{path}' is outside the run's artifact folder and the allowed input folders")
    for root in _ALLOWED:
        inside = (root / candidate).resolve()
        if inside.exists() and root in inside.parents:
            return inside
    try:
        return ctx.artifacts.resolve(path)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
