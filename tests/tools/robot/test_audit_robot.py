"""Audit regressions for the robot-policy sandbox: a hostile policy ends as a clean failure with a
reason, never an exception, hang or file read in the host, and cannot multiply itself past the
sandbox's process and memory limits."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from paperworks.tools.cad import cgroups, isolation
from paperworks.tools.robot.judge import judge
from paperworks.tools.robot.sandbox import NPROC, run_policy

GOALS = [["hand_empty"]]


def test_deeply_nested_log_is_malformed_not_a_crash() -> None:
    """json.loads raised RecursionError (not ValueError) out of run_policy."""
    code = ('import os\ndef main(robot):\n    open("log.json", "w").write(\'{"calls": \' + "[" * 300000 + "]" * 300000'
            ' + \', "error": null}\')\n    os._exit(0)\n')
    r = run_policy(code, timeout_s=5)
    assert r.error is not None and r.error["type"] == "BadLog" and r.calls == []
    assert not judge(r.calls, GOALS, None, r.error).passed


def test_swapped_output_file_is_not_read_through() -> None:
    """The host read ``out.txt`` by name after the policy ended: a policy that replaced it with a symlink
    to a host file had that file read back as its output (removed: FileNotFoundError; a FIFO: a hang)."""
    secret = tempfile.NamedTemporaryFile("w", prefix="pw-audit-secret-", suffix=".txt", delete=False)
    secret.write("HOST-ONLY-CONTENT-1234\n")
    secret.close()
    try:
        for swap in (f"libc.symlink({secret.name.encode()!r}, b'out.txt')", "pass", "os.mkfifo('out.txt')"):
            code = (f"import ctypes, os\nlibc = ctypes.CDLL(None)\ndef main(robot):\n    print('mine')\n"
                    f"    os.remove('out.txt')\n    {swap}\n    robot.move_to('sink')\n")
            start = time.monotonic()
            r = run_policy(code, timeout_s=5)
            assert time.monotonic() - start < 5
            assert "HOST-ONLY" not in r.output and "mine" in r.output, (swap, r.output)
            assert r.error is None and r.calls == [["move_to", ["sink"]]], (swap, r.error)
    finally:
        os.unlink(secret.name)


def test_log_that_is_a_symlink_or_fifo_is_not_followed() -> None:
    code = ("import ctypes, os\ndef main(robot):\n    robot.move_to('sink')\n"
            "    ctypes.CDLL(None).symlink(b'/etc/hostname', b'log.json')\n    os._exit(0)\n")
    r = run_policy(code, timeout_s=5)
    assert r.calls == [] and r.error is not None and r.error["type"] == "Crashed"


@pytest.mark.skipif(not isolation.uid_switch(), reason="needs root (own uid per policy)")
def test_fork_bomb_stops_at_the_process_limit() -> None:
    """The policy ran as root with no process limit: ctypes fork() (the audit hook does not see it)
    made as many processes as it liked (300 here; a real bomb takes every pid of the host)."""
    code = ("import ctypes, os, time\ndef main(robot):\n    libc = ctypes.CDLL(None)\n    n = 0\n"
            "    for _ in range(300):\n        pid = libc.fork()\n        if pid == 0:\n"
            "            time.sleep(30)\n            os._exit(0)\n        if pid < 0:\n            break\n"
            "        n += 1\n    raise RuntimeError(f'uid {os.getuid()} forked {n}')\n")
    start = time.monotonic()
    r = run_policy(code, timeout_s=5)
    assert time.monotonic() - start < 4
    assert r.error is not None and r.error["type"] == "RuntimeError", r.error
    uid, n = int(r.error["message"].split()[1]), int(r.error["message"].split()[-1])
    assert uid >= 160000 and n < NPROC


@pytest.mark.slow
@pytest.mark.skipif(cgroups.kind() == "none", reason="needs a writable memory cgroup")
def test_memory_of_forked_children_counts_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """RLIMIT_AS holds per process only: three forked children of 300 MB each (900 MB > 512 MB) ran."""
    code = ("import ctypes, os, time\ndef main(robot):\n    libc = ctypes.CDLL(None)\n    pids = []\n"
            "    for _ in range(3):\n        pid = libc.fork()\n        if pid == 0:\n"
            "            b = bytearray(300 << 20)\n            for j in range(0, len(b), 4096):\n"
            "                b[j] = 1\n            time.sleep(2)\n            os._exit(0)\n        pids.append(pid)\n"
            "    st = ctypes.c_int()\n    for p in pids:\n        libc.waitpid(p, ctypes.byref(st), 0)\n"
            "    robot.move_to('sink')\n")

    from paperworks.tools.robot import sandbox as robot_sandbox

    made: list[Path] = []
    real_make = cgroups.make_folder

    def recording(kind: str) -> Path | None:  # the policy's own folder (the CAD pool makes others meanwhile)
        folder = real_make(kind)
        if folder is not None:
            made.append(folder)
        return folder

    monkeypatch.setattr(robot_sandbox.cgroups, "make_folder", recording)
    r = run_policy(code, timeout_s=8, memory_mb=512)
    assert r.error is not None and r.error["type"] == "MemoryLimit", r.error
    assert not judge(r.calls, GOALS, None, r.error).passed
    assert made and not any(f.exists() for f in made)  # the policy's folder is removed


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="unshare mode needs root")
def test_unshare_mode_policy_sees_only_its_own_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    if isolation.PRIVATE_PROC not in isolation.unshare_args():
        pytest.skip("a private /proc cannot be mounted here (sandbox_info lists the gap)")
    monkeypatch.setenv("PAPERWORKS_CAD_ISOLATION", "unshare")
    monkeypatch.setattr(isolation, "_warned", True)
    code = ("import glob\ndef main(robot):\n    pids = glob.glob('/proc/[0-9]*')\n"
            "    if len(pids) > 5:\n        raise RuntimeError(f'{len(pids)} processes visible')\n"
            "    robot.move_to('sink')\n")
    r = run_policy(code, timeout_s=5)
    assert r.error is None and r.calls == [["move_to", ["sink"]]], r.error
