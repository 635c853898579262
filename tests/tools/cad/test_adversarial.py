"""Hostile programs: each is contained with a clear error, and the host (this pytest process, its
files, its network, its secrets) is unaffected. One warm pool for the module."""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

import pytest

from paperworks.tools.cad.sandbox import SandboxLimits, SandboxResult, WorkerPool
from tests.tools.cad.conftest import sandbox_uids

BOX = "\nimport cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n"
SHORT = SandboxLimits(wall_s=4, cpu_s=3, memory_mb=256, output_kb=16, files_mb=8)
ROOT = Path(__file__).resolve().parents[3]


def run(pool: WorkerPool, code: str, limits: SandboxLimits | None = None) -> SandboxResult:
    me = os.getpid()
    result = pool.check(code, limits=limits or SHORT)
    assert os.getpid() == me
    assert not sandbox_uids(pool), "candidate processes were left running"
    return result


@pytest.mark.slow
def test_infinite_loop(pool: WorkerPool) -> None:
    r = run(pool, "while True:\n    pass\n")
    assert r.stage in ("timeout", "killed") and not r.ok
    assert "CPU time limit (3 s)" in (r.error or "") or "timed out after 4 s" in (r.error or "")


@pytest.mark.slow
def test_sleep_in_c_times_out(pool: WorkerPool) -> None:
    r = run(pool, "import time\ntime.sleep(1000)\n", SandboxLimits(wall_s=2, cpu_s=10))
    assert r.stage == "timeout" and r.error == "timed out after 2 s (wall clock) during build"


@pytest.mark.slow
def test_long_occt_operation_times_out(pool: WorkerPool) -> None:
    code = ("import cadquery as cq\npts = [(x * 0.3, y * 0.3) for x in range(-150, 150) for y in range(-150, 150)]\n"
            "result = cq.Workplane().box(100, 100, 1).faces('>Z').workplane().pushPoints(pts).hole(0.2)\n")
    r = run(pool, code, SandboxLimits(wall_s=3, cpu_s=60))
    assert r.stage == "timeout"


def test_memory_bomb(pool: WorkerPool) -> None:
    r = run(pool, "x = bytearray(8 * 1024 ** 3)\n")
    assert r.stage == "build" and r.error == "line 1: MemoryError (memory limit reached)"
    r = run(pool, "chunks = []\nwhile True:\n    chunks.append(bytearray(16 << 20))\n")
    assert r.stage in ("build", "killed") and "MemoryError" in (r.error or "") or r.stage == "killed"


@pytest.mark.slow
def test_fork_bomb(pool: WorkerPool) -> None:
    r = run(pool, "import os\nwhile True:\n    os.fork()\n")
    assert r.error == "line 3: PermissionError: sandbox: forking is not allowed (os.fork)"
    # bypassing the audit hook: the process limit of the candidate's own uid holds
    r = run(pool, "import ctypes\nlibc = ctypes.CDLL(None)\nn = 0\nwhile n < 100000:\n"
            "    n += 1\n    libc.fork()\n", SandboxLimits(wall_s=3, cpu_s=3))
    assert r.stage in ("timeout", "killed", "done")


def test_writes_outside_its_folder(pool: WorkerPool) -> None:
    token = uuid.uuid4().hex
    targets = [ROOT / f"pwned_{token}", Path("/root") / f"pwned_{token}", Path("/tmp") / f"pwned_{token}"]
    for target in targets:
        r = run(pool, f"open({str(target)!r}, 'w').write('x')\n" + BOX)
        assert r.stage == "build" and "writing outside the working folder is not allowed" in (r.error or "")
    # bypassing the audit hook with libc: the OS refuses (read-only or private file systems)
    paths = [str(t) for t in targets]
    code = (f"import ctypes\nlibc = ctypes.CDLL(None)\nfor p in {paths!r}:\n"
            "    libc.open(p.encode(), 0o101, 0o644)\n" + BOX)
    r = run(pool, code)
    assert r.ok
    for target in targets:
        assert not target.exists()


def test_sockets(pool: WorkerPool) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    try:
        for host in ("1.1.1.1", "127.0.0.1"):
            target = (host, port if host == "127.0.0.1" else 80)
            r = run(pool, f"import socket\nsocket.socket().connect({target!r})\n")
            assert "network access is not allowed" in (r.error or ""), r
        with pytest.raises(TimeoutError):
            server.accept()
    finally:
        server.close()


def test_no_secrets_home_or_project(pool: WorkerPool) -> None:
    assert os.environ.get("PAPERWORKS_SECRET")
    guard = "    try:\n        print({0}, {1})\n    except OSError as e:\n        print({0}, 'ERR', e)\n"
    code = ("import os\nprint(sorted(os.environ.items()))\n"
            f"for d in ('/root', '/home', {str(ROOT)!r}, '/work'):\n" + guard.format("d", "os.listdir(d)")
            + f"for f in ('/proc/1/environ', '/proc/2/environ', '/etc/shadow', {str(ROOT / 'pyproject.toml')!r}):\n"
            + guard.format("f", "open(f, 'rb').read()[:200]") + BOX)
    r = run(pool, code)
    assert r.ok, r.error
    out = r.stdout_tail
    assert "s3cr3t" not in out and "PAPERWORKS_SECRET" not in out
    assert "pyproject.toml ERR" in out and "[project]" not in out
    assert "/etc/shadow ERR" in out


def test_spawning_a_shell(pool: WorkerPool) -> None:
    r = run(pool, "import os\nos.system('echo hi > /tmp/x')\n")
    assert r.error == "line 2: PermissionError: sandbox: spawning a shell is not allowed (os.system)"
    r = run(pool, "import subprocess\nsubprocess.run(['sh', '-c', 'id'])\n")
    assert "spawning processes is not allowed" in (r.error or "")


def test_signalling_the_parent(pool: WorkerPool) -> None:
    r = run(pool, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    assert "signalling processes is not allowed" in (r.error or "")
    r = run(pool, "import os\nos.killpg(0, 9)\n")
    assert "signalling processes is not allowed" in (r.error or "")
    # with libc: the zygote runs under another uid, so the calls fail (EPERM) and nothing else is hit
    r = run(pool, "import ctypes, os\nlibc = ctypes.CDLL(None)\nassert libc.kill(os.getppid(), 9) == -1\n"
            "libc.kill(1, 9)\nlibc.kill(-1, 9)\n" + BOX)
    assert r.ok, r.error
    assert run(pool, BOX).ok  # the warm worker survived


def test_huge_output(pool: WorkerPool) -> None:
    r = run(pool, "while True:\n    print('x' * 10000)\n")
    assert not r.ok and "File too large" in (r.error or "")
    assert len(r.stdout_tail) <= 16 * 1024
    r = run(pool, "with open('big.bin', 'wb') as f:\n    f.write(b'x' * (64 << 20))\n")
    assert not r.ok and "File too large" in (r.error or "")


def test_segfault(pool: WorkerPool) -> None:
    r = run(pool, "import ctypes\nctypes.string_at(0)\n")
    assert r.stage == "killed" and "SIGSEGV" in (r.error or "")


def test_leftover_process_is_killed(pool: WorkerPool) -> None:
    r = run(pool, "import ctypes, time\nlibc = ctypes.CDLL(None)\nif libc.fork() == 0:\n    time.sleep(600)\n"
            + BOX)
    assert r.ok


def test_forged_exit_without_result(pool: WorkerPool) -> None:
    r = run(pool, "import os\nos._exit(0)\n")
    assert r.stage == "killed" and "exited (code 0) during build" in (r.error or "")
