"""Run a model-written robot policy in the sandbox and bring back its call log.

The policy runs in a fresh process (``python -I runner.py``), under the same isolation as SPADA's
CAD programs (bubblewrap where it works, else ``unshare`` with a private network and pid namespace,
see :mod:`paperworks.tools.cad.isolation`): a wall-clock limit, CPU-time, address-space and file-size
limits, a memory cgroup for the policy and everything it forks (where cgroups are available), its own
unprivileged uid with ``RLIMIT_NPROC`` (where the sandbox can switch uids: as root), so that a fork or
thread bomb stops at ``NPROC`` tasks, a private temporary folder, a clean environment and no network. It never runs
in the paperworks process. What comes back is only the call log (size-capped JSON); the verdict is
the judge's replay of it (:mod:`paperworks.tools.robot.judge`).
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperworks.tools.cad import cgroups, isolation, procs

HERE = Path(__file__).resolve().parent
CAD = HERE.parent / "cad"
FILES = {"runner.py": HERE / "runner.py", "sim.py": HERE / "sim.py", "guard.py": CAD / "guard.py"}
LOG_CAP = 1 << 20
UID_BASE, UID_SPAN = 160000, 40000  # above the CAD candidates' uids (100000-159999)
NPROC = 64
"""Tasks (processes and threads) the policy's uid may have."""


@dataclass
class PolicyRun:
    """What running a policy returned (never a verdict)."""

    calls: list[list[Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None
    """The exception that ended the policy (type, message, line), if any."""
    timed_out: bool = False
    seconds: float = 0.0
    output: str = ""
    """The tail of what the policy printed."""


def _limits(cpu_s: int, memory_mb: int, cgroup: procs.JobCgroup) -> None:  # in the child, before exec
    os.setsid()
    cgroup.join()
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 20, 4 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _argv(m: str, work: Path, extra: list[str]) -> list[str]:
    python = sys.executable
    if m == "bwrap":
        argv = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session", "--unshare-net",
                "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", "sandbox",
                *isolation._system_binds(), "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                *isolation._python_binds(), "--bind", str(work), "/box", "--clearenv",
                "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/box", *isolation._cap_args(),
                "--chdir", "/box", python, "-I", "/box/runner.py"]
        return argv + [a.replace(str(work), "/box") for a in extra]
    prefix = [shutil.which("unshare") or "unshare", *isolation.unshare_args()] if m == "unshare" else []
    return [*prefix, python, "-I", str(work / "runner.py"), *extra]


def run_policy(code: str, state: dict[str, Any] | None = None, *, timeout_s: float = 10.0,
               memory_mb: int = 512) -> PolicyRun:
    """Run ``code`` (a module defining ``main(robot)``) against a kitchen in ``state`` (default: the
    standard kitchen); return its calls. A policy that hangs is killed at ``timeout_s``."""
    work = Path(tempfile.mkdtemp(prefix="pw-policy-"))
    kind = cgroups.kind()
    folder: Path | None = None
    cgroup = procs.JobCgroup(None, "none", "policy", memory_mb)
    try:
        folder = cgroups.make_folder(kind)
        cgroup = procs.JobCgroup(str(folder) if folder else None, kind, "policy", memory_mb)
        for name, src in FILES.items():
            shutil.copyfile(src, work / name)
        (work / "policy.py").write_text(code, encoding="utf-8")
        extra = [str(work / "policy.py"), str(work / "log.json")]
        if isolation.uid_switch():  # the runner becomes this uid before it runs the policy
            uid = UID_BASE + random.randrange(UID_SPAN)
            os.chown(work, uid, uid)
            os.chmod(work, 0o755)  # bwrap (root without CAP_DAC_OVERRIDE) must still list it
            extra = ["--uid", str(uid), "--nproc", str(NPROC), *extra]
        if state is not None:
            (work / "state.json").write_text(json.dumps(state), encoding="utf-8")
            extra.append(str(work / "state.json"))
        argv = _argv(isolation.mode(), work, extra)
        env = isolation.clean_env() | {"HOME": str(work)}
        start = time.monotonic()
        cpu = max(1, int(timeout_s) + 1)
        with open(work / "out.txt", "w+b") as out:  # read back through this fd: the policy may swap the name
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                    cwd=work, preexec_fn=lambda: _limits(cpu, memory_mb, cgroup))  # noqa: PLW1509
            timed_out = False
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
            oom = cgroup.oom_killed()
            cgroup.kill_and_remove()  # what it left (outside a pid namespace) dies before its files are read
            out.seek(max(0, os.fstat(out.fileno()).st_size - 2000))
            tail = out.read(2000)
        run = PolicyRun(timed_out=timed_out, seconds=time.monotonic() - start)
        run.output = tail.decode("utf-8", "replace")
        if timed_out:
            run.error = {"type": "Timeout", "message": f"the policy ran past {timeout_s:g} s", "line": None}
        elif oom:
            run.error = {"type": "MemoryLimit", "message": f"the policy used more than {memory_mb} MB (killed by "
                         "its memory cgroup)", "line": None}
        raw = procs.read_capped(str(work / "log.json"), LOG_CAP)  # a regular file only: no link, FIFO, device
        if raw is not None:
            data = _parse(raw.decode("utf-8", errors="replace"))
            if data is None:
                run.error = run.error or {"type": "BadLog", "message": "the call log is malformed", "line": None}
            else:
                run.calls = data["calls"]
                run.error = run.error or data["error"]
        elif not timed_out:
            last = run.output.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
            run.error = run.error or {"type": "Crashed", "message": f"the policy process died: {last[0][:300]}",
                                      "line": None}
        return run
    finally:
        cgroup.kill_and_remove()
        cgroups.remove(folder)
        shutil.rmtree(work, ignore_errors=True)


def _parse(text: str) -> dict[str, Any] | None:
    """The log's calls (name + JSON scalar args only) and error, or None when malformed."""
    try:
        data = procs.loads(text)
    except ValueError:  # not JSON, or nested too deeply (json.loads would raise RecursionError)
        return None
    if not isinstance(data, dict) or not isinstance(data.get("calls"), list):
        return None
    calls = []
    for c in data["calls"][:5000]:
        if not (isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and isinstance(c[1], list)
                and all(a is None or isinstance(a, str | int | float | bool) for a in c[1])):
            return None
        calls.append([c[0], list(c[1])])
    err = data.get("error")
    if err is not None and not isinstance(err, dict):
        return None
    error = None if err is None else {
        "type": str(err.get("type", ""))[:80], "message": str(err.get("message", ""))[:400],
        "line": err.get("line") if isinstance(err.get("line"), int) else None}
    return {"calls": calls, "error": error}
