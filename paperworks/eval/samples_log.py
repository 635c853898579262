"""``samples.jsonl``: append-only, one ``SampleRecord`` per finished (sample, epoch).

Appends are whole lines under a lock, flushed and fsynced, so a SIGKILL leaves at most one torn last
line; ``repair`` cuts it off before an evaluation resumes.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from paperworks.eval.records import SampleRecord


class SamplesLog:
    """Reader and appender of one eval run's ``samples.jsonl``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def repair(self) -> int:
        """Drop a torn last line (left by a kill mid-write); returns the bytes removed."""
        if not self.path.exists():
            return 0
        data = self.path.read_bytes()
        if not data or data.endswith(b"\n"):
            return 0
        keep = data.rfind(b"\n") + 1
        with open(self.path, "r+b") as fh:
            fh.truncate(keep)
        return len(data) - keep

    def read(self) -> list[SampleRecord]:
        """Every complete record; a later line for the same (id, epoch) replaces an earlier one."""
        records: dict[tuple[str, int], SampleRecord] = {}
        if not self.path.exists():
            return []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                rec = SampleRecord.from_dict(json.loads(line))
            except (json.JSONDecodeError, TypeError):
                continue
            records[(rec.id, rec.epoch)] = rec
        return list(records.values())

    def append(self, record: SampleRecord) -> None:
        """Append one record durably."""
        line = json.dumps(record.to_dict(), ensure_ascii=False, default=str) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
