"""HistAgent's specialists and their tools; where a run's files are (attachments, the archive).

Relative paths (attachments, the ``archive`` setting) resolve against the suite folder in an eval run
(``suite_path`` in run.json) and against the current directory otherwise. An ``archive`` setting that
names a folder of documents (no ``catalog.sqlite`` in it) is ingested once into a cached index under
``<PAPERWORKS_HOME>/archive-cache/``; unchanged files cost nothing on later runs (content hashes).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperworks.tools.registry import Tool, ToolError


@dataclass(frozen=True)
class Specialist:
    """One specialist agent: its name (``ask_<name>`` for the manager) and the tools it may call."""

    name: str
    tools: tuple[str, ...]


SPECIALISTS: tuple[Specialist, ...] = (
    Specialist("archive", ("archive_search", "archive_list")),
    Specialist("ocr", ("ocr", "image_orientation", "identify_language")),
    Specialist("translator", ("translate_text", "identify_language")),
    Specialist("file_reader", ("read_document", "calculate")),
    Specialist("image_analyst", ("describe_image", "ocr", "video_frames")),
    Specialist("speech", ("transcribe_audio",)),
)
"""The specialists; one whose tools are not registered (no speech recogniser installed) is left out."""


def _load_tools() -> dict[str, Tool]:
    """Every tool of the registry's table, by name (their modules load on first use)."""
    from paperworks.tools.registry import TOOLS

    return TOOLS


def specialists(names: list[str] | None = None) -> list[Specialist]:
    """The specialists offered (all by default) whose tools are registered, with only those tools."""
    registry = _load_tools()
    found = [Specialist(s.name, tuple(t for t in s.tools if t in registry)) for s in SPECIALISTS]
    return [s for s in found if s.tools and (names is None or s.name in names)]


def tools_for(spec: Specialist, archive: str) -> dict[str, Tool]:
    """A specialist's tools by name; the archive tools are bound to ``archive`` when it is set."""
    registry = _load_tools()
    out = {name: registry[name] for name in spec.tools if name in registry}
    if archive and spec.name == "archive":
        out.update(bound_archive_tools(archive))
    return out


_ARCHIVE_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="histagent-archive")
"""The archive's SQLite catalog may only be used by the thread that opened it: all archive work of the
bound tools (ingest, search, list) runs on this one thread."""


def bound_archive_tools(archive: str) -> dict[str, Tool]:
    """``archive_search`` and ``archive_list`` over the archive at ``archive`` (an index folder, or a
    folder of documents that is ingested on first use)."""
    from paperworks.tools.archive import tools as archive_tools

    def search(query: str, k: int) -> str:
        hits = archive_tools.open_archive(str(index_for(archive))).search(query, k)
        if not hits:
            return "no passages found (is the archive empty?)"
        return "\n\n".join(f"[{i}] {h.citation}\n{h.chunk.text}" for i, h in enumerate(hits, 1))

    def listing() -> str:
        docs = archive_tools.open_archive(str(index_for(archive))).documents()
        return "\n".join(f"{d.path}\t{d.kind}\t{d.chunks} passages" for d in docs) or "the archive is empty"

    async def archive_search(query: str, k: int = 5) -> str:
        """Search the document archive; each passage comes with its citation (document, page, lines).

        Args:
            query: words or a question, in any language.
            k: how many passages to return (1-20).
        """
        if not 1 <= k <= 20:
            raise ToolError("k must be between 1 and 20")
        return await asyncio.get_running_loop().run_in_executor(_ARCHIVE_THREAD, search, query, k)

    async def archive_list() -> str:
        """List the documents in the archive with their number of passages."""
        return await asyncio.get_running_loop().run_in_executor(_ARCHIVE_THREAD, listing)

    return {"archive_search": Tool(archive_search), "archive_list": Tool(archive_list)}


_ingest_lock = threading.Lock()


@functools.cache
def _ingested(folder: str, cache_root: str) -> Path:
    from paperworks.tools.archive.tools import open_archive

    index = Path(cache_root) / hashlib.sha256(folder.encode()).hexdigest()[:16]
    report = open_archive(str(index)).add([folder])
    if report.failed and not (report.added or report.updated or report.unchanged):
        raise ToolError(f"archive {folder}: no document could be read ({report.failed[0]})")
    return index


def index_for(archive: str) -> Path:
    """The index folder of ``archive`` (an absolute path): itself if it holds an index, else the cached
    index of its documents, ingested (incrementally) once per process."""
    path = Path(archive)
    if not path.is_dir():
        raise ToolError(f"archive {archive}: no such folder")
    if (path / "catalog.sqlite").is_file():
        return path
    from paperworks.core.paths import home_dir

    with _ingest_lock:
        return _ingested(str(path.resolve()), str(home_dir() / "archive-cache"))


def resolve_paths(paths: list[str], base: Path) -> list[str]:
    """Absolute paths for attachments (relative ones against ``base``), their folders readable by the
    tools during the run."""
    from paperworks.tools.documents.inputs import allow_input_dir

    out = []
    for p in paths:
        path = Path(p).expanduser()
        path = path if path.is_absolute() else base / path
        allow_input_dir(path.parent)
        out.append(str(path.resolve()))
    return out


def resolve_archive(archive: str, base: Path) -> str:
    """The ``archive`` setting as an absolute path ("" stays "": the default archive)."""
    if not archive:
        return ""
    from paperworks.tools.documents.inputs import allow_input_dir

    path = Path(archive).expanduser()
    path = (path if path.is_absolute() else base / path).resolve()
    allow_input_dir(path)
    return str(path)


def record_use(specialist: str, call: Any, observation: str, ok: bool, limit: int = 600) -> dict[str, Any]:
    """One ``tools_used`` entry: who called which tool with what, and (the head of) what came back."""
    return {"specialist": specialist, "tool": call.name, "arguments": call.arguments, "ok": ok,
            "output": observation if len(observation) <= limit else observation[:limit] + " …"}


def attachment_path(call: Any, attachments: list[str]) -> Any:
    """``call`` with a ``path`` argument that names an attachment relatively (as the question gave it,
    or by its file name) replaced by the attachment's absolute path."""
    path = call.arguments.get("path") if isinstance(call.arguments, dict) else None
    if not isinstance(path, str) or not path or Path(path).is_absolute():
        return call
    tail = path.removeprefix("./")
    hits = [a for a in attachments if a.endswith("/" + tail)] or \
        [a for a in attachments if Path(a).name == Path(tail).name]
    if len(hits) != 1:
        return call
    return type(call)(id=call.id, name=call.name, arguments={**call.arguments, "path": hits[0]})


def sources(used: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Evidence when the manager cited none: the files the specialists' tools read successfully, and the
    top passage of each successful archive search (document, page, first line, as its citation says)."""
    out: list[dict[str, Any]] = []
    for u in used:
        raw = u.get("arguments")
        args: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if not u.get("ok"):
            continue
        if args.get("path"):
            out.append({"document": args["path"], "tool": u["tool"]})
        elif u.get("tool") == "archive_search" and str(u.get("output", "")).startswith("[1] "):
            out.append(_citation(str(u["output"]).splitlines()[0][4:]))
    return out


def _citation(text: str) -> dict[str, Any]:
    """``path, page 3, lines 4-9`` → {document, page, line, tool}."""
    parts = text.split(", ")
    item: dict[str, Any] = {"document": parts[0], "tool": "archive_search"}
    for part in parts[1:]:
        word, _, number = part.partition(" ")
        first = number.split("-")[0]
        if word == "page" and first.isdigit():
            item["page"] = int(first)
        elif word in ("line", "lines") and first.isdigit():
            item["line"] = int(first)
    return item


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out (so a small model's prompt fits)."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut; ask for less: a page, a query]"


def preflight(inp: Any, cfg: Any, base: Path) -> None:
    """Before a run exists (``paperworks run``): every attachment names an existing, non-empty regular file and
    the ``archive`` setting an existing folder or file (relative paths against ``base``); a one-line
    ``UserError`` naming the bad one otherwise. An eval run resolves against its suite and is not checked here."""
    from paperworks.core.errors import UserError

    for i, raw in enumerate(getattr(inp, "attachments", None) or []):
        where = f"input: attachments[{i}]"
        if not raw.strip():
            raise UserError(f"{where}: empty path")
        path = Path(raw).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.exists():
            raise UserError(f"{where}: no such file {raw!r}")
        if not path.is_file():
            raise UserError(f"{where}: {raw!r} is not a regular file (a folder?)")
        if path.stat().st_size == 0:
            raise UserError(f"{where}: {raw!r} is empty (0 bytes)")
    archive = str(getattr(cfg, "archive", "") or "")
    if archive and not (Path(archive).expanduser() if Path(archive).expanduser().is_absolute()
                        else base / Path(archive).expanduser()).exists():
        raise UserError(f"setting 'archive': no such folder or file {archive!r} (workflow 'histagent')")
