"""The sandbox worker: a zygote that runs INSIDE the sandbox, never in the paperworks process.

It imports CadQuery once, then reads one JSON job per line on stdin and answers one JSON line on
stdout. Per job it forks a fresh candidate process that (1) starts a new session, points fds 0-2 away
from the protocol pipes, (2) switches to the job's own unprivileged uid (when the zygote may),
(3) applies rlimits, chdirs into a fresh private directory and clears the environment, (4) installs
an audit hook that refuses process spawning, signals, sockets and writes outside its directory with a
clear error, then (5) runs the program, its tests, the checks and the exports (see ``candidate.py``).
After it ends (or the wall-clock limit), a cleanup process with the same uid kills every process
left with that uid, turns the SVG renders into PNGs, copies the allowed artifacts (regular files,
size-capped, no symlinks) to the host-visible folder and deletes the private directory. The zygote
itself never runs model-written code, so each candidate starts from the same clean, warm state.
Standard library only at module level; never imports ``paperworks``.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import stat
import sys
import time
from typing import Any

ARTIFACTS = ["result.json", "stage.txt", "assembly.step", "assembly.stl",
             "render_iso.png", "render_front.png", "render_top.png", "render_side.png"]


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def _drop(uid: int | None) -> None:
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def _wait(pid: int, timeout: float) -> tuple[int | None, bool, int]:
    """Wait for a child up to ``timeout`` s; (wait status or None, timed out, its peak RSS in kB)."""
    deadline = time.monotonic() + timeout
    try:
        fd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    except OSError:  # already reaped (by the namespace-init reaping loop) or no pidfd support
        fd = None
    try:
        while True:
            try:
                done, status, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:  # already reaped by the namespace-init reaping loop
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
    """Is any other process left: of our uid (uid mode), or in our pid namespace but pid 1 and us?"""
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


def _kill_all_mine(uid_mode: bool, pidns: bool, pgid: int) -> None:
    """Kill every process of this uid (uid mode), or everything else in this pid namespace, or the
    candidate's process group (weakest, when neither is available)."""
    for _ in range(1000):
        try:
            if uid_mode or pidns:
                os.kill(-1, signal.SIGKILL)  # only processes we may signal: our uid, or our namespace
            else:
                os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        try:  # reap our own orphans when we are the namespace's init
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        if (uid_mode or pidns) and not _others(uid_mode):
            return
        time.sleep(0.002)


def _copy_safe(src: str, dst: str, cap: int, tail: bool = False) -> None:
    """Copy a regular file (never a link or device) of at most ``cap`` bytes (the last ``cap`` when tail)."""
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_size > cap and not tail):
            return
        if st.st_size > cap:
            os.lseek(fd, st.st_size - cap, os.SEEK_SET)
        data = os.read(fd, cap)
    finally:
        os.close(fd)
    out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(out, "wb") as fh:
        fh.write(data)


def _cleanup(job: dict[str, Any], jobdir: str, outdir: str, pgid: int, cfg: dict[str, Any]) -> None:
    """In a forked child: kill leftovers, render PNGs, copy artifacts out, delete the private folder."""
    try:
        uid = job.get("uid")
        _drop(uid)
        if uid is not None:
            _kill_all_mine(True, False, pgid)
        lim = job["limits"]
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim["files_mb"] << 20,) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (60, 61))
        os.chdir(jobdir)
        import exports

        pairs = []
        for view in ("iso", "front", "top", "side"):
            svg = os.path.join(jobdir, f"render_{view}.svg")
            if os.path.isfile(svg) and not os.path.islink(svg) and os.path.getsize(svg) < 64 << 20:
                pairs.append((svg, os.path.join(jobdir, f"render_{view}.png")))
        try:
            exports.svgs_to_pngs(pairs, timeout_s=30)
        except Exception:
            pass
        cap = lim["files_mb"] << 20
        for name in ARTIFACTS:
            _copy_safe(os.path.join(jobdir, name), os.path.join(outdir, name), cap)
        _copy_safe(os.path.join(jobdir, "stdout.txt"), os.path.join(outdir, "stdout.txt"),
                   lim["output_kb"] << 10, tail=True)
        for root, dirs, _files in os.walk(jobdir):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o700, follow_symlinks=False)
                except OSError:
                    pass
        shutil.rmtree(jobdir, ignore_errors=True)
    finally:
        os._exit(0)


def _candidate(job: dict[str, Any], jobdir: str, cfg: dict[str, Any]) -> None:
    """In a forked child: isolate, limit, then run the candidate; never returns."""
    try:
        os.setsid()
        _drop(job.get("uid"))
        os.chdir(jobdir)
        out = os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.closerange(3, 65536)
        lim = job["limits"]
        mem = lim["memory_mb"] << 20
        limits = {resource.RLIMIT_CPU: (lim["cpu_s"], lim["cpu_s"] + 1),
                  resource.RLIMIT_DATA: ((cfg["data_kb"] << 10) + mem,) * 2,
                  resource.RLIMIT_FSIZE: (lim["files_mb"] << 20,) * 2,
                  resource.RLIMIT_NOFILE: (256, 256), resource.RLIMIT_CORE: (0, 0),
                  resource.RLIMIT_NPROC: (cfg["nproc"], cfg["nproc"])}
        for key, value in limits.items():
            resource.setrlimit(key, value)
        os.environ.clear()
        os.environ.update({"HOME": jobdir, "TMPDIR": jobdir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        import candidate

        candidate.run(job, jobdir)
    except BaseException as exc:  # noqa: BLE001 - anything that escapes is reported by the host
        try:
            os.write(2, f"worker: {type(exc).__name__}: {exc}\n".encode())
        except OSError:
            pass
    finally:
        os._exit(0)


def run_job(job: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """Run one job (fork candidate, wait with the wall limit, clean up) and describe how it ended."""
    jobdir = os.path.join(cfg["jobs"], str(job["id"]))
    outdir = os.path.join(cfg["out"], str(job["id"]))
    uid = job.get("uid")
    for d in (jobdir, outdir):
        os.makedirs(d, mode=0o700)
        if uid is not None:
            os.chown(d, uid, uid)
    sys.stdout.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _candidate(job, jobdir, cfg)
    status, timed_out, rss_kb = _wait(pid, float(job["limits"]["wall_s"]))
    elapsed = time.monotonic() - start
    if uid is None:  # same uid as ours: kill from here (the cleaner would kill the zygote too)
        _kill_all_mine(False, cfg["pidns"], pid)
    cleaner = os.fork()
    if cleaner == 0:
        _cleanup(job, jobdir, outdir, pid, cfg)
    if status is None:
        status, _, rss_kb = _wait(pid, 10)
    _wait(cleaner, 180)
    try:
        os.rmdir(jobdir)
    except OSError:
        pass
    try:  # orphans reparented to us (we are pid 1 under `unshare --pid --fork`)
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    code: int | None = None
    sig: int | None = None
    if status is not None:
        value = os.waitstatus_to_exitcode(status)
        code, sig = (value, None) if value >= 0 else (None, -value)
    return {"id": job["id"], "exit": code, "signal": sig, "timed_out": timed_out, "elapsed": elapsed,
            "maxrss_kb": rss_kb}


def _warm_up() -> None:
    """Import and exercise what candidates use, so that forked children start warm. No boolean
    operations here: they start an OCCT thread pool that a forked child would inherit without its
    threads (and then wait forever)."""
    import cadquery as cq
    import candidate  # noqa: F401
    import checks
    import exports  # noqa: F401

    a: Any = cq.Workplane().box(10, 10, 10).val()
    b: Any = cq.Workplane().cylinder(12, 1.4).val()
    b = b.moved(cq.Location((30, 0, 0)))
    checks.run_checks({"a": a, "b": b}, {})
    checks.mass_properties({"a": a, "b": b})
    a.tessellate(0.1, 0.3)


def main() -> None:
    """Zygote loop: ``--jobs DIR --out DIR --pidns 0|1 --nproc N``; prints {"ready": ...} then answers jobs."""
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    args = dict(zip(sys.argv[1::2], sys.argv[2::2], strict=False))
    cfg: dict[str, Any] = {"jobs": args["--jobs"], "out": args["--out"], "pidns": args.get("--pidns") == "1",
                           "nproc": int(args.get("--nproc", "8"))}
    os.makedirs(cfg["jobs"], mode=0o711, exist_ok=True)
    os.chmod(cfg["jobs"], 0o711)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    _warm_up()
    cfg["data_kb"] = _status_kb("VmData")
    print(json.dumps({"ready": True, "pid": os.getpid(), "uid": os.getuid(), "data_kb": cfg["data_kb"]}),
          flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = run_job(json.loads(line), cfg)
        except Exception as exc:  # a broken job must not take the zygote down
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
