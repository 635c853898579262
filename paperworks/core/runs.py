"""Run directories and their records (DESIGN.md, "Runs and logs").

``runs/<timestamp>_<name>_<id>/`` holds ``run.json`` (what was asked, versions, status, usage),
``events.jsonl``, ``checkpoints.sqlite`` and ``artifacts/``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import secrets
import subprocess
import time
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from paperworks import __version__
from paperworks.core.artifacts import ArtifactStore
from paperworks.core.errors import UserError
from paperworks.core.events import EventLog
from paperworks.core.paths import runs_dir

STATUSES = ("running", "succeeded", "failed", "cancelled", "limit_exceeded", "step_limit")
SHOWN_STATUSES = (*STATUSES, "interrupted")
"""``interrupted``: run.json still says running, but no process holds the run's lock (it was killed)."""
_VERSIONED = ("torch", "transformers", "litellm", "langgraph", "pydantic")


def now_iso() -> str:
    """Current UTC time, ISO 8601, seconds precision."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


@lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """Versions of Python, paperworks and the main libraries (read from metadata, nothing imported)."""
    out = {"python": platform.python_version(), "paperworks": __version__}
    for dist in _VERSIONED:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


@lru_cache(maxsize=1)
def git_sha() -> str | None:
    """The commit of the paperworks checkout, if it is one."""
    try:
        root = Path(__file__).resolve().parents[2]
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5
        )
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


class RunDir:
    """One run's directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.id = path.name.rsplit("_", 1)[-1]

    # -- creation and lookup -------------------------------------------------
    @classmethod
    def create(cls, name: str, record: dict[str, Any], root: Path | None = None) -> RunDir:
        """Make a new run directory and write its first ``run.json``."""
        root = root or runs_dir()
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        safe = re.sub(r"[^A-Za-z0-9.-]+", "-", name).strip("-") or "run"
        path = root / f"{stamp}_{safe}_{secrets.token_hex(4)}"
        try:
            path.mkdir(parents=True)
        except OSError as exc:  # a --log-dir that is a file, unwritable, or on a read-only file system
            raise UserError(f"cannot create a run directory in {root}: {exc.strerror or exc}") from exc
        run = cls(path)
        full = {
            "id": run.id,
            "status": "running",
            "created_at": now_iso(),
            "created_ns": time.time_ns(),  # orders runs made in the same second (folder names are to the second)
            "versions": versions(),
            "git_sha": git_sha(),
            **record,
        }
        run.write_record(full)
        return run

    @classmethod
    def open(cls, ref: str, root: Path | None = None) -> RunDir:
        """A run by directory path or by id (the suffix of its folder name)."""
        candidate = Path(ref).expanduser()
        if (candidate / "run.json").is_file():
            return cls(candidate)
        root = root or runs_dir()
        matches = sorted(root.glob(f"*_{ref}")) if root.is_dir() and re.fullmatch(r"[\w.-]+", ref) else []
        matches = [m for m in matches if (m / "run.json").is_file()]
        if len(matches) == 1:
            return cls(matches[0])
        if not matches:
            raise UserError(f"no run '{ref}' (not a run directory, and no run with that id in {root}/)")
        raise UserError(f"run id '{ref}' is ambiguous in {root}/: {', '.join(m.name for m in matches)}")

    # -- files ---------------------------------------------------------------
    @property
    def record_path(self) -> Path:
        return self.path / "run.json"

    @property
    def events_path(self) -> Path:
        return self.path / "events.jsonl"

    @property
    def checkpoints_path(self) -> Path:
        return self.path / "checkpoints.sqlite"

    @property
    def artifacts(self) -> ArtifactStore:
        return ArtifactStore(self.path / "artifacts")

    def events(self, listeners: list[Any] | None = None) -> EventLog:
        """The run's event log, appending to ``events.jsonl``."""
        return EventLog(self.events_path, listeners)

    def read_record(self) -> dict[str, Any]:
        """``run.json`` as a dict; a clear error if it is unreadable."""
        try:
            data = json.loads(self.record_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad JSON, or bytes that are not UTF-8
            raise UserError(f"{self.record_path}: unreadable run record ({' '.join(str(exc).split())[:200]})") from exc
        if not isinstance(data, dict):
            raise UserError(f"{self.record_path}: expected a JSON object")
        return data

    def write_record(self, record: dict[str, Any]) -> None:
        """Replace ``run.json`` atomically."""
        tmp = self.record_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(record, indent=2, default=str, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.record_path)

    def update_record(self, **fields: Any) -> dict[str, Any]:
        """Merge ``fields`` into ``run.json`` and return the new record."""
        record = self.read_record()
        record.update(fields)
        self.write_record(record)
        return record


def shown_status(record: dict[str, Any], path: Path) -> str:
    """The status to show: ``interrupted`` for a "running" run whose writer is gone (killed)."""
    from paperworks.core.lock import is_locked

    status = str(record.get("status", "?"))
    if status == "running" and not is_locked(path):
        return "interrupted"
    return status


def _stamp(path: Path) -> str:
    return path.name.split("_", 1)[0]


def _created_ns(record: dict[str, Any]) -> int:
    value = record.get("created_ns")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def list_runs(root: Path | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """The most recent runs' records (newest first), each with its ``dir`` and its ``shown_status``."""
    root = root or runs_dir()
    if not root.is_dir():
        return []
    paths = sorted((p for p in root.iterdir() if (p / "run.json").is_file()), reverse=True)
    # Folder names sort to the second; read on to the end of the last second taken, then order within it by
    # the record's creation time in nanoseconds (runs without one, from older versions, sort by name).
    taken = 0
    while taken < len(paths) and (taken < limit or (taken > 0 and _stamp(paths[taken]) == _stamp(paths[taken - 1]))):
        taken += 1
    out: list[dict[str, Any]] = []
    for path in paths[:taken]:
        try:
            record = RunDir(path).read_record()
        except UserError:
            record = {"id": RunDir(path).id, "status": "unreadable"}
        record["dir"] = str(path)
        record["shown_status"] = shown_status(record, path)
        out.append(record)
    out.sort(key=lambda r: (_stamp(Path(r["dir"])), _created_ns(r)), reverse=True)  # stable: name order among equals
    return out[:limit]
