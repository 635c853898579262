"""One sandboxed warm zygote process (role ``build`` or ``judge``), host side: start, send a job,
read its one-line JSON reply from its stdout pipe, close. See ``worker.py`` for the sandbox side."""

from __future__ import annotations

import json
import os
import queue
import random
import select
import shutil
import subprocess
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from paperworks.tools.cad import cgroups, procs
from paperworks.tools.cad.isolation import clean_env, mode, uid_switch, worker_command

UID_BASE, UID_SPAN = 100000, 60000


class Zygote:
    """A warm sandboxed worker of one role, with its private host folder and cgroup folder."""

    def __init__(self, role: str, files_mb: int) -> None:
        self.role = role
        self.files_mb = files_mb
        self.dir = Path(tempfile.mkdtemp(prefix=f"paperworks-cad-{role}-"))
        os.chmod(self.dir, 0o711)
        self.mode = mode()
        self.cgroup_kind = cgroups.kind()
        self.cgroup = cgroups.make_folder(self.cgroup_kind)
        argv, self.jobs, self.out, self.inside_in = worker_command(self.mode, role, self.dir, files_mb,
                                                                   self.cgroup, self.cgroup_kind)
        self.host_in = self.dir / "in"
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(self.dir / "worker.log", "wb"), env=clean_env(),
                                     cwd=self.dir, start_new_session=True,
                                     preexec_fn=self._enter_cgroup if self.cgroup_kind == "v2" else None)
        self.ready = False
        self.seq = 0
        self.unhealthy: str | None = None
        self._uid = random.randrange(UID_SPAN)

    def _enter_cgroup(self) -> None:
        cgroups.enter(self.cgroup, self.cgroup_kind)

    def next_uid(self) -> int | None:
        """A uid no earlier job of this zygote used recently (None: no uid switching here)."""
        if not uid_switch():
            return None
        self._uid = (self._uid + 1) % UID_SPAN
        return UID_BASE + self._uid

    def _readline(self, timeout: float) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        if not select.select([self.proc.stdout], [], [], timeout)[0]:
            return None
        line = self.proc.stdout.readline(64 << 20)
        try:
            reply = procs.loads(line, procs.JSON_DEPTH + 8) if line else None
        except ValueError:  # not JSON, or nested too deeply (RecursionError in json.loads)
            return None
        return reply if isinstance(reply, dict) else None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def start_error(self) -> str | None:
        """Wait for the zygote's hello; why it did not start, or None."""
        if self.ready:
            return None
        hello = self._readline(180)
        if not hello or not hello.get("ready"):
            log = (self.dir / "worker.log").read_text(errors="replace").strip().splitlines()[-1:]
            return f"the sandbox {self.role} worker did not start: " + (log[0][:300] if log else "no output")
        self.ready = True
        return None

    def send(self, job: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """Send one job (its id is set here); the reply, or None when the zygote stopped answering."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps({**job, "id": self.seq}) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return None
        reply = self._readline(timeout)
        if reply is None or reply.get("id") != self.seq:
            self.unhealthy = "it stopped answering" if reply is None else str(reply.get("error") or "bad reply")
            return None
        self.unhealthy = reply.get("unhealthy") or None
        return reply

    def new_job(self) -> int:
        self.seq += 1
        return self.seq

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, 9)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:  # a dead zygote: the unflushed job line has nowhere to go
                pass
        cgroups.remove(self.cgroup)
        shutil.rmtree(self.dir, ignore_errors=True)


_spawner: queue.Queue[tuple[str, int, Future[Zygote]]] | None = None
_spawner_lock = threading.Lock()


def _spawner_loop(jobs: queue.Queue[tuple[str, int, Future[Zygote]]]) -> None:
    while True:
        role, files_mb, fut = jobs.get()
        try:
            fut.set_result(Zygote(role, files_mb))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            fut.set_exception(exc)


def spawn(role: str, files_mb: int) -> Zygote:
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
    fut: Future[Zygote] = Future()
    jobs.put((role, files_mb, fut))
    return fut.result()
