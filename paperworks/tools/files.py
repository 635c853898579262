"""Reading and writing files inside the run's artifact folder (never outside it)."""

from __future__ import annotations

from paperworks.core.artifacts import ArtifactStore
from paperworks.core.errors import UserError
from paperworks.tools.base import ToolContext, ToolError, tool

MAX_BYTES = 200_000


def _store(ctx: ToolContext) -> ArtifactStore:
    if ctx.artifacts is None:
        raise ToolError("no run artifact folder is available")
    return ctx.artifacts


@tool
def write_file(path: str, content: str, ctx: ToolContext) -> str:
    """Write a text file into the run's artifact folder (replacing it if it exists).

    Args:
        path: relative path inside the artifact folder, e.g. "notes/answer.txt".
        content: the full text to write.
    """
    if len(content.encode("utf-8")) > MAX_BYTES:
        raise ToolError(f"content larger than {MAX_BYTES} bytes")
    store = _store(ctx)
    try:
        target = store.resolve(path)
        # the folder itself ("", ".") or a sub-folder is no file: writing it would leave "<folder>.tmp" beside it,
        # outside the artifact folder
        if target.is_dir() or target == store.root.resolve():
            raise ToolError(f"path {path!r} is a folder; give a file name, e.g. \"notes/answer.txt\"")
        store.write_text(path, content)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    return f"wrote {len(content)} characters to {path}"


@tool
def read_file(path: str, ctx: ToolContext) -> str:
    """Read a text file from the run's artifact folder.

    Args:
        path: relative path inside the artifact folder.
    """
    try:
        text = _store(ctx).read_text(path)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise ToolError(f"'{path}' is not a UTF-8 text file") from exc
    return text if len(text) <= MAX_BYTES else text[:MAX_BYTES] + "\n[... truncated]"


@tool
def list_files(ctx: ToolContext) -> str:
    """List the files in the run's artifact folder."""
    files = _store(ctx).list()
    return "\n".join(files) if files else "(no files yet)"
