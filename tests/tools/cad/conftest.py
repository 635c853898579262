"""A warm sandbox pool shared by a test module (starting one costs CadQuery's import)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from paperworks.tools.cad.sandbox import SandboxLimits, WorkerPool

FAST = SandboxLimits(wall_s=20, cpu_s=20, memory_mb=1024, output_kb=64, files_mb=32)


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    os.environ["PAPERWORKS_SECRET"] = "s3cr3t-do-not-leak"  # must never reach the sandbox
    with WorkerPool(1, FAST) as p:
        yield p


def _ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


def sandbox_uids(pool: WorkerPool) -> list[int]:
    """uids of live candidate processes (uids 100000-159999) under this pool's sandboxes (other
    sessions may run sandboxes of their own at the same time)."""
    roots = {z.proc.pid for z in pool._all}
    uids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
            if not 100000 <= uid < 160000:
                continue
            pid = int(entry)
            while pid > 1 and pid not in roots:
                pid = _ppid(pid)
        except (OSError, ValueError, IndexError):
            continue
        if pid in roots:
            uids.append(uid)
    return uids
