"""Run model-written CadQuery programs and their tests in the sandbox; the host side.

Design (warm pool): each pool slot is one sandboxed *zygote* (bubblewrap: own network, pid, ipc, uts
and mount namespaces; read-only system and Python; private /tmp; no home, no project; clean
environment) that imports CadQuery once. For every candidate the zygote forks a fresh child that
takes its own unprivileged uid, rlimits (CPU, data, file size, open files, processes), a fresh private
folder and a wall-clock limit; the zygote never runs model code, and everything the candidate left
behind (processes of its uid, its folder) is killed and deleted before the next one. Results cross
back as JSON files only (never pickle). See ``worker.py`` for the sandbox side and ``isolation.py``
for how the sandbox is built and ``sandbox_info()``.
"""

from __future__ import annotations

import json
import os
import queue
import random
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import weakref
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from paperworks.tools.cad.isolation import NPROC, clean_env, mode, sandbox_info, uid_switch, worker_command

__all__ = ["CheckOptions", "CheckResult", "SandboxLimits", "SandboxResult", "TestResult", "WorkerPool",
           "check_program", "sandbox_info"]
SIGNALS = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 24: "SIGXCPU",
           25: "SIGXFSZ"}


@dataclass
class SandboxLimits:
    """Resource limits of one candidate."""

    wall_s: float = 60
    """Wall-clock seconds for the whole candidate (build, tests, checks, exports)."""
    cpu_s: int = 60
    """CPU seconds (RLIMIT_CPU)."""
    memory_mb: int = 2048
    """Memory the candidate may allocate on top of the warm worker (RLIMIT_DATA)."""
    output_kb: int = 256
    """Tail of stdout/stderr kept."""
    files_mb: int = 64
    """Largest file it may write (RLIMIT_FSIZE); its private /tmp holds 4x this."""


@dataclass
class CheckOptions:
    """Which assembly checks and artifacts to produce."""

    interference_tol_mm3: float = 1e-3
    """Intersection volume above which two parts interfere."""
    contact_tol_mm: float = 0.05
    """Parts closer than this touch; a part touching none is floating."""
    envelope: tuple[float, float, float] | None = None
    """Largest allowed overall size (x, y, z) in mm."""
    renders: bool = True
    """PNG renders (iso, front, top, side); only when an out_dir is given."""
    exports: bool = True
    """STEP and STL; only when an out_dir is given."""
    clearances: list[tuple[str, str, float | None, float | None]] = field(default_factory=list)
    """(part a, part b, min mm, max mm): minimum-distance checks between mating parts."""
    density: float | dict[str, float] | None = None
    """g/cm³ (one number, or per part) for masses in ``parts``."""


@dataclass
class TestResult:
    """One ``test_*`` function's outcome."""

    name: str
    passed: bool
    message: str


@dataclass
class CheckResult:
    """One geometry check (``valid_solids``, ``interference:a/b``, ``floating:x``, ``envelope``, ...)."""

    name: str
    passed: bool
    message: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class SandboxResult:
    """Everything about one candidate. ``ok``: it compiled, built, and all tests and checks passed."""

    ok: bool
    stage: str
    error: str | None
    error_line: int | None
    tests: list[TestResult] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    artifacts: dict[str, str] = field(default_factory=dict)
    stdout_tail: str = ""
    time_s: float = 0.0
    peak_rss_mb: float = 0.0
    """Peak resident memory of the candidate process (MB; 0 when unknown)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return asdict(self)


def _read_capped(path: Path, cap: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return os.read(fd, cap) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    finally:
        os.close(fd)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _result(reply: dict[str, Any] | None, folder: Path, limits: SandboxLimits, out_dir: Path | None,
            elapsed: float) -> SandboxResult:
    """Build the result from the zygote's reply and the files it copied out (validated, capped)."""
    raw = _read_capped(folder / "result.json", 16 << 20)
    tail = (_read_capped(folder / "stdout.txt", limits.output_kb << 10) or b"").decode("utf-8", "replace")
    stage_txt = (_read_capped(folder / "stage.txt", 64) or b"build").decode("ascii", "replace").strip()
    data: dict[str, Any] = {}
    if raw:
        try:
            data = json.loads(raw)
        except ValueError:
            data = {}
    if reply is None:
        return SandboxResult(False, "sandbox", "the sandbox worker stopped answering", None, stdout_tail=tail,
                             time_s=elapsed)
    if not isinstance(data, dict) or "stage" not in data:
        if reply.get("timed_out"):
            stage, err = "timeout", f"timed out after {limits.wall_s:g} s (wall clock) during {stage_txt}"
        elif reply.get("signal"):
            sig = int(reply["signal"])
            what = {24: f"CPU time limit ({limits.cpu_s} s) exceeded",
                    25: f"file size limit ({limits.files_mb} MB) exceeded"}.get(sig, "the program crashed")
            stage, err = "killed", f"{what} (signal {SIGNALS.get(sig, sig)}) during {stage_txt}"
        else:
            stage, err = "killed", f"the program exited (code {reply.get('exit')}) during {stage_txt}, " \
                                   "before its results were written"
        return SandboxResult(False, stage, err, None, stdout_tail=tail, time_s=elapsed)
    tests = [TestResult(str(t.get("name")), t.get("passed") is True, str(t.get("message", "")))
             for t in data.get("tests") or [] if isinstance(t, dict)]
    checks = [CheckResult(str(c.get("name")), c.get("passed") is True, str(c.get("message", "")),
                          _dict(c.get("details")))
              for c in data.get("checks") or [] if isinstance(c, dict)]
    artifacts: dict[str, str] = {}
    for key, name in (data.get("artifacts") or {}).items():
        src = folder / Path(str(name).replace(".svg", ".png")).name
        if out_dir is not None and src.is_file() and not src.is_symlink():
            dst = out_dir / src.name
            shutil.copyfile(src, dst)
            artifacts[str(key)] = str(dst)
    stage = str(data.get("stage"))
    error = data.get("error")
    ok = stage == "done" and not error and all(t.passed for t in tests) and all(c.passed for c in checks)
    line = data.get("error_line")
    return SandboxResult(ok, stage, str(error) if error else None, line if isinstance(line, int) else None,
                         tests, checks, [p for p in data.get("parts") or [] if isinstance(p, dict)],
                         _dict(data.get("params")), artifacts, tail,
                         elapsed)


class _Zygote:
    """One sandboxed warm worker process and its private host folder."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self.dir = Path(tempfile.mkdtemp(prefix="paperworks-cad-"))
        os.chmod(self.dir, 0o711)
        self.mode = mode()
        argv, self.jobs, self.out = worker_command(self.mode, self.dir, limits.files_mb)
        argv += ["--nproc", str(NPROC)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(self.dir / "worker.log", "wb"), env=clean_env(),
                                     cwd=self.dir, start_new_session=True)
        self.ready = False
        self.seq = 0

    def _readline(self, timeout: float) -> dict[str, Any] | None:
        import select

        assert self.proc.stdout is not None
        if not select.select([self.proc.stdout], [], [], timeout)[0]:
            return None
        line = self.proc.stdout.readline(1 << 20)
        try:
            reply = json.loads(line) if line else None
        except ValueError:
            return None
        return reply if isinstance(reply, dict) else None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, job: dict[str, Any], out_dir: Path | None) -> SandboxResult:
        limits = SandboxLimits(**job["limits"])
        limits.files_mb = min(limits.files_mb, self.limits.files_mb)
        start = time.perf_counter()
        if not self.ready:
            hello = self._readline(180)
            if not hello or not hello.get("ready"):
                log = (self.dir / "worker.log").read_text(errors="replace").strip().splitlines()[-1:]
                return SandboxResult(False, "sandbox", "the sandbox worker did not start: "
                                     + (log[0][:300] if log else "no output"), None)
            self.ready = True
        self.seq += 1
        job = {**job, "id": self.seq, "limits": asdict(limits),
               "uid": 100000 + random.randrange(60000) if uid_switch() else None}
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(job) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return SandboxResult(False, "sandbox", "the sandbox worker is gone", None)
        reply = self._readline(limits.wall_s + 240)
        folder = self.out / str(self.seq)
        try:
            result = _result(reply, folder, limits, out_dir, time.perf_counter() - start)
            if reply and isinstance(reply.get("maxrss_kb"), int):
                result.peak_rss_mb = round(reply["maxrss_kb"] / 1024, 1)
            return result
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            if self.mode != "bwrap":
                shutil.rmtree(self.jobs / str(self.seq), ignore_errors=True)

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, 9)
        except OSError:
            pass
        self.proc.wait(timeout=30)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _close_all(zygotes: list[_Zygote]) -> None:
    for z in list(zygotes):
        z.close()
    zygotes.clear()


_spawner: queue.Queue[tuple[SandboxLimits, Future[_Zygote]]] | None = None
_spawner_lock = threading.Lock()


def _spawner_loop(jobs: queue.Queue[tuple[SandboxLimits, Future[_Zygote]]]) -> None:
    while True:
        limits, fut = jobs.get()
        try:
            fut.set_result(_Zygote(limits))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            fut.set_exception(exc)


def _spawn_zygote(limits: SandboxLimits) -> _Zygote:
    """Start a zygote from one long-lived thread: bwrap's ``--die-with-parent`` (PR_SET_PDEATHSIG)
    kills a sandbox when the *thread* that started it ends, and callers often run in short-lived
    worker threads (``asyncio.to_thread``)."""
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = queue.Queue()
            threading.Thread(target=_spawner_loop, args=(_spawner,), name="cad-sandbox-spawner",
                             daemon=True).start()
        jobs = _spawner
    fut: Future[_Zygote] = Future()
    jobs.put((limits, fut))
    return fut.result()


class WorkerPool:
    """Pre-started sandboxed zygotes (CadQuery already imported); ``check`` is thread-safe, one
    candidate per zygote at a time. A zygote that dies or stops answering is replaced."""

    def __init__(self, size: int = 1, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self._idle: queue.Queue[_Zygote] = queue.Queue()
        self._all: list[_Zygote] = []
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close_all, self._all)  # closes zygotes left open at exit
        for _ in range(max(1, size)):
            self._add()

    def _add(self) -> None:
        z = _spawn_zygote(self.limits)
        with self._lock:
            self._all.append(z)
        self._idle.put(z)

    def check(self, code: str, tests: str | None = None, *, params: dict[str, Any] | None = None,
              out_dir: Path | None = None, options: CheckOptions | None = None,
              limits: SandboxLimits | None = None) -> SandboxResult:
        """Run one program (and its tests) in the sandbox; see ``check_program``. ``limits`` overrides
        the pool's for this candidate (``files_mb`` cannot exceed the pool's)."""
        opts = asdict(options or CheckOptions())
        if out_dir is None:
            opts["renders"] = opts["exports"] = False
        else:
            out_dir = Path(out_dir)
            out_dir.mkdir(parents=True, exist_ok=True)
        job = {"code": code, "tests": tests, "params": params or {}, "options": opts,
               "limits": asdict(limits or self.limits)}
        z = self._idle.get()
        result: SandboxResult | None = None
        try:
            result = z.run(job, out_dir)
        finally:
            if z.alive() and result is not None and result.stage != "sandbox":
                self._idle.put(z)
            else:
                with self._lock:
                    self._all.remove(z)
                z.close()
                self._add()
        return result

    def close(self) -> None:
        """Stop every zygote and delete their folders."""
        with self._lock:
            _close_all(self._all)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_program(code: str, tests: str | None = None, *, params: dict[str, Any] | None = None,
                  out_dir: Path | None = None, limits: SandboxLimits | None = None,
                  options: CheckOptions | None = None) -> SandboxResult:
    """Run a CadQuery program (and its tests) once in a fresh sandbox: compile, build with ``params``
    overriding ``PARAMS``, run the tests, the checks, and (with ``out_dir``) STEP/STL/PNG exports."""
    with WorkerPool(1, limits) as pool:
        return pool.check(code, tests, params=params, out_dir=out_dir, options=options)
