"""Readable refusals and error lines for model-written code (runs INSIDE the sandbox; stdlib only).

``install_guard`` adds an audit hook that turns what the sandbox forbids into a clear
PermissionError; the OS-level sandbox is what actually contains the code (ctypes bypasses the hook).
``error_line`` turns an exception into one line that keeps the informative part of a multi-line
message.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

BLOCKED = {"os.system": "spawning a shell", "os.exec": "running programs", "os.posix_spawn": "running programs",
           "os.spawn": "running programs", "subprocess.Popen": "spawning processes", "os.fork": "forking",
           "os.forkpty": "forking", "socket.connect": "network access", "socket.bind": "network access",
           "socket.sendto": "network access", "os.kill": "signalling processes",
           "os.killpg": "signalling processes", "signal.pthread_kill": "signalling processes"}
PATH_EVENTS = {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.symlink", "os.link", "os.chmod",
               "os.chown", "os.truncate", "os.utime", "shutil.rmtree"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
MESSAGE_CHARS = 400
ALONE = ("the sandbox runs the program file alone: put helper modules and data (DXF, STEP, ...) into the "
         "program or make them with CadQuery; only packages installed with paperworks are importable")


def install_guard(home: str) -> None:
    """Refuse spawning, signals, sockets and writes outside ``home`` with a clear PermissionError."""
    root = os.path.realpath(home)

    def inside(path: Any) -> bool:
        if isinstance(path, int):
            return True
        p = os.path.realpath(os.fsdecode(path))
        return p == root or p.startswith(root + os.sep) or p == "/dev/null"

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in BLOCKED:
            raise PermissionError(f"sandbox: {BLOCKED[event]} is not allowed ({event})")
        if event == "open" and args and args[0] is not None:
            mode, flags = args[1], args[2] if len(args) > 2 else 0
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (flags or 0) & WRITE_FLAGS
            if writes and not inside(args[0]):
                raise PermissionError(f"sandbox: writing outside the working folder is not allowed ({args[0]})")
        elif event in PATH_EVENTS and args and not inside(args[0]):
            raise PermissionError(f"sandbox: changing files outside the working folder is not allowed ({args[0]})")

    sys.addaudithook(hook)


def message_text(text: str, limit: int = MESSAGE_CHARS) -> str:
    """A multi-line message as one line: blank lines dropped, the rest joined with ' | ', capped."""
    lines = [" ".join(line.split()) for line in str(text).strip().splitlines()]
    joined = " | ".join(line for line in lines if line)
    return joined if len(joined) <= limit else joined[:limit - 1] + "…"


def error_line(exc: BaseException, filename: str) -> tuple[str, int | None]:
    """('[file ]line N: Type: message', N) with the innermost line of ``filename`` in the traceback."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    msg = message_text(exc.msg if isinstance(exc, SyntaxError) else str(exc))
    text = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    if isinstance(exc, MemoryError):
        text += " (memory limit reached)"
    elif isinstance(exc, ModuleNotFoundError | FileNotFoundError):
        text += f" ({ALONE})"
    prefix = "" if filename == "program.py" else f"{filename} "
    return (f"{prefix}line {line}: {text}" if line else text), line
