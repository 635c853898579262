"""Experiment tracking: training curves and headline figures as scalars, kept in memory for ``results.json``
and, when a directory is given, written as TensorBoard event files.

A training loop calls :func:`track` once per step with a value it already computed::

    track("train/loss", loss, step)

With no tracker active (a test calling the loop directly, a library user) that is one context-variable
read and a return: nothing is converted, stored or synchronised. ``paperworks repro NAME`` activates a
:class:`Tracker` around the experiment (:func:`recording`); every tracked scalar then lands in
``results.json`` under ``"scalars"`` as ``{tag: [[step, value], ...]}`` and, with ``--tensorboard DIR``,
in ``DIR/<name>/events.out.tfevents.*`` through TensorBoard's own event-file writer (no torch needed).

Tracking only reads values (a tensor is read with ``.item()``, which copies it); it never draws random
numbers or changes what a loop computes, so seeded results are the same with and without it.

Non-numeric or non-finite values (``None``, strings, NaN, multi-element tensors) are skipped and counted,
with one warning per tag at the first skip, instead of crashing a run. A repro that runs the same loop
for several methods or seeds wraps each in :func:`scope` so each curve gets its own tag prefix.
"""

from __future__ import annotations

import contextvars
import logging
import math
import re
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_CURRENT: contextvars.ContextVar[Tracker | None] = contextvars.ContextVar("paperworks_tracker", default=None)
_SCOPE: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("paperworks_tracker_scope", default=())
_PROCESS: list[Tracker] = []
"""Trackers activated with ``process_wide=True`` (innermost last): seen by threads that do not inherit the
activating context (``threading.Thread`` starts with an empty one)."""
_PROCESS_LOCK = threading.Lock()


class TrackingWarning(UserWarning):
    """A tracked value was skipped (non-numeric or non-finite)."""


def _as_float(value: object) -> float | None:
    """``value`` as a finite float, or ``None`` when it is not one number."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        out = float(value)
    else:
        item = getattr(value, "item", None)  # torch tensors, numpy scalars and 1-element arrays
        size = getattr(value, "numel", None) or getattr(value, "size", None)
        n = size() if callable(size) else size
        if item is None or not callable(item) or (n is not None and n != 1):
            return None
        try:
            raw = item()
        except (TypeError, ValueError, RuntimeError):
            return None
        if not isinstance(raw, int | float):  # complex, str in an object array
            return None
        out = float(raw)
    return out if math.isfinite(out) else None


def _scalar_event(tag: str, value: float, step: int) -> Any:
    """One TensorBoard scalar (``simple_value``, as ``SummaryWriter.add_scalar`` writes it)."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary

    return Event(wall_time=time.time(), step=step, summary=Summary(value=[Summary.Value(tag=tag, simple_value=value)]))


class Tracker:
    """Scalars for one run: ``{tag: [[step, value], ...]}`` in memory, and in TensorBoard event files under
    ``log_dir`` when given. Safe to call from several threads (one lock around each record)."""

    def __init__(self, log_dir: Path | None = None) -> None:
        self.log_dir = log_dir
        self._series: dict[str, list[list[float]]] = {}
        self._next_step: dict[str, int] = {}
        self.skipped: dict[str, int] = {}
        """Tag → how many values were skipped as non-numeric or non-finite."""
        self._lock = threading.Lock()
        self._writer: Any = None
        if log_dir is not None:
            from tensorboard.summary.writer.event_file_writer import EventFileWriter

            log_dir.mkdir(parents=True, exist_ok=True)
            self._writer = EventFileWriter(str(log_dir))

    def record(self, tag: str, value: object, step: int | None = None) -> bool:
        """Record one scalar; ``step`` defaults to one past this tag's last step (0 for its first).
        Returns whether it was kept (``False``: skipped as non-numeric/non-finite, counted in ``skipped``)."""
        number = _as_float(value)
        with self._lock:
            if number is None:
                self.skipped[tag] = self.skipped.get(tag, 0) + 1
                if self.skipped[tag] == 1:
                    warnings.warn(f"tracking: skipped non-numeric or non-finite value {value!r:.60} for "
                                  f"'{tag}' (further skips for this tag are counted, not shown)",
                                  TrackingWarning, stacklevel=3)
                return False
            at = self._next_step.get(tag, 0) if step is None else int(step)
            self._next_step[tag] = max(self._next_step.get(tag, 0), at + 1)
            self._series.setdefault(tag, []).append([at, number])
            if self._writer is not None:
                self._writer.add_event(_scalar_event(tag, number, at))
        return True

    def scalars(self) -> dict[str, list[list[float]]]:
        """A copy of everything recorded: ``{tag: [[step, value], ...]}`` in recording order."""
        with self._lock:
            return {tag: [list(p) for p in points] for tag, points in self._series.items()}

    def close(self) -> None:
        """Flush and close the event file (the in-memory scalars stay readable); warns once with the
        number of skipped values, if any."""
        with self._lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.flush()
            writer.close()
        if self.skipped:
            total = sum(self.skipped.values())
            tags = ", ".join(f"{t} ({n})" for t, n in sorted(self.skipped.items()))
            warnings.warn(f"tracking: skipped {total} non-numeric or non-finite value(s): {tags}",
                          TrackingWarning, stacklevel=2)


def current() -> Tracker | None:
    """The tracker ``track`` records into: this context's, else the innermost process-wide one."""
    tracker = _CURRENT.get()
    if tracker is None and _PROCESS:
        return _PROCESS[-1]
    return tracker


def track(tag: str, value: object, step: int | None = None) -> None:
    """Record scalar ``value`` under ``tag`` (prefixed by the active :func:`scope`) at ``step`` into the
    current tracker; does nothing, cheaply, when none is active."""
    tracker = _CURRENT.get()
    if tracker is None:
        if not _PROCESS:
            return
        tracker = _PROCESS[-1]
    prefix = _SCOPE.get()
    tracker.record("/".join((*prefix, tag)) if prefix else tag, value, step)


def slug(name: str) -> str:
    """``name`` as a tag part: lower case, runs of anything but letters, digits, ``_ . - /`` as one ``_``
    (``"GRPO N=4"`` → ``"grpo_n_4"``, ``"Replay (ER-GNN)/seed0"`` → ``"replay_er-gnn/seed0"``)."""
    parts = (re.sub(r"[^a-z0-9_.-]+", "_", part).strip("_") or "_" for part in name.lower().split("/"))
    return "/".join(parts)


@contextmanager
def scope(name: str) -> Iterator[None]:
    """Prefix every tag tracked inside with ``slug(name)/`` (nests: ``a/b/tag``)."""
    token = _SCOPE.set((*_SCOPE.get(), slug(name)))
    try:
        yield
    finally:
        _SCOPE.reset(token)


@contextmanager
def recording(log_dir: Path | None = None, process_wide: bool = True) -> Iterator[Tracker]:
    """Activate a new :class:`Tracker` for the block (TensorBoard events under ``log_dir`` if given); it is
    closed on exit. ``process_wide`` also makes it visible to threads started inside the block."""
    tracker = Tracker(log_dir)
    token = _CURRENT.set(tracker)
    if process_wide:
        with _PROCESS_LOCK:
            _PROCESS.append(tracker)
    try:
        yield tracker
    finally:
        _CURRENT.reset(token)
        if process_wide:
            with _PROCESS_LOCK:
                _PROCESS.remove(tracker)
        tracker.close()
