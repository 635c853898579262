"""Run model-written CadQuery programs and their tests in the sandbox; the host side.

Build and judgement are split. A *build* zygote (a sandboxed warm worker, see ``worker.py``) forks
a fresh candidate process per program, under its own uid, memory cgroup, rlimits and private folder;
the candidate only builds and exports one BREP per part plus its resolved parameters. The host reads
that geometry (size-capped, validated; never a verdict) and copies it into the input folder of a
separate *judge* zygote, which never runs candidate code: its checks child (our code only) loads the
geometry, runs the checks and exports and enumerates the tests file's test names; its tests child
(own uid and cgroup) runs the tests file. The judge's stdout reply is the only verdict. See
``verdict.py`` and ``isolation.py`` for what is active (``sandbox_info()``).
"""

from __future__ import annotations

import queue
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from paperworks.tools.cad.isolation import sandbox_info
from paperworks.tools.cad.results import CheckOptions, CheckResult, SandboxLimits, SandboxResult, TestResult
from paperworks.tools.cad.verdict import build_outcome, judged, stage_geometry
from paperworks.tools.cad.zygote import Zygote, spawn

__all__ = ["CheckOptions", "CheckResult", "SandboxLimits", "SandboxResult", "TestResult", "WorkerPool",
           "check_program", "sandbox_info"]


T = TypeVar("T")


def _close_all(zygotes: list[Zygote]) -> None:
    for z in list(zygotes):
        z.close()
    zygotes.clear()


class WorkerPool:
    """Pre-started build and judge zygotes (CadQuery already imported); ``check`` is thread-safe, one
    job per zygote at a time. A zygote that dies, stops answering or reports leftovers is replaced."""

    def __init__(self, size: int = 1, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self._idle: dict[str, queue.Queue[Zygote]] = {"build": queue.Queue(), "judge": queue.Queue()}
        self._all: list[Zygote] = []
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close_all, self._all)  # closes zygotes left open at exit
        self.replaced = 0
        """Zygotes replaced so far (dead, silent or unclean)."""
        for _ in range(max(1, size)):
            for role in ("build", "judge"):
                self._add(role)

    def _add(self, role: str) -> None:
        z = spawn(role, self.limits.files_mb)
        with self._lock:
            self._all.append(z)
        self._idle[role].put(z)

    def _release(self, z: Zygote, healthy: bool) -> None:
        if healthy and z.alive() and not z.unhealthy:
            self._idle[z.role].put(z)
            return
        with self._lock:
            if z in self._all:
                self._all.remove(z)
            self.replaced += 1
        z.close()
        self._add(z.role)

    def _run(self, role: str, job: Callable[[Zygote], dict[str, Any]], timeout: float,
             use: Callable[[Zygote, dict[str, Any] | None], T]) -> T:
        """Take an idle zygote of ``role``, send it ``job(zygote)``, and return ``use(zygote, reply)``
        while still holding it."""
        z = self._idle[role].get()
        healthy = False
        try:
            err = z.start_error()
            if err:
                return use(z, {"start_error": err})
            z.new_job()
            reply = z.send(job(z), timeout)
            healthy = reply is not None
            return use(z, reply)
        finally:
            self._release(z, healthy)

    def check(self, code: str, tests: str | None = None, *, params: dict[str, Any] | None = None,
              out_dir: Path | None = None, options: CheckOptions | None = None,
              limits: SandboxLimits | None = None) -> SandboxResult:
        """Build one program in the sandbox, then judge its geometry with ``tests``; see ``check_program``.
        ``limits`` overrides the pool's for this candidate (``files_mb`` cannot exceed the pool's)."""
        lim = SandboxLimits(**asdict(limits or self.limits))
        lim.files_mb = min(lim.files_mb, self.limits.files_mb)
        opts = asdict(options or CheckOptions())
        if out_dir is None:
            opts["renders"] = opts["exports"] = False
        else:
            out_dir = Path(out_dir)
            out_dir.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        res, manifest, geometry = self._build(code, params or {}, lim)
        if manifest and geometry is not None:
            try:
                res = self._judge(res, manifest, geometry, tests, opts, lim, out_dir)
            finally:
                shutil.rmtree(geometry.parent, ignore_errors=True)
        res.time_s = time.perf_counter() - start
        return res

    def _build(self, code: str, params: dict[str, Any], lim: SandboxLimits
               ) -> tuple[SandboxResult, dict[str, Any], Path | None]:
        job = {"code": code, "params": params, "limits": asdict(lim)}

        def use(z: Zygote, reply: dict[str, Any] | None) -> tuple[SandboxResult, dict[str, Any], Path | None]:
            if reply is None or "start_error" in reply:
                why = (reply or {}).get("start_error") or f"the sandbox build worker failed: {z.unhealthy}"
                return SandboxResult(False, "sandbox", why, None), {}, None
            folder = z.out / str(z.seq)
            try:
                res, manifest = build_outcome(reply, folder, lim)
                if isinstance(reply.get("maxrss_kb"), int):
                    res.peak_rss_mb = round(max(reply["maxrss_kb"] / 1024, reply.get("cgroup_peak_mb") or 0), 1)
                geometry = None
                if manifest:  # out of the build sandbox's reach before the next candidate starts
                    geometry = Path(tempfile.mkdtemp(prefix="paperworks-cad-geometry-")) / "parts"
                    shutil.move(str(folder), geometry)
                return res, manifest, geometry
            finally:
                shutil.rmtree(folder, ignore_errors=True)

        def job_of(z: Zygote) -> dict[str, Any]:
            return {**job, "uid": z.next_uid()}

        return self._run("build", job_of, lim.wall_s + 240, use)

    def _judge(self, res: SandboxResult, manifest: dict[str, Any], geometry: Path, tests: str | None,
               opts: dict[str, Any], lim: SandboxLimits, out_dir: Path | None) -> SandboxResult:
        def job_of(z: Zygote) -> dict[str, Any]:
            stage_geometry(manifest, geometry, z.host_in / str(z.seq))
            return {"manifest": manifest, "geometry": str(z.inside_in / str(z.seq)), "tests": tests,
                    "options": opts, "limits": asdict(lim), "uids": [z.next_uid(), z.next_uid()]}

        def use(z: Zygote, reply: dict[str, Any] | None) -> SandboxResult:
            try:
                if reply is not None and "start_error" in reply:
                    res.stage, res.error = "sandbox", reply["start_error"]
                    return res
                return judged(res, reply, bool(tests), lim, z.out / str(z.seq), out_dir)
            finally:
                shutil.rmtree(z.out / str(z.seq), ignore_errors=True)
                shutil.rmtree(z.host_in / str(z.seq), ignore_errors=True)

        return self._run("judge", job_of, lim.wall_s + 240, use)

    def close(self) -> None:
        """Stop every zygote and delete their folders and cgroups."""
        with self._lock:
            _close_all(self._all)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_program(code: str, tests: str | None = None, *, params: dict[str, Any] | None = None,
                  out_dir: Path | None = None, limits: SandboxLimits | None = None,
                  options: CheckOptions | None = None) -> SandboxResult:
    """Run a CadQuery program once in fresh sandboxes: build it (``params`` overriding ``PARAMS``) in
    the candidate's sandbox, then, in a separate judge sandbox, load its geometry and run the tests,
    the checks and (with ``out_dir``) the STEP/STL/PNG exports."""
    with WorkerPool(1, limits) as pool:
        return pool.check(code, tests, params=params, out_dir=out_dir, options=options)
