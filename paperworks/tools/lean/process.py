"""One Lean REPL child process: start it, send a JSON request, wait for the blank-line-ended JSON reply
with a deadline, kill it (its whole process group). ``SubprocessRepl`` builds restarts and replay on this."""

from __future__ import annotations

import collections
import functools
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from paperworks.tools.lean.repl import LeanError, LeanMessage

_ENV_KEEP = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ")
_ENV_PREFIXES = ("LEAN", "LAKE", "ELAN")


class ReplTimeout(Exception):
    """No reply within the deadline (the caller kills the process)."""


class ReplCrash(Exception):
    """The process ended or wrote something that is not the protocol; the message says how, in one line."""


_EOF = object()


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment Lean gets: PATH, HOME, locale and the LEAN*/LAKE*/ELAN* variables, not the rest
    (model API keys stay out of reach of the tactics Lean runs)."""
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP or k.startswith(_ENV_PREFIXES)}
    return {**env, **(extra or {})}


@functools.lru_cache(maxsize=1)
def network_prefix() -> tuple[str, ...]:
    """``("unshare", "-n")`` when a private network namespace can be made here, else ``()``."""
    unshare = shutil.which("unshare")
    if not unshare:
        return ()
    try:
        ok = subprocess.run([unshare, "-n", "true"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return (unshare, "-n") if ok else ()


def messages_of(reply: dict[str, Any]) -> tuple[LeanMessage, ...]:
    """The ``messages`` of a REPL reply."""
    out = []
    for m in reply.get("messages") or []:
        pos = m.get("pos") or {}
        out.append(LeanMessage(str(m.get("severity", "error")), str(m.get("data", "")),
                               int(pos.get("line", 0) or 0), int(pos.get("column", 0) or 0)))
    return tuple(out)


def one_line(text: str, limit: int = 300) -> str:
    """``text`` squeezed onto one line of at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reply_error(reply: dict[str, Any]) -> str | None:
    """The error of a reply that is only an error (``{"message": "Lean error: …"}``), one line; else None."""
    if "message" in reply and "proofState" not in reply and "env" not in reply:
        text = str(reply["message"])
        return one_line(text.removeprefix("Lean error:").strip() or text)
    return None


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        return f"was killed by {name}{hint}"
    return f"exited with status {code}"


def _read_replies(stream: IO[str], out: queue.Queue[Any]) -> None:
    buf: list[str] = []
    try:
        for line in stream:
            if line.strip():
                buf.append(line)
                continue
            if buf:
                text, buf = "".join(buf), []
                try:
                    out.put(json.loads(text))
                except ValueError:
                    out.put(ReplCrash(f"it wrote something that is not JSON: {' '.join(text.split())[:120]!r}"))
    except (OSError, ValueError):
        pass
    if buf:
        try:
            out.put(json.loads("".join(buf)))
        except ValueError:
            pass
    out.put(_EOF)


def _read_stderr(stream: IO[str], tail: collections.deque[str]) -> None:
    try:
        for line in stream:
            if line.strip():
                tail.append(" ".join(line.split())[:300])
    except (OSError, ValueError):
        pass


def _kill_group(popen: subprocess.Popen[str]) -> None:
    if popen.poll() is None:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            popen.kill()
    try:
        popen.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    for stream in (popen.stdin, popen.stdout, popen.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


def _runnable(program: str, cwd: Path | None, env: dict[str, str]) -> bool:
    if "/" in program:
        path = Path(program) if Path(program).is_absolute() or cwd is None else cwd / program
        return path.is_file() and os.access(path, os.X_OK)
    return shutil.which(program, path=env.get("PATH")) is not None


class ReplProcess:
    """A started REPL. ``request`` raises ``ReplTimeout`` or ``ReplCrash``; ``kill`` ends it for good."""

    def __init__(self, command: Sequence[str], *, program: str | None = None, cwd: Path | None,
                 env: dict[str, str]) -> None:
        """``program`` is the REPL binary (or lake) inside ``command``: it must exist, whatever wraps it."""
        self.command = list(command)
        if program is not None and not _runnable(program, cwd, env):
            raise LeanError(f"cannot start the Lean REPL `{program}`: not found or not executable")
        try:
            self.popen = subprocess.Popen(
                self.command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", bufsize=1,
                start_new_session=True)
        except OSError as exc:
            raise LeanError(f"cannot start the Lean REPL `{' '.join(self.command)}`: {exc.strerror or exc}") from None
        self.replies: queue.Queue[Any] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        assert self.popen.stdout is not None and self.popen.stderr is not None
        threading.Thread(target=_read_replies, args=(self.popen.stdout, self.replies), daemon=True).start()
        self._stderr_reader = threading.Thread(target=_read_stderr, args=(self.popen.stderr, self.stderr_tail),
                                               daemon=True)
        self._stderr_reader.start()
        self._finalizer = weakref.finalize(self, _kill_group, self.popen)

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def why_dead(self) -> str:
        try:
            code = self.popen.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None:
            self._stderr_reader.join(timeout=1.0)  # its last words
        tail = f": {self.stderr_tail[-1]}" if self.stderr_tail else ""
        return f"the Lean REPL {_describe_exit(code)}{tail}"

    def request(self, payload: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one request and return its reply."""
        stdin = self.popen.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(payload, ensure_ascii=False) + "\n\n")
            stdin.flush()
        except (OSError, ValueError):
            raise ReplCrash(self.why_dead()) from None
        try:
            reply = self.replies.get(timeout=max(0.001, timeout_s))
        except queue.Empty:
            raise ReplTimeout() from None
        if reply is _EOF:
            raise ReplCrash(self.why_dead())
        if isinstance(reply, ReplCrash):
            raise reply
        if not isinstance(reply, dict):
            raise ReplCrash(f"it replied {type(reply).__name__}, not a JSON object")
        return reply

    def close(self, grace_s: float = 5.0) -> None:
        """Ask it to stop (end of input), then kill what is left."""
        try:
            if self.popen.stdin is not None:
                self.popen.stdin.close()
            self.popen.wait(timeout=grace_s)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def kill(self) -> None:
        self._finalizer()
