"""Peak resident memory of the training process, per phase.

Linux keeps one high-water mark of a process's resident set (``VmHWM``); writing ``5`` to
``/proc/self/clear_refs`` resets it to the current size. :class:`PhaseMemory` resets it when a phase starts
and reads it when the phase ends, so each phase's own peak is known (the largest over its runs), and the
process's overall peak is the largest of those and of what was seen outside phases. Elsewhere (no ``/proc``)
it falls back to ``getrusage``'s peak, which cannot be split: every phase then reports the peak so far.

Between phases the C allocator is asked to hand freed memory back (``malloc_trim``), so that what one phase
freed does not stay resident under the next.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_STATUS = Path("/proc/self/status")
_CLEAR = Path("/proc/self/clear_refs")


def _status_mb(field: str) -> float | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_mb() -> float | None:
    """The process's resident memory now, in MB (None where ``/proc`` is missing)."""
    return _status_mb("VmRSS")


def _peak_mb() -> float:
    hwm = _status_mb("VmHWM")
    return hwm if hwm is not None else round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _reset_peak() -> bool:
    try:
        _CLEAR.write_text("5")
        return True
    except OSError:
        return False


def trim() -> None:
    """Ask glibc to return freed heap memory to the system (no-op elsewhere)."""
    name = ctypes.util.find_library("c")
    if not name:
        return
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError):
        return


class PhaseMemory:
    """Per-phase peak resident memory (MB), kept in a plain dict so it checkpoints with the run's state."""

    def __init__(self, peaks: dict[str, float] | None = None) -> None:
        self.peaks: dict[str, float] = dict(peaks or {})
        self.overall = max(self.peaks.values(), default=0.0)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.overall = max(self.overall, _peak_mb())  # what happened since the last phase ended
        trim()
        _reset_peak()
        try:
            yield
        finally:
            peak = _peak_mb()
            self.peaks[name] = max(self.peaks.get(name, 0.0), peak)
            self.overall = max(self.overall, peak)
            _reset_peak()

    def peak(self) -> float:
        """The largest resident size seen so far, over every phase and between them."""
        self.overall = max(self.overall, _peak_mb())
        return self.overall
