"""The symbolic checker's worker process, and the client that runs one.

The worker is a plain ``python -m paperworks.tools.lean.symbolic_worker`` subprocess (not
``multiprocessing``: it never re-imports the caller's ``__main__``, so callers need no
``if __name__ == "__main__"`` guard). Requests and replies are length-prefixed pickles on its
stdin/stdout; anything the checker prints goes to stderr. A request that takes longer than its
timeout gets the worker killed (SIGKILL); the next request starts a fresh one. The worker also
exits when its parent goes away (stdin closes).
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

_HEADER = struct.Struct("!I")
MAX_REPLY = 64 * 1024 * 1024
START_GRACE_S = 30.0


def _write(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks = []
    while n:
        chunk = stream.read(n)
        if not chunk:
            raise EOFError("stream closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read(stream: BinaryIO) -> Any:
    (size,) = _HEADER.unpack(_read_exact(stream, _HEADER.size))
    if size > MAX_REPLY:
        raise EOFError("reply too large")
    return pickle.loads(_read_exact(stream, size))


def serve() -> None:
    """The worker loop: ``(kind, args)`` in, the result out, until stdin closes."""
    proto_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the protocol
    proto_in = sys.stdin.buffer
    sys.setrecursionlimit(10_000)
    from paperworks.tools.lean import symbolic

    while True:
        try:
            kind, args = _read(proto_in)
        except (EOFError, OSError, pickle.UnpicklingError):
            return
        if kind == "check":
            sub, fa, ty, intros, timeout_s = args
            reply: Any = symbolic.check_answer_local(sub, fa, ty, intros=intros, timeout_s=timeout_s)
        elif kind == "coverage_row":
            reply = symbolic.coverage_row(*args)
        elif kind == "sleep":  # lets tests prove that an overrunning request gets the worker killed
            time.sleep(float(args[0]))
            reply = "slept"
        else:
            reply = None
        _write(proto_out, reply)


class Worker:
    """One long-lived worker subprocess; killed and replaced when a request overruns its timeout."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> None:
        root = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "paperworks.tools.lean.symbolic_worker"],
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
                _write(proc.stdin, (kind, args))  # type: ignore[arg-type]
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
                return _read(proc.stdout)  # type: ignore[arg-type]
            except (EOFError, OSError, pickle.UnpicklingError) as err:
                self._kill()
                raise RuntimeError("worker died") from err

    def close(self) -> None:
        with self.lock:
            self._kill()


if __name__ == "__main__":
    serve()
