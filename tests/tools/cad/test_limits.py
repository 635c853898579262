"""Limits that hold against programs that go around rlimits: shared memory (memory cgroup) and disk
(size-capped private tmpfs; the output folder is not writable by the candidate)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paperworks.tools.cad import cgroups
from paperworks.tools.cad.isolation import mode, sandbox_info
from paperworks.tools.cad.sandbox import SandboxLimits, WorkerPool

BOX = "\nimport cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n"
MEM = SandboxLimits(wall_s=30, cpu_s=30, memory_mb=512, output_kb=16, files_mb=16)
SHARED = """import mmap
maps = []
for i in range(6):  # 6 x 300 MB of anonymous MAP_SHARED memory, every page touched
    m = mmap.mmap(-1, 300 << 20, flags=mmap.MAP_SHARED)
    for off in range(0, 300 << 20, 4096):
        m[off] = 1
    maps.append(m)
print('touched', 6 * 300, 'MB')
""" + BOX


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


@pytest.mark.slow
@pytest.mark.skipif(cgroups.kind() == "none", reason="no writable memory cgroup on this machine")
def test_map_shared_memory_is_limited(pool: WorkerPool) -> None:
    r = pool.check(SHARED, limits=MEM)
    assert not r.ok and r.stage == "killed", r
    assert r.error == "memory limit (512 MB) exceeded (killed by the memory cgroup) (signal SIGKILL) during build"
    assert "touched" not in r.stdout_tail
    assert pool.check(BOX, limits=MEM).ok  # the warm worker and the next candidate are fine


@pytest.mark.skipif(cgroups.kind() == "none", reason="no writable memory cgroup on this machine")
def test_model_tests_memory_is_limited_in_the_judge(pool: WorkerPool) -> None:
    tests = "def test_mem(ctx):\n" + "\n".join("    " + line for line in SHARED.splitlines() if "cadquery" not in
                                               line and "result" not in line) + "\n"
    r = pool.check(BOX, tests, limits=MEM)
    assert not r.ok and r.stage == "tests"
    assert r.error == "memory limit (512 MB) exceeded (killed by the memory cgroup) (signal SIGKILL) during the tests"
    assert [t.name for t in r.tests] == ["test_mem"] and not r.tests[0].passed


@pytest.mark.slow
def test_cgroup_folders_are_removed() -> None:
    with WorkerPool(1, MEM) as p:
        folders = [z.cgroup for z in p._all if z.cgroup is not None]
        assert p.check(BOX).ok
        if cgroups.kind() != "none":
            assert len(folders) == 2 and all(f.is_dir() for f in folders)
            assert not [c for f in folders for c in f.iterdir() if c.is_dir()]  # per-job cgroups removed
    assert not any(f.exists() for f in folders)


@pytest.mark.skipif(mode() != "bwrap", reason="the disk quota needs bubblewrap")
def test_disk_filling_through_tmp_and_the_output_folder(pool: WorkerPool) -> None:
    lim = SandboxLimits(wall_s=20, cpu_s=20, memory_mb=1024, output_kb=16, files_mb=8)
    filler = ("import ctypes, os\nlibc = ctypes.CDLL(None)\nchunk = b'x' * (4 << 20)\nwritten = {}\n"
              "for d in ('.', '/tmp', '/tmp/jobs', '/out', '/out/1', '/out/2', '/dev/shm', '/in'):\n"
              "    libc.mkdir(d.encode(), 0o777)\n    n = 0\n"
              "    for i in range(100):\n"
              "        fd = libc.open(f'{d}/fill{i}'.encode(), 0o101, 0o644)\n"
              "        if fd < 0:\n            break\n"
              "        k = libc.write(fd, chunk, len(chunk))\n        libc.close(fd)\n"
              "        if k <= 0:\n            break\n        n += k\n"
              "    written[d] = n >> 20\n"
              "for i in range(100):  # free its own folder again, so that it can print and build\n"
              "    libc.unlink(f'./fill{i}'.encode())\n"
              "print('written', sorted(written.items()))\n" + BOX)
    zygote_dirs = [z.dir for z in pool._all]
    r = pool.check(filler, limits=lim)
    out = r.stdout_tail
    written = dict(eval(out.split("written", 1)[1].strip().splitlines()[0]))  # noqa: S307 - our own print
    assert all(v == 0 for k, v in written.items() if k != "."), written
    assert 0 < written["."] <= 4 * pool.limits.files_mb, written  # the tmpfs is full at 4 x the pool's files_mb
    assert r.ok  # it built its box; the host disk got nothing
    assert all(_size(d) < (2 << 20) for d in zygote_dirs if d.exists())
    assert pool.check(BOX, limits=lim).ok


def test_info_says_what_holds() -> None:
    info = sandbox_info()
    assert info["memory_cgroup"] == cgroups.kind()
    assert "judge sandbox that never runs candidate code" in info["verdict"]
    if info["memory_cgroup"] == "none":
        assert "NOT MAP_SHARED" in info["memory_limit"]
    else:
        assert "MAP_SHARED" in info["memory_limit"] and "kills" in info["memory_limit"]
    assert ("size-capped tmpfs" in info["disk_quota"]) == (info["mode"] == "bwrap")


def test_info_without_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERWORKS_CAD_CGROUP", "none")
    info = sandbox_info()
    assert info["memory_cgroup"] == "none" and "NOT MAP_SHARED" in info["memory_limit"]
    assert any("no memory cgroup" in gap for gap in info["remaining"])
    assert os.environ["PAPERWORKS_CAD_CGROUP"] == "none"


@pytest.mark.slow
def test_without_cgroups_only_rlimits_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no memory cgroup can be used the pool still works; MAP_SHARED memory then goes past the
    limit (what ``paperworks cad info`` says), while private memory is still stopped by RLIMIT_DATA."""
    monkeypatch.setenv("PAPERWORKS_CAD_CGROUP", "none")
    shared = SHARED.replace("range(6)", "range(2)").replace("6 * 300", "2 * 300")
    lim = SandboxLimits(wall_s=30, cpu_s=30, memory_mb=256, output_kb=16, files_mb=16)
    with WorkerPool(1, lim) as p:
        assert all(z.cgroup is None for z in p._all)
        r = p.check(shared)
        assert r.ok and "touched 600 MB" in r.stdout_tail, r.error
        r = p.check("x = bytearray(600 << 20)\n")
        assert r.error == "line 1: MemoryError (memory limit reached)"
