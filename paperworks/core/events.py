"""The run's event log (``events.jsonl``) and the context variable through which anything emits.

Events are flat JSON objects: ``{"t": <unix time>, "type": ..., ...}``. Types used so far:
``run_start``, ``run_end``, ``node_start``, ``node_end``, ``model_call``, ``tool_call``, ``limit``.
A listener (the CLI's live view) may be attached; ``token`` events go to listeners only, never to disk.

Values are written as JSON, never as Python reprs: pydantic models, dataclasses and objects with a
``model_dump``/``dict`` method are converted (``to_jsonable``). Large, repeated payloads — a model
call's full prompt — go to content-addressed files beside the log (``prompts/<sha>.json``, see
``store_blob``) and the event holds that relative path, so a trace can be read back and replayed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
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
            line = json.dumps(event, default=_default, ensure_ascii=False)
            with self._lock, open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:  # a broken display never breaks a run
                pass
        return event


    def put_blob(self, data: Any) -> str | None:
        """Write ``data`` as JSON to ``prompts/<sha>.json`` beside the log (once per content); returns
        that path relative to the log's folder, or None for a log without a file."""
        if self.path is None:
            return None
        text = json.dumps(data, default=_default, ensure_ascii=False, sort_keys=True)
        name = f"prompts/{hashlib.sha256(text.encode()).hexdigest()[:20]}.json"
        target = self.path.parent / name
        if not target.exists():
            target.parent.mkdir(exist_ok=True)
            tmp = target.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, target)
        return name


def to_jsonable(value: Any) -> Any:
    """``value`` with every non-JSON object converted (pydantic, dataclasses, ``dict()``-able), else ``str``."""
    return json.loads(json.dumps(value, default=_default, ensure_ascii=False))


def _default(obj: Any) -> Any:
    """``json.dumps`` fallback: structured data stays structured; only the unknown becomes a string."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    if isinstance(obj, bytes):
        return obj.decode("utf-8", errors="replace")
    to_dict = getattr(obj, "dict", None)
    if callable(to_dict):
        try:
            return to_dict()
        except Exception:
            pass
    return str(obj)


current_events: ContextVar[EventLog | None] = ContextVar("paperworks_events", default=None)


def emit(type: str, **fields: Any) -> None:
    """Emit into the current run's event log, if there is one."""
    log = current_events.get()
    if log is not None:
        log.emit(type, **fields)


def store_blob(data: Any) -> str | None:
    """``put_blob`` into the current run's log (None outside a recorded run)."""
    log = current_events.get()
    return log.put_blob(data) if log is not None else None


def read_events(path: Path) -> list[dict[str, Any]]:
    """All events of a log; a torn last line (the process was killed mid-write), a damaged line (bytes that
    are not UTF-8, JSON nested too deeply) and any line that is not a JSON object are skipped."""
    events: list[dict[str, Any]] = []
    if not path.is_file():
        return events
    for line in path.read_bytes().decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            events.append(event)
    return events
