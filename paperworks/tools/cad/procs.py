"""Process plumbing of the sandbox zygotes (runs INSIDE the sandbox; standard library only).

Forking a limited child under its own uid and memory cgroup, waiting with a wall-clock limit,
killing every process a uid left behind, and size-capped copies of regular files. Used by
``worker.py`` for both roles (build and judge); never imports ``paperworks``.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import stat
import time
from typing import Any


def status_kb(key: str) -> int:
    """A ``/proc/self/status`` field in kB (VmData, VmHWM, ...)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def drop(uid: int | None) -> None:
    """Become ``uid`` (group too, no supplementary groups); every capability is cleared."""
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def limit(lim: dict[str, Any], data_kb: int, nproc: int) -> None:
    """Apply the rlimits of one child (CPU, private data, file size, files, processes, no core)."""
    mem = int(lim["memory_mb"]) << 20
    limits = {resource.RLIMIT_CPU: (int(lim["cpu_s"]), int(lim["cpu_s"]) + 1),
              resource.RLIMIT_DATA: ((data_kb << 10) + mem,) * 2,
              resource.RLIMIT_FSIZE: (int(lim["files_mb"]) << 20,) * 2,
              resource.RLIMIT_NOFILE: (256, 256), resource.RLIMIT_CORE: (0, 0),
              resource.RLIMIT_NPROC: (nproc, nproc)}
    for key, value in limits.items():
        resource.setrlimit(key, value)


class JobCgroup:
    """One child's memory cgroup under the zygote's delegated folder (v1 or v2), or nothing.

    The limit counts every page the child and its descendants touch: private, MAP_SHARED, tmpfs."""

    def __init__(self, root: str | None, kind: str, name: str, memory_mb: int) -> None:
        self.path: str | None = None
        self.kind = kind
        if not root or kind not in ("v1", "v2"):
            return
        path = os.path.join(root, name)
        try:
            os.mkdir(path)
            limit_bytes = str(int(memory_mb) << 20)
            if kind == "v1":
                self._write(path, "memory.limit_in_bytes", limit_bytes)
                if os.path.exists(os.path.join(path, "memory.memsw.limit_in_bytes")):
                    self._write(path, "memory.memsw.limit_in_bytes", limit_bytes)
            else:
                self._write(path, "memory.max", limit_bytes)
                if os.path.exists(os.path.join(path, "memory.swap.max")):
                    self._write(path, "memory.swap.max", "0")
        except OSError:
            self._rmdir(path)
            raise
        self.path = path

    @staticmethod
    def _write(path: str, name: str, value: str) -> None:
        with open(os.path.join(path, name), "w") as fh:
            fh.write(value)

    def join(self) -> None:
        """Move the calling process into the cgroup (call in the child, before dropping root)."""
        if self.path:
            self._write(self.path, "cgroup.procs", str(os.getpid()))

    def _read(self, name: str) -> str:
        try:
            with open(os.path.join(self.path or "", name)) as fh:
                return fh.read()
        except OSError:
            return ""

    def oom_killed(self) -> bool:
        """Did the kernel kill a process of this cgroup for memory?"""
        text = self._read("memory.oom_control" if self.kind == "v1" else "memory.events")
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value) > 0
        return self.kind == "v1" and self._read("memory.failcnt").strip() not in ("", "0")

    def peak_mb(self) -> float:
        """Peak memory charged to the cgroup (MB; 0 when unknown)."""
        raw = self._read("memory.max_usage_in_bytes" if self.kind == "v1" else "memory.peak").strip()
        return round(int(raw) / (1 << 20), 1) if raw.isdigit() else 0.0

    def kill_and_remove(self) -> None:
        """SIGKILL whatever is still in the cgroup, then remove it."""
        if not self.path:
            return
        for _ in range(500):
            pids = [int(p) for p in self._read("cgroup.procs").split() if p.isdigit()]
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            reap()
            time.sleep(0.002)
        self._rmdir(self.path)
        self.path = None

    @staticmethod
    def _rmdir(path: str) -> None:
        for _ in range(200):
            try:
                os.rmdir(path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.005)


def reap() -> None:
    """Reap finished children (orphans are reparented to us when we are the namespace's init)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def wait(pid: int, timeout: float) -> tuple[int | None, bool, int]:
    """Wait for a child up to ``timeout`` s; (wait status or None, timed out, its peak RSS in kB)."""
    deadline = time.monotonic() + timeout
    try:
        fd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    except OSError:
        fd = None
    try:
        while True:
            try:
                done, status, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                return None, False, 0
            if done:
                return status, False, usage.ru_maxrss
            left = deadline - time.monotonic()
            if left <= 0:
                return None, True, 0
            if fd is not None:
                select.select([fd], [], [], left)
            else:
                time.sleep(min(0.01, left))
    finally:
        if fd is not None:
            os.close(fd)


def _others(uid_mode: bool) -> bool:
    me, uid = os.getpid(), os.getuid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (1, me):
            continue
        try:
            owner = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        if not uid_mode or owner == uid:
            return True
    return False


def kill_all_mine(uid_mode: bool, pidns: bool, pgid: int) -> None:
    """Kill every process of this uid (uid mode), or everything else in this pid namespace, or the
    process group ``pgid`` (weakest, when neither is available)."""
    for _ in range(1000):
        try:
            if uid_mode or pidns:
                os.kill(-1, signal.SIGKILL)
            else:
                os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        reap()
        if (uid_mode or pidns) and not _others(uid_mode):
            return
        time.sleep(0.002)


JSON_DEPTH = 32
"""Deepest nesting of lists/dicts accepted in JSON that crossed a sandbox boundary: deeper data
(hostile, e.g. ``[[[[...]]]]``) would raise RecursionError in whichever process parses or dumps it
next, possibly deeper in its stack (the host)."""


def too_deep(value: Any, limit: int = JSON_DEPTH) -> bool:
    """Is ``value`` nested (lists/dicts) deeper than ``limit``? Iterative: never recurses."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def loads(raw: bytes | str, limit: int = JSON_DEPTH) -> Any:
    """``json.loads`` for data from the other side of a sandbox: ValueError (never RecursionError)
    when it is not JSON or nested deeper than ``limit``."""
    import json

    try:
        value = json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if too_deep(value, limit):
        raise ValueError(f"JSON nested deeper than {limit} levels")
    return value


def read_capped(path: str, cap: int, tail: bool = False) -> bytes | None:
    """A regular file's bytes (never a link, FIFO or device); None when missing or over ``cap``
    (the last ``cap`` bytes when ``tail``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_size > cap and not tail):
            return None
        if st.st_size > cap:
            os.lseek(fd, st.st_size - cap, os.SEEK_SET)
        chunks, left = [], cap
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_new(path: str, data: bytes) -> None:
    """Create ``path`` (it must not exist, no links followed) holding ``data``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def copy_out(names: list[str], src: str, dst: str, total: int, tail: dict[str, int]) -> None:
    """Copy the regular files ``names`` of ``src`` into ``dst`` while the sum stays within ``total``
    bytes; names in ``tail`` keep only their last N bytes and do not count."""
    used = 0
    for name in names:
        if name in tail:
            data = read_capped(os.path.join(src, name), tail[name], tail=True)
        else:
            data = read_capped(os.path.join(src, name), total - used)
            if data is not None:
                used += len(data)
        if data is not None:
            write_new(os.path.join(dst, name), data)


def rmtree_as_owner(path: str) -> None:
    """Delete a tree the calling uid owns (make its folders writable first)."""
    import shutil

    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    for root, dirs, _files in os.walk(path):  # top-down: each folder is opened before it is listed
        for d in dirs:
            try:
                os.chmod(os.path.join(root, d), 0o700, follow_symlinks=False)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)
