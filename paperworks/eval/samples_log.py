"""``samples.jsonl``: append-only, one ``SampleRecord`` per finished (sample, epoch).

Appends are whole lines under a lock, flushed and fsynced, so a SIGKILL leaves at most one torn last
line; ``repair`` cuts it off before an evaluation resumes.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.eval.records import SampleRecord

_TYPES: dict[str, Any] = {"input": dict, "scores": dict, "usage": dict, "metadata": dict, "artifacts": list,
                          "status": str, "time_s": (int, float), "started_at": str, "finished_at": str}
_OPTIONAL: dict[str, Any] = {"error": str, "error_kind": str, "limit": str, "working_s": (int, float),
                             "waiting_s": (int, float)}


def _parse(raw: bytes) -> SampleRecord | None:
    """One line as a record, or None when it is not a well-formed one."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return record_from(data)


def record_from(data: Any) -> SampleRecord | None:
    """A parsed line as a ``SampleRecord``, or None unless it is an object with the record's fields, each of
    its type (what ``view``, ``compare`` and a resume may rely on)."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or isinstance(data.get("epoch"), bool) \
            or not isinstance(data.get("epoch"), int) or "input" not in data or "target" not in data:
        return None
    for name, kind in _TYPES.items():
        if name in data and not isinstance(data[name], kind):
            return None
    for name, kind in _OPTIONAL.items():
        if data.get(name) is not None and not isinstance(data[name], kind):
            return None
    if not all(isinstance(v, dict) for v in data.get("scores", {}).values()):
        return None
    try:
        return SampleRecord.from_dict(data)
    except TypeError:
        return None


class SamplesLog:
    """Reader and appender of one eval run's ``samples.jsonl``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def repair(self) -> int:
        """Drop a torn last line (left by a kill mid-write); returns the bytes removed."""
        if not self.path.exists():
            return 0
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise UserError(f"{self.path}: cannot read the samples log ({exc.strerror or exc})") from exc
        if not data or data.endswith(b"\n"):
            return 0
        keep = data.rfind(b"\n") + 1
        with open(self.path, "r+b") as fh:
            fh.truncate(keep)
        return len(data) - keep

    def read(self) -> list[SampleRecord]:
        """Every complete, well-formed record; a later line for the same (id, epoch) replaces an earlier one.

        A line that is not a JSON object of a ``SampleRecord`` (torn, garbage, undecodable bytes, a field of
        the wrong type) is skipped: the view shows what is intact, and a resumed eval runs that sample again."""
        records: dict[tuple[str, int], SampleRecord] = {}
        if not self.path.exists():
            return []
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise UserError(f"{self.path}: cannot read the samples log ({exc.strerror or exc})") from exc
        for raw in data.split(b"\n"):
            rec = _parse(raw)
            if rec is not None:
                records[(rec.id, rec.epoch)] = rec
        return list(records.values())

    def append(self, record: SampleRecord) -> None:
        """Append one record durably."""
        data = record.to_dict()
        line = json.dumps(data, ensure_ascii=False, default=str) + "\n"
        try:
            encoded = line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (from a model's reply, a tool): escaped, still valid JSON
            encoded = (json.dumps(data, ensure_ascii=True, default=str) + "\n").encode("ascii")
        with self._lock, open(self.path, "ab") as fh:
            fh.write(encoded)
            fh.flush()
            os.fsync(fh.fileno())
