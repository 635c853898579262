"""How the sandbox worker is started: bubblewrap where it works, else ``unshare``, else a plain
process; and ``sandbox_info()``, which says which protections are active here.

Set ``PAPERWORKS_CAD_ISOLATION`` to ``bwrap``, ``unshare`` or ``none`` to force a mode (tests).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORKER_FILES = ("worker.py", "procs.py", "guard.py", "program.py", "candidate.py", "judge.py", "checks.py",
                "exports.py")
CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN")
UNSHARE = ("--net", "--pid", "--fork", "--kill-child")
PRIVATE_PROC = "--mount-proc"
"""Added to ``UNSHARE`` where it works: a /proc of the sandbox's pid namespace only (the host's /proc
shows the caller's processes, whose environment a same-uid program can read, and makes every zygote
look unclean: replaced after each job)."""
NPROC = max(64, 4 * (os.cpu_count() or 1))  # tasks (threads count) per candidate uid: OCCT thread pools


def _works(cmd: list[str]) -> bool:
    try:
        return subprocess.run(cmd, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@functools.lru_cache(maxsize=1)
def unshare_args() -> tuple[str, ...]:
    """``unshare``'s options in ``unshare`` mode: with a private /proc wherever one can be mounted."""
    full = (*UNSHARE, PRIVATE_PROC)
    return full if _works([shutil.which("unshare") or "unshare", *full, "true"]) else UNSHARE


@functools.lru_cache(maxsize=1)
def _probe() -> str:
    bwrap, unshare = shutil.which("bwrap"), shutil.which("unshare")
    if bwrap and _works([bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--unshare-ipc",
                        "--die-with-parent", *_cap_args(), "true"]):
        return "bwrap"
    if unshare and _works([unshare, *UNSHARE, "true"]):
        return "unshare"
    return "none"


def _cap_args() -> list[str]:
    """As root, bwrap would keep nearly every capability: keep only what the zygote needs to switch
    uids and hand folders over (candidates lose even these when they leave uid 0)."""
    return ["--cap-drop", "ALL", *[a for cap in CAPS for a in ("--cap-add", cap)]] if os.geteuid() == 0 else []


_warned = False


def mode() -> str:
    """The isolation mode in use: ``bwrap``, ``unshare`` or ``none`` (warns once when not bwrap)."""
    global _warned
    forced = os.environ.get("PAPERWORKS_CAD_ISOLATION", "").strip().lower()
    m = forced if forced in ("bwrap", "unshare", "none") else _probe()
    if m != "bwrap" and not _warned:
        _warned = True
        warnings.warn(f"paperworks cad sandbox: bubblewrap unavailable, running in '{m}' mode: "
                      + "; ".join(_remaining(m)), RuntimeWarning, stacklevel=2)
    return m


def _traversable(path: str) -> bool:
    """Can any user reach ``path`` (o+x on it and every ancestor)?"""
    p = Path(path).resolve()
    return all(os.stat(q).st_mode & 0o001 for q in [p, *p.parents])


def uid_switch() -> bool:
    """True when each candidate runs under its own unprivileged uid: the host runs as root and the
    candidate can still read Python (always under bubblewrap; elsewhere only when the interpreter's
    folders are world-traversable, e.g. not under a 0700 /root)."""
    if os.geteuid() != 0:
        return False
    if mode() == "bwrap":
        return True
    return all(_traversable(p) for p in (sys.prefix, sys.base_prefix))


def _remaining(m: str) -> list[str]:
    gaps = []
    if m != "bwrap":
        gaps.append("no filesystem isolation: the program can read every world-readable file (the project too) "
                    "and write world-writable folders such as /tmp")
    if m == "unshare" and PRIVATE_PROC not in unshare_args():
        gaps.append("no private /proc (it cannot be mounted here): the program can see host processes and read "
                    "the environment of those under its own uid")
    if m == "none":
        gaps.append("network is NOT blocked at the OS level (only by the in-process audit hook)")
        gaps.append("no pid namespace: the program can see host processes (and read the environment of those "
                    "under its own uid)")
    if m != "bwrap" and not uid_switch():
        gaps.append("candidates run under the caller's uid (Python is not readable by another uid, or not "
                    "root): RLIMIT_NPROC does not hold for root and counts all of the caller's processes "
                    "otherwise; leftovers are killed by process group only outside a pid namespace")
        gaps.append("the candidate shares the judge's uid, so it could write the judge's input folder while it "
                    "runs: verdicts are only as safe as the build/judge split with per-candidate uids")
    return gaps


def _ro_bind(path: str) -> list[str]:
    return ["--ro-bind", path, path] if os.path.exists(path) else []


def _system_binds() -> list[str]:
    args = _ro_bind("/usr") + _ro_bind("/etc") + _ro_bind("/var/cache/fontconfig")
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/" + top)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += _ro_bind(str(p))
    return args


def _python_binds() -> list[str]:
    """Read-only binds for the interpreter and its packages (the venv and the base installation only)."""
    roots: list[str] = []
    for p in (sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))):
        if p.startswith("/usr/") or any(p == r or p.startswith(r + "/") for r in roots):
            continue
        roots.append(p)
    args: list[str] = []
    made: set[str] = set()
    for r in roots:
        for parent in reversed(Path(r).parents[:-1]):  # bwrap would create them 0700: unreadable to candidates
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
        args += _ro_bind(r)
    return args


def worker_command(m: str, role: str, host_dir: Path, files_mb: int,
                   cgroup: Path | None, cgroup_kind: str) -> tuple[list[str], Path, Path, Path]:
    """(argv, host jobs folder or "", host out folder, host in folder) for a zygote of ``role`` in mode
    ``m``. ``host_dir`` is a fresh private folder of the host; the zygote writes to its ``out``
    subfolder; a judge reads the geometry the host put in ``in`` (read-only inside the sandbox)."""
    out, inp = host_dir / "out", host_dir / "in"
    out.mkdir(mode=0o711)
    inp.mkdir(mode=0o755)
    python = sys.executable
    common = ["--role", role, "--nproc", str(NPROC), "--cgroup-kind", cgroup_kind if cgroup else "none"]
    if m == "bwrap":
        argv = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session", "--unshare-net",
                "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox",
                *_system_binds(), "--dev", "/dev", "--proc", "/proc",
                "--perms", "0755", "--size", str(files_mb * 4 << 20), "--tmpfs", "/tmp",
                # after the private /tmp, so that a venv living under /tmp (a CI clone) stays visible
                *_python_binds(), "--dir", "/sandbox"]
        for f in WORKER_FILES:
            argv += ["--ro-bind", str(HERE / f), f"/sandbox/{f}"]
        argv += ["--bind", str(out), "/out", "--ro-bind", str(inp), "/in"]
        if cgroup:
            argv += ["--bind", str(cgroup), "/cgroup"]
        argv += ["--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
                 "--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8", *_cap_args(), "--chdir", "/tmp",
                 python, "-I", "/sandbox/worker.py", "--jobs", "/tmp/jobs", "--out", "/out", "--pidns", "1",
                 *common, "--cgroup", "/cgroup" if cgroup else "", "--private-tmp", "1"]
        return argv, Path(""), out, Path("/in")
    jobs = host_dir / "jobs"
    prefix = [shutil.which("unshare") or "unshare", *unshare_args()] if m == "unshare" else []
    argv = [*prefix, python, "-I", str(HERE / "worker.py"), "--jobs", str(jobs), "--out", str(out),
            "--pidns", "1" if m == "unshare" else "0", *common, "--cgroup", str(cgroup or "")]
    return argv, jobs, out, inp


def clean_env() -> dict[str, str]:
    """The environment the worker starts with outside bubblewrap (nothing inherited from the caller)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"}


def _memory(k: str) -> str:
    if k == "none":
        return ("RLIMIT_DATA only (no writable memory cgroup here): it bounds private writable memory, "
                "NOT MAP_SHARED anonymous memory or tmpfs pages; a program can exceed the limit that way")
    return (f"memory cgroup {k} per child (candidate, judge checks, judge tests): counts private, MAP_SHARED "
            "and tmpfs pages; over the limit the kernel kills the child")


def _disk(m: str) -> str:
    if m == "bwrap":
        return ("the candidate can write only its private folder, on the sandbox's size-capped tmpfs /tmp "
                "(4x files_mb, not the host disk); its output folder is created only after all its processes "
                "are dead, and at most files_mb of geometry is copied there")
    return ("no quota: the candidate can write world-writable host folders such as /tmp (RLIMIT_FSIZE caps "
            "each file only)")


def sandbox_info() -> dict[str, Any]:
    """Which protections are active here, and what remains unprotected."""
    from paperworks.tools.cad import cgroups

    m = mode()
    k = cgroups.kind()
    ns = {"bwrap": ["net", "pid", "ipc", "uts", "mount", "cgroup"], "unshare": ["net", "pid"], "none": []}[m]
    remaining = _remaining(m) + [
        "the audit hook can be bypassed with ctypes; the OS-level limits above still hold",
        "world-readable system files (/usr, /etc) are visible read-only",
        "model-written tests (SPADA's repair loop) run in the judge's tests child and can forge their own "
        "results, never the checks' or hidden tests' verdicts"]
    if k == "none":
        remaining.append("no memory cgroup: MAP_SHARED and tmpfs memory are not limited")
    if m != "bwrap":
        remaining.append("no disk quota outside bubblewrap")
    return {
        "mode": m,
        "bwrap": shutil.which("bwrap"),
        "namespaces": ns,
        "user_namespace": False,
        "read_only_root": m == "bwrap",
        "private_tmp": m == "bwrap",
        "home_hidden": m == "bwrap",
        "project_hidden": m == "bwrap",
        "network": "none (own network namespace)" if ns else "not isolated (audit hook only)",
        "per_candidate_uid": uid_switch(),
        "rlimits": ["RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE"],
        "memory_cgroup": k,
        "memory_limit": _memory(k),
        "disk_quota": _disk(m),
        "wall_clock_limit": True,
        "clean_env": True,
        "audit_hook": "refuses spawning, signals, sockets and writes outside the working folder",
        "verdict": "build and judgement are split: the candidate's sandbox only builds and exports one BREP per "
                   "part plus its parameters; a separate judge sandbox that never runs candidate code loads that "
                   "geometry, runs the tests file (test names enumerated from the file) and the checks, and "
                   "answers on its own stdout pipe; nothing the candidate prints or writes is read as a verdict",
        "isolation_between_candidates": "fresh forked process per candidate from a zygote that never runs "
                                        "model code; own uid, cgroup and private folder; leftovers killed; a "
                                        "zygote that reports leftovers is replaced",
        "remaining": remaining,
    }
