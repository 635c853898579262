"""``Archive``: a persistent, incrementally updated document index with hybrid retrieval.

Dense: a chromadb collection embedded offline with the packaged all-MiniLM-L6-v2. Lexical: BM25
(bm25s) over the same chunks. The two rankings are fused by reciprocal rank fusion, and every hit
cites its document, page and lines. Files are keyed by absolute path and content hash: adding an
unchanged file again does nothing.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from paperworks.core.errors import UserError, one_line
from paperworks.core.paths import home_dir
from paperworks.tools.archive.catalog import Catalog, DocumentEntry
from paperworks.tools.archive.chunking import Chunk, chunk_document
from paperworks.tools.archive.embedding import embedding_function
from paperworks.tools.archive.lexical import LexicalIndex, reciprocal_rank_fusion
from paperworks.tools.documents import SUPPORTED, read_document

COLLECTION = "archive"


def default_archive_dir() -> Path:
    """``$PAPERWORKS_ARCHIVE`` or ``<PAPERWORKS_HOME>/archive``."""
    env = os.environ.get("PAPERWORKS_ARCHIVE")
    return Path(env).expanduser() if env else home_dir() / "archive"


MAX_QUERY_CHARS = 2000
"""Longest search query: the embedder reads only its first few hundred tokens anyway, and BM25's time grows
with the query's length."""


@dataclass
class Hit:
    """One search result with its citation."""

    document: str
    chunk: Chunk
    score: float
    """Fused reciprocal-rank score (higher is better)."""
    dense_rank: int | None
    lexical_rank: int | None

    @property
    def citation(self) -> str:
        """``path, page 3, lines 4-9``."""
        return self.chunk.citation(self.document)


@dataclass
class IngestReport:
    """What one ``add`` did; ``failed`` holds one line per file that could not be read."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    chunks: int = 0
    seconds: float = 0.0


@dataclass
class _Pending:
    """A file read and chunked, waiting to be embedded and recorded."""

    path: Path
    key: str
    sha256: str
    kind: str
    chunks: list[Chunk]
    update: bool


def _doc_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files named, and supported files found recursively in folders named (hidden ones skipped),
    each once."""
    seen: set[Path] = set()
    for path in _walk(paths):
        resolved = path.resolve()
        if resolved not in seen:
            seen.add(resolved)
            yield path


def _walk(paths: Iterable[str | Path]) -> Iterator[Path]:
    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            for child in sorted(p.rglob("*")):
                rel = child.relative_to(p).parts
                if child.is_file() and child.suffix.lower() in SUPPORTED and not any(
                        part.startswith(".") for part in rel):
                    yield child
        else:
            yield p  # missing or unsupported files are reported by read_document

_M = TypeVar("_M", bound=Callable[..., Any])


def _serialised(method: _M) -> _M:
    """Run ``method`` under its archive's lock (SQLite, chromadb and the BM25 index are not thread-safe)."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return method(self, *args, **kwargs)

    return cast(_M, wrapper)


class Archive:
    """An archive folder: ``catalog.sqlite`` plus a chromadb store in ``chroma/``."""

    def __init__(self, root: str | Path | None = None, ocr_languages: str | None = None) -> None:
        self.root = Path(root).expanduser() if root else default_archive_dir()
        self.root.mkdir(parents=True, exist_ok=True)
        self.ocr_languages = ocr_languages
        self.catalog = Catalog(self.root / "catalog.sqlite")
        self.lock = threading.RLock()
        """Serialises every public method: tools run on worker threads and samples run concurrently."""
        self._collection: Any = None
        self._lexical: LexicalIndex | None = None
        self._lexical_version = -1

    # --- stores -------------------------------------------------------------------------------
    @property
    def collection(self) -> Any:
        """The chromadb collection (opened on first use)."""
        if self._collection is None:
            import chromadb
            from chromadb.config import Settings

            client = chromadb.PersistentClient(path=str(self.root / "chroma"),
                                               settings=Settings(anonymized_telemetry=False))
            self._collection = client.get_or_create_collection(
                COLLECTION, embedding_function=embedding_function(), metadata={"hnsw:space": "cosine"})
        return self._collection

    def _lexical_index(self) -> LexicalIndex:
        version = self.catalog.version()
        if self._lexical is None or version != self._lexical_version:
            self._lexical = LexicalIndex(*self.catalog.all_chunks())
            self._lexical_version = version
        return self._lexical

    @_serialised
    def close(self) -> None:
        """Close the catalog (chromadb persists on every write)."""
        self.catalog.close()

    # --- ingest -------------------------------------------------------------------------------
    @_serialised
    def add(self, paths: Iterable[str | Path], on_file: Any = None, batch_chunks: int = 256) -> IngestReport:
        """Ingest files and folders. Unchanged files (same path and hash) are skipped; a file that
        fails is reported in ``failed`` (``path: problem``) and the rest go on. Chunks of several
        files are embedded and written together, ``batch_chunks`` at a time.

        ``on_file(path, status)`` is called after each file (status: added/updated/unchanged/failed).
        """
        report = IngestReport()
        start = time.monotonic()
        pending: list[_Pending] = []

        def flush() -> None:
            self._write(pending)
            for item in pending:
                (report.updated if item.update else report.added).append(item.key)
                report.chunks += len(item.chunks)
                if on_file:
                    on_file(item.path, "updated" if item.update else "added")
            pending.clear()

        for path in iter_files(paths):
            item = self._prepare(path, report)
            if isinstance(item, str):
                if on_file:
                    on_file(path, item)
                continue
            pending.append(item)
            if sum(len(p.chunks) for p in pending) >= batch_chunks:
                flush()
        flush()
        report.seconds = round(time.monotonic() - start, 3)
        return report

    def _prepare(self, path: Path, report: IngestReport) -> _Pending | str:
        """Read and chunk a changed or new file; ``"unchanged"`` or ``"failed"`` (with a report
        line) otherwise."""
        key = str(path.resolve())
        try:
            sha = file_sha256(path) if path.is_file() else ""
            entry = self.catalog.get(key)
            if entry is not None and entry.sha256 == sha:
                report.unchanged.append(key)
                return "unchanged"
            doc = read_document(path, self.ocr_languages)
            chunks = chunk_document(doc)
            if not chunks:
                raise UserError(f"{path}: no text found")
        except (UserError, OSError) as exc:
            report.failed.append(one_line(exc) if str(path) in str(exc) else f"{path}: {one_line(exc)}")
            return "failed"
        return _Pending(path, key, sha, doc.kind, chunks, entry is not None)

    @_serialised
    def add_chunks(self, key: str, sha256: str, kind: str, chunks: list[Chunk]) -> None:
        """Index ready-made chunks under document ``key`` (replacing a previous version)."""
        self._write([_Pending(Path(key), key, sha256, kind, chunks, False)])

    def _write(self, items: list[_Pending]) -> None:
        """Embed and store the chunks of ``items``, then record them in the catalog.

        Vectors are written before the catalog entries: a process killed in between leaves the
        files unrecorded, so the next ``add`` indexes them again (upserts by the same ids)."""
        if not items:
            return
        ids: list[str] = []
        texts: list[str] = []
        metas: list[dict[str, Any]] = []
        for item in items:
            doc_id = _doc_id(item.key)
            for i, c in enumerate(item.chunks):
                ids.append(f"{doc_id}:{i}")
                texts.append(c.text)
                metas.append({"path": item.key, "page": c.page or 0, "line": c.line_start})
        for start in range(0, len(ids), 256):
            part = slice(start, start + 256)
            self.collection.upsert(ids=ids[part], documents=texts[part], metadatas=metas[part])
        keep = set(ids)
        stale = [cid for item in items for cid in self.catalog.chunk_ids(_doc_id(item.key)) if cid not in keep]
        if stale:
            self.collection.delete(ids=stale)
        for item in items:
            self.catalog.put(item.key, _doc_id(item.key), item.sha256, item.kind, item.chunks)

    @_serialised
    def remove(self, paths: Iterable[str | Path]) -> tuple[list[str], list[str]]:
        """Forget files (or every file under a folder); returns (removed, not found)."""
        removed, missing = [], []
        known = [d.path for d in self.catalog.documents()]
        for raw in paths:
            key = str(Path(raw).expanduser().resolve())
            matches = [k for k in known if k == key or k.startswith(key.rstrip("/") + "/")]
            if not matches:
                missing.append(str(raw))
            for match in matches:
                ids = self.catalog.remove(match)
                if ids:
                    self.collection.delete(ids=ids)
                removed.append(match)
        return removed, missing

    @_serialised
    def documents(self) -> list[DocumentEntry]:
        """The files in the archive, by path."""
        return self.catalog.documents()

    # --- search -------------------------------------------------------------------------------
    @_serialised
    def search(self, query: str, k: int = 5, pool: int = 30, mode: str = "hybrid") -> list[Hit]:
        """The best ``k`` passages for ``query``. ``mode``: ``hybrid`` (RRF of dense and BM25),
        ``dense`` or ``lexical``; each ranking contributes its top ``max(pool, k)``."""
        if mode not in ("hybrid", "dense", "lexical"):
            raise UserError(f"search mode '{mode}' is not one of hybrid, dense, lexical")
        if not query.strip():
            raise UserError("empty search query")
        if len(query) > MAX_QUERY_CHARS:
            raise UserError(f"search query of {len(query)} characters; at most {MAX_QUERY_CHARS} (search with a few "
                            "words or a sentence)")
        depth = max(pool, k)
        dense: list[str] = []
        lexical: list[str] = []
        if mode in ("hybrid", "lexical"):
            lexical = [cid for cid, _ in self._lexical_index().search(query, depth)]
        if mode in ("hybrid", "dense"):
            count = self.collection.count()
            if count:
                res = self.collection.query(query_texts=[query], n_results=min(depth, count), include=[])
                dense = list(res["ids"][0])
        fused = reciprocal_rank_fusion([r for r in (dense, lexical) if r])[:k]
        found = self.catalog.chunks([cid for cid, _ in fused])
        d_rank = {cid: i for i, cid in enumerate(dense, 1)}
        l_rank = {cid: i for i, cid in enumerate(lexical, 1)}
        return [Hit(found[cid][0], found[cid][1], round(score, 6), d_rank.get(cid), l_rank.get(cid))
                for cid, score in fused if cid in found]
