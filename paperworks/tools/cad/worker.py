"""The sandbox zygote: runs INSIDE a sandbox, never in the paperworks process, never runs model code.

It imports CadQuery once, reads one JSON job per line on stdin and answers one JSON line on stdout.
Two roles (``--role``), each in its own sandbox:

- ``build``: fork a candidate (new session, own unprivileged uid, own memory cgroup, rlimits, fresh
  private folder, clean environment, fds 0-2 away from the protocol pipes) that builds the program and
  writes one BREP per part + ``manifest.json`` (``candidate.py``). After it ends (or the wall-clock
  limit) every process of its uid and cgroup is killed; only then is its output folder created, and
  a copier under its uid copies the allowed files (regular, size-capped in total) there and deletes
  its private folder. Nothing the candidate writes is a verdict.
- ``judge``: fork a checks child and a tests child (each its own uid and cgroup) on the host-copied
  geometry (``judge.py``); each answers on its own pipe; the zygote adds both answers to its stdout
  reply, the host's only source of verdicts.

After each job the zygote reports whether it is still clean (``healthy``); the host replaces it when not.
Standard library only at module level; never imports ``paperworks``.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script with -I: our siblings
import procs  # noqa: E402

BUILD_FILES = ["manifest.json", "stage.txt"] + [f"part_{i}.brep" for i in range(256)]
ARTIFACTS = {"assembly.step", "assembly.stl", "render_iso.png", "render_front.png", "render_top.png",
             "render_side.png"}
ANSWER_CAP = 16 << 20


def _child(job: dict[str, Any], cfg: dict[str, Any], uid: int | None, home: str, cgroup: procs.JobCgroup,
           pipe: int | None, target: Any) -> None:
    """In a forked child: isolate and limit, then ``target(job, home, 3)``; never returns."""
    try:
        os.setsid()
        cgroup.join()
        procs.drop(uid)
        os.chdir(home)
        out = os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        if pipe is not None:
            os.dup2(pipe, 3)
        os.closerange(4 if pipe is not None else 3, 65536)
        procs.limit(job["limits"], cfg["data_kb"], cfg["nproc"])
        os.environ.clear()
        os.environ.update({"HOME": home, "TMPDIR": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        target(job, home, 3)
    except BaseException as exc:  # noqa: BLE001 - anything that escapes is reported by the host
        try:
            os.write(2, f"worker: {type(exc).__name__}: {exc}\n".encode())
        except OSError:
            pass
    finally:
        os._exit(0)


def _folder(path: str, uid: int | None) -> None:
    os.makedirs(path, mode=0o700)
    if uid is not None:
        os.chown(path, uid, uid)


def _as_uid(uid: int | None, fn: Any) -> None:
    """Run ``fn()`` in a forked child under ``uid``, with a file size and CPU limit; wait for it."""
    pid = os.fork()
    if pid == 0:
        try:
            procs.drop(uid)
            import resource

            resource.setrlimit(resource.RLIMIT_CPU, (60, 61))
            fn()
        finally:
            os._exit(0)
    procs.wait(pid, 180)


def _finish(uid: int | None, cfg: dict[str, Any], pid: int, cgroup: procs.JobCgroup) -> tuple[bool, float]:
    """Kill whatever the child left (its uid, its cgroup); (killed for memory, cgroup peak MB)."""
    if uid is None:  # same uid as ours: kill from here (a cleaner under our uid would kill us too)
        procs.kill_all_mine(False, cfg["pidns"], pid)
    else:
        _as_uid(uid, lambda: procs.kill_all_mine(True, False, pid))
    oom, peak = cgroup.oom_killed(), cgroup.peak_mb()
    cgroup.kill_and_remove()
    return oom, peak


def _ended(status: int | None, timed_out: bool, start: float, rss_kb: int, oom: bool, peak: float) -> dict[str, Any]:
    code: int | None = None
    sig: int | None = None
    if status is not None:
        value = os.waitstatus_to_exitcode(status)
        code, sig = (value, None) if value >= 0 else (None, -value)
    return {"exit": code, "signal": sig, "timed_out": timed_out, "elapsed": time.monotonic() - start,
            "maxrss_kb": rss_kb, "oom": oom, "cgroup_peak_mb": peak}


def _remove_empty(folder: str) -> None:
    """Remove a child's folder that its copier emptied (what is left marks the zygote unclean)."""
    try:
        os.rmdir(folder)
    except FileNotFoundError:
        pass
    except OSError:  # not empty: same-uid modes can still delete it; else it is reported
        shutil.rmtree(folder, ignore_errors=True)


def _root_owned(folder: str) -> None:
    """Hand a copied-out folder to root (read-only for everyone else). The zygote has no
    CAP_DAC_OVERRIDE: it takes the folder first, then it may list it."""
    os.chown(folder, 0, 0, follow_symlinks=False)
    os.chmod(folder, 0o755)
    for name in os.listdir(folder):
        os.chown(os.path.join(folder, name), 0, 0, follow_symlinks=False)


def run_build(job: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """Build one candidate; its files land in ``out/<id>`` only after all its processes are dead."""
    import candidate

    jid, uid, lim = str(job["id"]), job.get("uid"), job["limits"]
    home, outdir = os.path.join(cfg["jobs"], jid), os.path.join(cfg["out"], jid)
    _folder(home, uid)
    cgroup = procs.JobCgroup(cfg["cgroup"], cfg["cgroup_kind"], f"build-{jid}", lim["memory_mb"])
    sys.stdout.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(job, cfg, uid, home, cgroup, None, lambda j, h, _fd: candidate.run(j, h))
    status, timed_out, rss_kb = procs.wait(pid, float(lim["wall_s"]))
    oom, peak = _finish(uid, cfg, pid, cgroup)
    if status is None:
        status, _, rss_kb = procs.wait(pid, 10)
    reply = _ended(status, timed_out, start, rss_kb, oom, peak)
    _folder(outdir, uid)
    cap, tail = int(lim["files_mb"]) << 20, {"stdout.txt": int(lim["output_kb"]) << 10}

    def copy() -> None:
        procs.copy_out(BUILD_FILES + ["stdout.txt"], home, outdir, cap, tail)
        procs.rmtree_as_owner(home)

    _as_uid(uid, copy)
    _root_owned(outdir) if uid is not None else None
    _remove_empty(home)
    procs.reap()
    return reply


def _collect(fds: dict[str, int], deadline: float) -> dict[str, bytes]:
    """Read each pipe to its end (or the deadline), at most ANSWER_CAP bytes each."""
    data = {k: b"" for k in fds}
    open_fds = {fd: k for k, fd in fds.items()}
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready = select.select(list(open_fds), [], [], left)[0]
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            key = open_fds[fd]
            if not chunk:
                del open_fds[fd]
            elif len(data[key]) + len(chunk) > ANSWER_CAP:  # an oversized answer is no answer
                del open_fds[fd]
                data[key] = b""
            else:
                data[key] += chunk
    return data


def run_judge(job: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """Judge one candidate's geometry: checks child and (when there are tests) tests child in parallel."""
    import judge

    jid, lim = str(job["id"]), job["limits"]
    roles = [("checks", judge.checks_child)] + ([("tests", judge.tests_child)] if job.get("tests") else [])
    kids: dict[str, dict[str, Any]] = {}
    start = time.monotonic()
    sys.stdout.flush()
    for (role, target), uid in zip(roles, job["uids"], strict=False):
        home = os.path.join(cfg["jobs"], f"{jid}-{role}")
        _folder(home, uid)
        cgroup = procs.JobCgroup(cfg["cgroup"], cfg["cgroup_kind"], f"judge-{jid}-{role}", lim["memory_mb"])
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _child(job, cfg, uid, home, cgroup, w, target)
        os.close(w)
        kids[role] = {"pid": pid, "uid": uid, "home": home, "cgroup": cgroup, "fd": r}
    answers = _collect({k: v["fd"] for k, v in kids.items()}, start + float(lim["wall_s"]))
    reply: dict[str, Any] = {}
    for role, kid in kids.items():
        os.close(kid["fd"])
        status, timed_out, rss = procs.wait(kid["pid"], max(0.0, start + float(lim["wall_s"]) - time.monotonic()))
        oom, peak = _finish(kid["uid"], cfg, kid["pid"], kid["cgroup"])
        if status is None:
            status, _, rss = procs.wait(kid["pid"], 10)
        try:
            answer = procs.loads(answers[role]) if answers[role] else None
        except ValueError:  # not JSON, or nested so deeply that the host could not parse our reply
            answer = None
        reply[role] = {**_ended(status, timed_out, start, rss, oom, peak), "answer": answer}
    checks = kids["checks"]
    names = sorted(ARTIFACTS & {str(v) for v in ((reply["checks"]["answer"] or {}).get("artifacts") or {}).values()})
    outdir = os.path.join(cfg["out"], jid)
    _folder(outdir, checks["uid"])
    _as_uid(checks["uid"], lambda: procs.copy_out(names, checks["home"], outdir, int(lim["files_mb"]) << 22, {}))
    _root_owned(outdir) if checks["uid"] is not None else None
    for kid in kids.values():
        _as_uid(kid["uid"], lambda home=kid["home"]: procs.rmtree_as_owner(home))
        _remove_empty(kid["home"])
    procs.reap()
    return reply


def health(cfg: dict[str, Any]) -> str | None:
    """Why this zygote is no longer clean (leftover folders, processes, a filling /tmp), or None."""
    if os.listdir(cfg["jobs"]):
        return f"leftover job folders: {sorted(os.listdir(cfg['jobs']))[:3]}"
    if cfg["pidns"] and procs._others(False):
        return "leftover processes"
    st = os.statvfs(cfg["jobs"])
    if cfg["private_tmp"] and st.f_blocks and st.f_bavail < 0.9 * st.f_blocks:
        return f"its /tmp is {100 - 100 * st.f_bavail // st.f_blocks}% full"
    return None


def _warm_up(role: str) -> None:
    """Import and exercise what children use, so that forked children start warm. No boolean
    operations here: they start an OCCT thread pool that a forked child would inherit without its
    threads (and then wait forever)."""
    import cadquery as cq
    import checks

    if role == "build":
        import candidate  # noqa: F401
        import guard  # noqa: F401
        import program  # noqa: F401

        try:  # programs that call cadquery.vis.show(...) then find it imported (its show is patched)
            import cadquery.vis  # noqa: F401
        except Exception:  # noqa: BLE001 - no VTK here: such a program fails on its own import
            pass
    else:
        import exports  # noqa: F401
        import judge  # noqa: F401
    a: Any = cq.Workplane().box(10, 10, 10).val()
    b: Any = cq.Workplane().cylinder(12, 1.4).val()
    b = b.moved(cq.Location((30, 0, 0)))
    checks.run_checks({"a": a, "b": b}, {})
    checks.mass_properties({"a": a, "b": b})
    a.tessellate(0.1, 0.3)


def main() -> None:
    """Zygote loop: ``--role build|judge --jobs DIR --out DIR --pidns 0|1 --nproc N [--cgroup DIR
    --cgroup-kind v1|v2] [--private-tmp 1]``; prints {"ready": ...} then answers jobs."""
    sys.dont_write_bytecode = True
    args = dict(zip(sys.argv[1::2], sys.argv[2::2], strict=False))
    cfg: dict[str, Any] = {"role": args.get("--role", "build"), "jobs": args["--jobs"], "out": args["--out"],
                           "pidns": args.get("--pidns") == "1", "nproc": int(args.get("--nproc", "8")),
                           "cgroup": args.get("--cgroup") or None, "cgroup_kind": args.get("--cgroup-kind", "none"),
                           "private_tmp": args.get("--private-tmp") == "1"}
    os.makedirs(cfg["jobs"], mode=0o711, exist_ok=True)
    os.chmod(cfg["jobs"], 0o711)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    _warm_up(cfg["role"])
    cfg["data_kb"] = procs.status_kb("VmData")
    run = run_build if cfg["role"] == "build" else run_judge
    print(json.dumps({"ready": True, "pid": os.getpid(), "uid": os.getuid(), "role": cfg["role"]}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            job = json.loads(line)
            reply = {"id": job["id"], **run(job, cfg)}
        except Exception as exc:  # a broken job must not take the zygote down
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        reply["unhealthy"] = health(cfg)
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
