"""The archive's catalog (SQLite): which files are in it, their content hashes, and their chunks'
text and citations. Chroma holds the vectors; this holds what BM25 and citations need."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from paperworks.tools.archive.chunking import Chunk

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    path TEXT PRIMARY KEY, doc_id TEXT NOT NULL, sha256 TEXT NOT NULL, kind TEXT NOT NULL,
    chunks INTEGER NOT NULL, added_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, ord INTEGER NOT NULL, text TEXT NOT NULL,
    page INTEGER, label TEXT NOT NULL, line_start INTEGER NOT NULL, line_end INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass
class DocumentEntry:
    """One file in the archive."""

    path: str
    doc_id: str
    sha256: str
    kind: str
    chunks: int
    added_at: float


class Catalog:
    """SQLite file ``catalog.sqlite`` in the archive folder."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)  # Archive serialises use
        self.db.executescript(SCHEMA)
        self.db.commit()

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def get(self, path: str) -> DocumentEntry | None:
        """The entry for ``path`` (absolute), if any."""
        row = self.db.execute("SELECT path, doc_id, sha256, kind, chunks, added_at FROM documents "
                              "WHERE path = ?", (path,)).fetchone()
        return DocumentEntry(*row) if row else None

    def documents(self) -> list[DocumentEntry]:
        """All entries, by path."""
        rows = self.db.execute("SELECT path, doc_id, sha256, kind, chunks, added_at FROM documents "
                               "ORDER BY path").fetchall()
        return [DocumentEntry(*r) for r in rows]

    def put(self, path: str, doc_id: str, sha256: str, kind: str, chunks: list[Chunk]) -> list[str]:
        """Record a document and its chunks (replacing any previous version); returns chunk ids."""
        ids = [f"{doc_id}:{i}" for i in range(len(chunks))]
        with self.db:
            self._delete(doc_id)
            self.db.execute("INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?, ?, ?)",
                            (path, doc_id, sha256, kind, len(chunks), time.time()))
            self.db.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
                (cid, doc_id, i, c.text, c.page, c.label, c.line_start, c.line_end)
                for i, (cid, c) in enumerate(zip(ids, chunks, strict=True))])
            self._bump()
        return ids

    def remove(self, path: str) -> list[str]:
        """Forget a document; returns the ids of its chunks (to delete from the vector store)."""
        entry = self.get(path)
        if entry is None:
            return []
        ids = [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE doc_id = ?", (entry.doc_id,))]
        with self.db:
            self._delete(entry.doc_id)
            self.db.execute("DELETE FROM documents WHERE path = ?", (path,))
            self._bump()
        return ids

    def chunk_ids(self, doc_id: str) -> list[str]:
        """Ids of a document's chunks now in the catalog."""
        return [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))]

    def _delete(self, doc_id: str) -> None:
        self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))

    def _bump(self) -> None:
        self.db.execute("INSERT INTO meta VALUES ('version', '1') ON CONFLICT(key) DO UPDATE "
                        "SET value = CAST(value AS INTEGER) + 1")

    def version(self) -> int:
        """A counter that changes whenever documents are added or removed (any process)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        return int(row[0]) if row else 0

    def all_chunks(self) -> tuple[list[str], list[str]]:
        """Every chunk's id and text, in a stable order."""
        rows = self.db.execute("SELECT id, text FROM chunks ORDER BY doc_id, ord").fetchall()
        return [r[0] for r in rows], [r[1] for r in rows]

    def chunks(self, ids: list[str]) -> dict[str, tuple[str, Chunk]]:
        """Chunk id → (document path, chunk) for the given ids."""
        out: dict[str, tuple[str, Chunk]] = {}
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            marks = ",".join("?" * len(part))
            rows = self.db.execute(
                f"SELECT c.id, d.path, c.text, c.page, c.label, c.line_start, c.line_end FROM chunks c "
                f"JOIN documents d ON d.doc_id = c.doc_id WHERE c.id IN ({marks})", part).fetchall()
            for cid, path, text, page, label, ls, le in rows:
                out[cid] = (path, Chunk(text, page, label, ls, le))
        return out
