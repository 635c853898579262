"""The client of the checker's worker process (:class:`Worker`). Layer: entry (below ``api``, which holds
the one worker; it starts ``worker`` by its module name, never importing it).

The worker is a plain ``python -m paperworks.tools.lean.symbolic.worker`` subprocess (not
``multiprocessing``: it never re-imports the caller's ``__main__``, so callers need no
``if __name__ == "__main__"`` guard). Requests and replies are ``wire`` messages on its stdin/stdout. A
request that takes longer than its timeout gets the worker killed (SIGKILL); the next request starts a
fresh one. The worker also exits when its parent goes away (stdin closes).
"""

from __future__ import annotations

import os
import pickle
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from paperworks.tools.lean.symbolic.wire import read_message, write_message

WORKER_MODULE = "paperworks.tools.lean.symbolic.worker"
START_GRACE_S = 30.0


class Worker:
    """One long-lived worker subprocess; killed and replaced when a request overruns its timeout."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> None:
        root = str(Path(__file__).resolve().parents[4])
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=root,
        )

    def _kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            proc.kill()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def call(self, kind: str, args: tuple[Any, ...], timeout_s: float) -> Any:
        """Run one request; raise TimeoutError (worker killed) or RuntimeError (worker died)."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._kill()
                self._start()
                timeout_s += START_GRACE_S  # the first request pays for the worker's imports
            proc = self.proc
            assert proc is not None and proc.stdin is not None and proc.stdout is not None
            try:
                write_message(proc.stdin, (kind, args))  # type: ignore[arg-type]
            except (BrokenPipeError, OSError) as err:
                self._kill()
                raise RuntimeError("worker died") from err
            deadline = time.monotonic() + timeout_s
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._kill()
                    raise TimeoutError(kind)
                ready, _, _ = select.select([proc.stdout], [], [], left)
                if ready:
                    break
            try:
                return read_message(proc.stdout)  # type: ignore[arg-type]
            except (EOFError, OSError, pickle.UnpicklingError) as err:
                self._kill()
                raise RuntimeError("worker died") from err

    def close(self) -> None:
        with self.lock:
            self._kill()
