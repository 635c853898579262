"""Shared fixtures. Every test runs offline, in its own runs folder and cache home."""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from paperworks.core.paths import set_offline_env

set_offline_env()
# The CLI's rich consoles are made at import; a COLUMNS present then fixes their width for the whole
# process. Tests set COLUMNS themselves where widths matter, so none is inherited (pytest-xdist's
# workers would otherwise carry their launcher's).
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs and the response cache go to the test's temporary folder. Converted model weights
    stay in the real cache home (converting the GGUF each time would cost seconds per test)."""
    monkeypatch.setenv("PAPERWORKS_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("PAPERWORKS_RESPONSE_CACHE", str(tmp_path / "responses.sqlite"))


class _ForkServer:
    """The client of ``tests/cli_forkserver.py``: one server per test process, started on first use."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()
        self.broken = False

    def _start(self) -> subprocess.Popen[str] | None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERWORKS_")}
        env["PYTHONPATH"] = str(ROOT)
        proc = subprocess.Popen([sys.executable, "-m", "tests.cli_forkserver"], cwd=ROOT, env=env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1)
        assert proc.stdout is not None
        if not json.loads(proc.stdout.readline() or "{}").get("ready"):
            proc.kill()
            self.broken = True
            return None
        atexit.register(proc.kill)
        return proc

    def run(self, args: list[str], cwd: Path | None, env: dict[str, str], input: str | None,
            timeout: float) -> subprocess.CompletedProcess[str] | None:
        """The completed process, or None when the server cannot take it (then run a fresh interpreter)."""
        if self.broken or not self.lock.acquire(blocking=False):  # busy: another thread's call runs
            return None
        try:
            if self.proc is None or self.proc.poll() is not None:
                self.proc = self._start()
                if self.proc is None:
                    return None
            assert self.proc.stdin is not None and self.proc.stdout is not None
            with tempfile.TemporaryDirectory(prefix="cli-") as tmp:
                files = {k: os.path.join(tmp, k) for k in ("stdin", "stdout", "stderr")}
                Path(files["stdin"]).write_text(input or "", encoding="utf-8")
                req = {"args": list(args), "cwd": str(cwd or os.getcwd()), "env": env, **files}
                self.proc.stdin.write(json.dumps(req) + "\n")
                self.proc.stdin.flush()
                pid = json.loads(self.proc.stdout.readline())["pid"]
                ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
                if not ready:
                    os.kill(pid, signal.SIGKILL)
                    self.proc.stdout.readline()
                    raise subprocess.TimeoutExpired([sys.executable, "-m", "paperworks", *args], timeout)
                status = json.loads(self.proc.stdout.readline())["status"]

                def read(name: str) -> str:
                    with open(files[name], encoding="utf-8", newline=None) as fh:
                        return fh.read()

                return subprocess.CompletedProcess([sys.executable, "-m", "paperworks", *args], status,
                                                   read("stdout"), read("stderr"))
        finally:
            self.lock.release()


_FORK_SERVER = _ForkServer()


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, input: str | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``paperworks`` in a process of its own, returning its completed process.

    The process is forked from a server that has already imported the CLI's dependencies (see
    ``tests/cli_forkserver.py``). A fresh interpreter is started instead when ``env`` sets a ``PYTHON*``
    variable (read at interpreter start-up), and always with ``PAPERWORKS_TEST_FRESH_CLI=1``."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    startup = any(k.startswith("PYTHON") for k in (env or {}))  # read at interpreter start: needs a fresh one
    if os.environ.get("PAPERWORKS_TEST_FRESH_CLI") != "1" and not startup:
        done = _FORK_SERVER.run(list(args), cwd, full_env, input, timeout)
        if done is not None:
            return done
    return subprocess.run(
        [sys.executable, "-m", "paperworks", *args], cwd=cwd, env=full_env, input=input,
        capture_output=True, text=True, timeout=timeout,
    )
