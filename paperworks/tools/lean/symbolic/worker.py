"""The checker's worker process: a plain ``python -m paperworks.tools.lean.symbolic.worker`` subprocess,
started by ``client.Worker``. Layer: entry (a process of its own: nothing imports this module; it runs
``local``'s check and coverage for each request).

Requests and replies are ``wire`` messages on its stdin/stdout; anything the checker prints goes to
stderr. The worker exits when its parent goes away (stdin closes).
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from typing import Any

from paperworks.tools.lean.symbolic.wire import read_message, write_message


def serve() -> None:
    """The worker loop: ``(kind, args)`` in, the result out, until stdin closes."""
    proto_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the protocol
    proto_in = sys.stdin.buffer
    sys.setrecursionlimit(10_000)
    from paperworks.tools.lean.symbolic import local

    while True:
        try:
            kind, args = read_message(proto_in)
        except (EOFError, OSError, pickle.UnpicklingError):
            return
        if kind == "check":
            sub, fa, ty, intros, timeout_s = args
            reply: Any = local.check_answer_local(sub, fa, ty, intros=intros, timeout_s=timeout_s)
        elif kind == "coverage_row":
            reply = local.coverage_row(*args)
        elif kind == "sleep":  # lets tests prove that an overrunning request gets the worker killed
            time.sleep(float(args[0]))
            reply = "slept"
        else:
            reply = None
        write_message(proto_out, reply)


if __name__ == "__main__":
    serve()
