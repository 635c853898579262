"""Memory cgroups for the sandboxes, host side: which kind this machine offers, and one delegated
folder per zygote, in which the zygote makes one cgroup per child (``procs.JobCgroup``).

cgroup v1 (``/sys/fs/cgroup/memory``, writable as root) or v2 (``/sys/fs/cgroup`` with the memory
controller). A memory cgroup counts every page a child touches, MAP_SHARED and tmpfs included, which
RLIMIT_DATA/RLIMIT_AS do not. Without a writable one, ``kind()`` is ``"none"`` and only the rlimits
hold (``sandbox_info`` says so). ``PAPERWORKS_CAD_CGROUP=none`` turns them off (tests of the fallback).
"""

from __future__ import annotations

import functools
import os
import signal
import uuid
from pathlib import Path

V1 = Path("/sys/fs/cgroup/memory")
V2 = Path("/sys/fs/cgroup")
PREFIX = "paperworks-cad"


def _try_dir(base: Path, files: tuple[str, ...]) -> bool:
    probe = base / f"{PREFIX}-probe-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        return all((probe / f).exists() for f in files)
    finally:
        try:
            probe.rmdir()
        except OSError:
            pass


@functools.lru_cache(maxsize=1)
def _probe() -> str:
    if os.geteuid() != 0:
        return "none"
    if (V1 / "memory.limit_in_bytes").exists() and _try_dir(V1, ("memory.limit_in_bytes", "cgroup.procs")):
        return "v1"
    controllers = V2 / "cgroup.controllers"
    if controllers.exists() and "memory" in controllers.read_text().split():
        try:
            subtree = (V2 / "cgroup.subtree_control").read_text().split()
            if "memory" not in subtree:
                (V2 / "cgroup.subtree_control").write_text("+memory")
        except OSError:
            return "none"
        if _try_dir(V2, ("memory.max", "cgroup.procs")):
            return "v2"
    return "none"


def kind() -> str:
    """``v1``, ``v2`` or ``none``: the memory cgroups the sandbox can use here."""
    if os.environ.get("PAPERWORKS_CAD_CGROUP", "").strip().lower() == "none":
        return "none"
    return _probe()


def _base(k: str) -> Path:
    return V1 if k == "v1" else V2


def _sweep_stale(k: str) -> None:
    """Remove folders of zygote owners that are gone (a host process that was killed)."""
    base = _base(k)
    for folder in base.glob(f"{PREFIX}-*"):
        parts = folder.name.split("-")
        if len(parts) < 4 or not parts[2].isdigit():
            continue
        try:
            os.kill(int(parts[2]), 0)
            continue
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        remove(folder)


def make_folder(k: str) -> Path | None:
    """A fresh folder for one zygote's child cgroups (None when no cgroup is available)."""
    if k == "none":
        return None
    _sweep_stale(k)
    folder = _base(k) / f"{PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:10]}"
    folder.mkdir()
    if k == "v2":
        try:
            (folder / "cgroup.subtree_control").write_text("+memory")
        except OSError:
            pass
    return folder


def enter(folder: Path | None, k: str) -> None:
    """Move the calling process into the folder's ``zygote`` leaf (v2 only; call between fork and exec).

    cgroup v2 lets a process move another into a cgroup only with write access to their common
    ancestor; with the zygote inside the folder, that ancestor is the folder the sandbox sees."""
    if folder is not None and k == "v2":
        leaf = folder / "zygote"
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text("0")


def remove(folder: Path | None) -> None:
    """Kill what is left in a zygote's folder and its child cgroups, then remove them."""
    if folder is None or not folder.exists():
        return
    for child in sorted((p for p in folder.iterdir() if p.is_dir()), reverse=True):
        remove(child)
    try:
        for pid in (folder / "cgroup.procs").read_text().split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    except OSError:
        pass
    for _ in range(100):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            import time

            time.sleep(0.01)
