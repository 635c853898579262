"""On-disk response cache, keyed on model, messages, tools, generation config and seed.

SQLite in WAL mode so that several processes (eval workers) can share one file.
Imports nothing heavy.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from paperworks.core.paths import home_dir
from paperworks.models.types import ModelResponse


def cache_key(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
              config: dict[str, Any]) -> str:
    """A stable hash of everything that determines a reply."""
    blob = json.dumps(
        {"model": model, "messages": messages, "tools": tools or [], "config": config},
        sort_keys=True, default=str, ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def default_cache_path() -> Path:
    """``$PAPERWORKS_RESPONSE_CACHE``, else ``$PAPERWORKS_HOME/responses.sqlite``."""
    env = os.environ.get("PAPERWORKS_RESPONSE_CACHE")
    return Path(env).expanduser() if env else home_dir() / "responses.sqlite"


class ResponseCache:
    """A persistent map from cache key to ``ModelResponse``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, response TEXT, "
            "created REAL DEFAULT (unixepoch()))"
        )
        self._conn.commit()

    def get(self, key: str) -> ModelResponse | None:
        """The cached response, marked ``cached=True`` with zero latency, or None."""
        with self._lock:
            row = self._conn.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            resp = ModelResponse.from_dict(json.loads(row[0]))
        except (json.JSONDecodeError, TypeError, KeyError):
            return None
        resp.cached = True
        resp.latency_s = 0.0
        return resp

    def put(self, key: str, response: ModelResponse) -> None:
        """Store a response (last writer wins)."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, model, response) VALUES (?, ?, ?)",
                (key, response.model, json.dumps(response.to_dict(), ensure_ascii=False)),
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


_caches: dict[Path, ResponseCache] = {}
_caches_lock = threading.Lock()


def shared_cache(path: Path | None = None) -> ResponseCache:
    """One ``ResponseCache`` per file per process."""
    path = (path or default_cache_path()).resolve()
    with _caches_lock:
        if path not in _caches:
            _caches[path] = ResponseCache(path)
        return _caches[path]
