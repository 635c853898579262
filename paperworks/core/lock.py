"""One writer per run directory: ``RUN_DIR/lock`` holds the writing process's pid.

The lock is an ``fcntl.flock`` on that file, so the kernel drops it when its holder dies: a lock
left by a killed process is stale by construction and the next writer takes it over. The pid
written into the file names the holder in the refusal. Within one process the lock is re-entrant
(the CLI takes it before it prints anything; the runner takes it again and that is a no-op).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from paperworks.core.errors import UserError

LOCK_FILE = "lock"
_held: dict[str, tuple[int, int]] = {}
"""Resolved run-directory path → (file descriptor, re-entry count) for locks this process holds."""
_guard = threading.Lock()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_holder(run_dir: Path) -> dict[str, Any]:
    """What the lock file says about its last holder (``{}`` if nothing readable)."""
    try:
        data = json.loads((run_dir / LOCK_FILE).read_text(encoding="utf-8") or "{}")
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def is_locked(run_dir: Path) -> bool:
    """Whether some process (this one included) holds the run directory's lock right now."""
    key = str(run_dir.resolve())
    if key in _held:
        return True
    path = run_dir / LOCK_FILE
    if not path.exists():
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


class RunLock:
    """``with RunLock(run_dir):`` — hold the run directory's writer lock, or refuse in one line."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.key = str(self.run_dir.resolve())
        self.took_over: dict[str, Any] | None = None
        """The stale holder this lock replaced (its pid had died without releasing), if any."""

    def acquire(self) -> RunLock:
        """Take the lock; ``UserError`` naming the holder's pid when another process has it."""
        with _guard:
            if self.key in _held:
                fd, count = _held[self.key]
                _held[self.key] = (fd, count + 1)
                return self
            path = self.run_dir / LOCK_FILE
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise UserError(self._refusal()) from None
            previous = read_holder(self.run_dir)
            if previous.get("pid"):
                self.took_over = previous
            record = {"pid": os.getpid(), "host": socket.gethostname(), "since": round(time.time(), 3)}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
            _held[self.key] = (fd, 1)
            return self

    def _refusal(self) -> str:
        holder = read_holder(self.run_dir)
        pid = holder.get("pid")
        who = f"process {pid}" if pid else "another process"
        if pid and holder.get("host") not in (None, socket.gethostname()):
            who += f" on {holder['host']}"
        elif pid and not _pid_alive(int(pid)):
            who += " (ended; a process it started still holds the lock)"
        return (f"run {self.run_dir.name} is in use by {who} (lock {self.run_dir / LOCK_FILE}); "
                "wait for it to finish or stop it first")

    def release(self) -> None:
        """Give the lock up (the outermost release clears the file and unlocks it)."""
        with _guard:
            if self.key not in _held:
                return
            fd, count = _held[self.key]
            if count > 1:
                _held[self.key] = (fd, count - 1)
                return
            del _held[self.key]
            try:
                os.ftruncate(fd, 0)
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()
