"""The per-child memory cgroup's file handling for cgroup v1 and v2, on a stand-in folder (the kernel's
behaviour itself is tested in test_limits.py where this machine has a writable cgroup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperworks.tools.cad.procs import JobCgroup


@pytest.mark.parametrize("kind, limit_file, oom_file, oom_text, peak_file", [
    ("v1", "memory.limit_in_bytes", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n",
     "memory.max_usage_in_bytes"),
    ("v2", "memory.max", "memory.events", "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n", "memory.peak"),
])
def test_limit_oom_and_peak_files(tmp_path: Path, kind: str, limit_file: str, oom_file: str, oom_text: str,
                                  peak_file: str) -> None:
    cg = JobCgroup(str(tmp_path), kind, "job-1", 512)
    folder = tmp_path / "job-1"
    assert cg.path == str(folder) and (folder / limit_file).read_text() == str(512 << 20)
    assert not cg.oom_killed() and cg.peak_mb() == 0.0
    (folder / oom_file).write_text(oom_text)
    (folder / peak_file).write_text(str(300 << 20))
    assert cg.oom_killed() and cg.peak_mb() == 300.0
    (folder / oom_file).write_text(oom_text.replace("oom_kill 1", "oom_kill 0"))
    assert not cg.oom_killed()


def test_no_cgroup_is_a_no_op(tmp_path: Path) -> None:
    cg = JobCgroup(None, "none", "job-1", 512)
    cg.join()
    cg.kill_and_remove()
    assert cg.path is None and not cg.oom_killed() and not list(tmp_path.iterdir())
