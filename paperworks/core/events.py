"""The run's event log (``events.jsonl``) and the context variable through which anything emits.

Events are flat JSON objects: ``{"t": <unix time>, "type": ..., ...}``. Types used so far:
``run_start``, ``run_end``, ``node_start``, ``node_end``, ``model_call``, ``tool_call``, ``limit``.
A listener (the CLI's live view) may be attached; ``token`` events go to listeners only, never to disk.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

Listener = Callable[[dict[str, Any]], None]

EPHEMERAL = {"token"}
"""Event types shown live but not written to disk."""


class EventLog:
    """Append-only JSONL writer; safe to call from several threads."""

    def __init__(self, path: Path | None, listeners: list[Listener] | None = None,
                 tags: dict[str, Any] | None = None, _lock: Any = None) -> None:
        self.path = path
        self.listeners: list[Listener] = list(listeners or [])
        self.tags = dict(tags or {})
        self._lock = _lock or threading.Lock()

    def bind(self, **tags: Any) -> EventLog:
        """A log writing to the same file, adding ``tags`` to every event (e.g. ``sample="q1#1"``)."""
        return EventLog(self.path, self.listeners, {**self.tags, **tags}, self._lock)

    def emit(self, type: str, **fields: Any) -> dict[str, Any]:
        """Record one event; returns it."""
        event = {"t": round(time.time(), 3), "type": type, **self.tags, **fields}
        if self.path is not None and type not in EPHEMERAL:
            line = json.dumps(event, default=str, ensure_ascii=False)
            with self._lock, open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:  # a broken display never breaks a run
                pass
        return event


current_events: ContextVar[EventLog | None] = ContextVar("paperworks_events", default=None)


def emit(type: str, **fields: Any) -> None:
    """Emit into the current run's event log, if there is one."""
    log = current_events.get()
    if log is not None:
        log.emit(type, **fields)


def read_events(path: Path) -> list[dict[str, Any]]:
    """All events of a log; a torn last line (the process was killed mid-write) is skipped."""
    events: list[dict[str, Any]] = []
    if not path.exists():
        return events
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events
