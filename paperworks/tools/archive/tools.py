"""Agent tools: search the document archive (hybrid dense + BM25, with citations), list it.

The tools use the default archive (``PAPERWORKS_ARCHIVE`` or ``<PAPERWORKS_HOME>/archive``); a
model cannot point them at another folder."""

from __future__ import annotations

import functools

from paperworks.core.errors import UserError
from paperworks.tools.archive.store import Archive, default_archive_dir
from paperworks.tools.base import ToolError, tool


@functools.cache
def _archive(root: str) -> Archive:
    return Archive(root)


def open_archive(root: str = "") -> Archive:
    """The archive at ``root`` (default: ``default_archive_dir()``), opened once per process."""
    return _archive(str(root or default_archive_dir()))


@tool
def archive_search(query: str, k: int = 5) -> str:
    """Search the document archive; each passage comes with its citation (document, page, lines).

    Args:
        query: words or a question, in any language.
        k: how many passages to return (1-20).
    """
    if not 1 <= k <= 20:
        raise ToolError("k must be between 1 and 20")
    try:
        hits = open_archive().search(query, k)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    if not hits:
        return "no passages found (is the archive empty?)"
    return "\n\n".join(f"[{i}] {h.citation}\n{h.chunk.text}" for i, h in enumerate(hits, 1))


@tool
def archive_list() -> str:
    """List the documents in the archive with their number of passages."""
    docs = open_archive().documents()
    if not docs:
        return "the archive is empty"
    return "\n".join(f"{d.path}\t{d.kind}\t{d.chunks} passages" for d in docs)
