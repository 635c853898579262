"""Runs INSIDE the policy sandbox (standard library only; never imports paperworks).

``python -I runner.py [--uid UID --nproc N] POLICY LOG [STATE]``: becomes ``UID`` (no groups, no
capabilities; at most N processes and threads) when given, then executes the policy file's
``main(robot)`` against the simulator (``sim.py`` beside this file) and writes every robot call it
made to LOG as JSON. Nothing here is a verdict: the judge replays LOG on its own simulator, in a
process the policy never reached.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guard  # noqa: E402
import sim  # noqa: E402

MAX_CALLS = 2000


class Robot:
    """What the policy sees as ``robot``: one method per API function, each logged."""

    def __init__(self, kitchen: sim.Kitchen) -> None:
        object.__setattr__(self, "_k", kitchen)

    def __getattr__(self, name: str) -> object:
        if name not in sim.API:
            raise AttributeError(f"robot has no function {name!r}; the API is: {', '.join(sim.API)}")
        kitchen = object.__getattribute__(self, "_k")

        def call(*args: object) -> object:
            if len(kitchen.log) >= MAX_CALLS:
                raise RuntimeError(f"more than {MAX_CALLS} robot calls")
            return kitchen.call(name, list(args))

        return call


def _drop(uid: int, nproc: int) -> None:
    """Become ``uid`` for good (the kernel then enforces ``RLIMIT_NPROC``: a fork bomb stops)."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def main() -> int:
    args = sys.argv[1:]
    uid = nproc = None
    while args and args[0] in ("--uid", "--nproc"):
        if args[0] == "--uid":
            uid = int(args[1])
        else:
            nproc = int(args[1])
        args = args[2:]
    policy, log_path = args[0], args[1]
    state = None
    if len(args) > 2:
        with open(args[2], encoding="utf-8") as f:
            state = json.load(f)
    if uid is not None:
        _drop(uid, nproc or 64)
    kitchen = sim.Kitchen(state)
    error = None
    with open(policy, encoding="utf-8") as f:
        source = f.read()
    home = os.path.dirname(os.path.abspath(policy))
    guard.install_guard(home)
    try:
        namespace: dict[str, object] = {"__name__": "policy", "RobotError": sim.RobotError}
        exec(compile(source, "policy.py", "exec"), namespace)  # noqa: S102 - this process is the sandbox
        entry = namespace.get("main")
        if not callable(entry):
            raise NameError("the policy defines no main(robot)")
        entry(Robot(kitchen))
    except BaseException as exc:  # noqa: BLE001 - reported in the log, never a verdict
        tb = traceback.extract_tb(exc.__traceback__)
        line = next((fr.lineno for fr in reversed(tb) if fr.filename == "policy.py"), None)
        if isinstance(exc, SyntaxError) and exc.filename == "policy.py":
            line = exc.lineno
        error = {"type": type(exc).__name__, "message": str(exc)[:400], "line": line}
    with open(log_path, "w", encoding="utf-8") as f:
        json.dump({"calls": kitchen.log, "error": error}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
