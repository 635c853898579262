"""A fork server for the tests' ``paperworks`` subprocesses.

Each ``cli()`` call of the tests still runs ``python -m paperworks`` in a process of its own, with its own
pid, working directory, environment, stdin/stdout/stderr and exit status (``os._exit`` included), but the
process is forked from this server, which has already imported what every command imports (litellm alone
takes about 3 s of CPU to import). The server starts once per test process; ``PAPERWORKS_TEST_FRESH_CLI=1``
makes ``cli()`` start a fresh interpreter every time instead.

Protocol (one request at a time, JSON lines): the client writes ``{"args", "cwd", "env", "stdin", "stdout",
"stderr"}`` (the last three are file paths); the server answers ``{"pid": N}`` once the child runs, then
``{"status": CODE}`` when it has ended (negative: killed by that signal, as ``subprocess`` reports it).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from typing import Any


def _preload() -> None:
    """What every command imports anyway; nothing here starts a thread or reads the environment for later."""
    import paperworks.cli.app  # noqa: F401
    import paperworks.eval.harness  # noqa: F401
    import paperworks.models.gateway  # noqa: F401  (litellm)
    import paperworks.workflows.registry  # noqa: F401
    import paperworks.workflows.runner  # noqa: F401


def _child(req: dict[str, Any], base_path: list[str]) -> None:
    code = 1
    try:
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        for fd, path, flags in ((0, req["stdin"], os.O_RDONLY),
                                (1, req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            opened = os.open(path, flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        import io

        # a fresh reader over the new stdin (the server's wrapper may hold what it read ahead of the pipe)
        sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                                     encoding=sys.stdin.encoding, errors=sys.stdin.errors)
        # as ``python -m`` would set it: the working directory first, then PYTHONPATH, then the rest
        extra = [p for p in req["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [os.getcwd(), *extra, *base_path]
        sys.argv = [os.path.join(os.path.dirname(sys.modules["paperworks"].__file__ or ""), "__main__.py"),
                    *req["args"]]
        import runpy

        runpy.run_module("paperworks", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve() -> None:
    """Read requests on stdin until it closes; fork one child per request."""
    _preload()
    if threading.active_count() > 1:  # forking a threaded process could copy a held lock
        print(json.dumps({"error": "threads running after the preload; use fresh interpreters"}), flush=True)
        return
    own = {p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    base_path = [p for p in sys.path[1:] if p not in own]
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(req, base_path)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)


if __name__ == "__main__":
    serve()
