"""Pool hygiene: no candidate can change the next one's result. Hostile candidates fill their /tmp,
pre-create files and links for later jobs, leave processes and unreadable folders behind; after each,
the task's reference gets exactly the verdict it got first. An unclean or dead zygote is replaced."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from paperworks.tools.cad.isolation import mode
from paperworks.tools.cad.sandbox import CheckOptions, SandboxResult, WorkerPool
from tests.tools.cad.conftest import FAST, _ppid, sandbox_uids

ROOT = Path(__file__).resolve().parents[3]
TASK = ROOT / "evals" / "spada_bench" / "tasks" / "hinge-01"
REFERENCE, HIDDEN = (TASK / "reference.py").read_text(), (TASK / "hidden_tests.py").read_text()
OPTIONS = CheckOptions(renders=False, exports=False)
BOX = "\nimport cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n"
LIBC = "import ctypes, os, time\nlibc = ctypes.CDLL(None)\n"
HOSTILE = {
    "fills its /tmp": LIBC + "chunk = b'x' * (1 << 20)\n"
                             "for i in range(1000):\n"
                             "    fd = libc.open(f'/tmp/fill{i}'.encode(), 0o101, 0o644)\n"
                             "    if fd < 0:\n        fd = libc.open(f'fill{i}'.encode(), 0o101, 0o644)\n"
                             "    if fd < 0 or any(libc.write(fd, chunk, len(chunk)) <= 0 for _ in range(8)):\n"
                             "        break\n"
                             "os._exit(0)\n",
    "fills its /tmp and pre-creates files in its output folder": LIBC + "chunk = b'x' * (1 << 20)\n"
        "for n in range(1, 60):\n"
        "    for f in ('result.json', 'stage.txt', 'stdout.txt', 'manifest.json', 'part_0.brep'):\n"
        "        libc.open(f'/out/{n}/{f}'.encode(), 0o101, 0o644)\n"
        "for i in range(1000):  # files under the file size limit, until the disk is full\n"
        "    fd = libc.open(f'fill{i}'.encode(), 0o101, 0o644)\n"
        "    if fd < 0 or any(libc.write(fd, chunk, len(chunk)) <= 0 for _ in range(8)):\n"
        "        break\n"
        "os._exit(0)\n",
    "pre-creates later job folders": LIBC + "for n in range(1, 30):\n"
                                   "    for d in (f'/tmp/jobs/{n}', f'/tmp/jobs/{n}-checks', f'/out/{n}'):\n"
                                   "        libc.mkdir(d.encode(), 0o777)\n"
                                   "        libc.open(f'{d}/manifest.json'.encode(), 0o101, 0o666)\n" + BOX,
    "plants links and FIFOs as its outputs": LIBC + "os.symlink('/etc/passwd', 'manifest.json')\n"
                                           "os.mkfifo('stdout.txt') if False else None\n"
                                           "libc.mkfifo(b'part_0.brep', 0o666)\nlibc.mkfifo(b'stage.txt', 0o666)\n"
                                           "os._exit(0)\n",
    "leaves a process behind": LIBC + "if libc.fork() == 0:\n"
                                      "    for i in range(200):\n"
                                      "        for n in range(1, 30):\n"
                                      "            libc.open(f'/tmp/jobs/{n}/manifest.json'.encode(), 0o101, 0o666)\n"
                                      "        time.sleep(0.05)\n" + BOX,
    "makes its folder unreadable": LIBC + "os.mkdir('deep')\nopen('deep/x', 'w').write('x')\n"
                                          "os.chmod('deep', 0)\nos.chmod('.', 0)\n" + BOX,
}


def _verdict(r: SandboxResult) -> dict[str, Any]:
    return {"ok": r.ok, "stage": r.stage, "error": r.error, "tests": [(t.name, t.passed, t.message) for t in r.tests],
            "checks": [(c.name, c.passed) for c in r.checks],
            "parts": [(p["name"], round(p["volume"], 6)) for p in r.parts]}


@pytest.mark.slow
@pytest.mark.parametrize("size", [1, 2])
def test_no_candidate_changes_the_next_ones_result(size: int) -> None:
    with WorkerPool(size, FAST) as pool:
        first = _verdict(pool.check(REFERENCE, HIDDEN, options=OPTIONS))
        assert first["ok"], first
        for what, code in HOSTILE.items():
            pool.check(code, "def test_x(ctx):\n    assert ctx is not None\n", options=OPTIONS)
            assert not sandbox_uids(pool), f"{what}: processes were left running"
            for _ in range(size):  # every zygote of the pool gets the next candidate once
                assert _verdict(pool.check(REFERENCE, HIDDEN, options=OPTIONS)) == first, what
        assert pool.replaced == 0  # cleaning up after each candidate was enough: no zygote was left unclean


def _sandboxed_python(pool: WorkerPool, role: str) -> int:
    """Host pid of the zygote's Python inside its sandbox (bwrap's grandchild)."""
    root = next(z for z in pool._all if z.role == role).proc.pid
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != root:
            try:
                pid = int(entry)
                chain = [pid]
                while pid > 1 and pid != root:
                    pid = _ppid(pid)
                    chain.append(pid)
                if pid == root and "python" in os.readlink(f"/proc/{entry}/exe"):
                    return int(entry)
            except (OSError, ValueError, IndexError):
                continue
    raise AssertionError("no zygote process found")


@pytest.mark.slow
@pytest.mark.skipif(mode() != "bwrap" or os.geteuid() != 0, reason="reaches into the sandbox as root")
def test_unclean_zygote_is_replaced(pool: WorkerPool) -> None:
    """A zygote whose /tmp holds a leftover job folder reports it and the pool replaces it."""
    assert pool.check(BOX).ok  # both zygotes are up
    before = pool.replaced
    jobs = Path(f"/proc/{_sandboxed_python(pool, 'build')}/root/tmp/jobs")
    (jobs / "stale").mkdir()
    assert pool.check(BOX).ok
    assert pool.replaced == before + 1
    assert pool.check(BOX).ok and pool.replaced == before + 1


def test_dead_zygote_is_replaced(pool: WorkerPool) -> None:
    assert pool.check(BOX).ok  # a started judge (run first, the kill would land while it still starts)
    before = pool.replaced
    judge = next(z for z in pool._all if z.role == "judge")
    os.killpg(judge.proc.pid, 9)
    judge.proc.wait()
    r = pool.check(BOX)
    assert not r.ok and r.stage == "sandbox" and "judge stopped answering" in (r.error or "")
    assert pool.replaced == before + 1
    assert pool.check(BOX).ok
