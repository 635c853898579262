"""``SubprocessRepl``: Lean through the leanprover-community/repl JSON protocol, in a child process.

Why this driver, and not one of the Python packages:

* leanprover-community/repl is one small Lean program that lives in (or next to) the user's Mathlib
  project and speaks JSON over stdin/stdout (``{"cmd", "env"}`` → env, messages, sorries with proof
  states; ``{"tactic", "proofState"}`` → proof state, goals, messages). Driving it with a plain
  subprocess keeps every limit in our hands: a wall-clock deadline per request, killing the process
  group, restarting, and replaying; and a fake ``repl`` script can exercise all of it in tests.
* lean-interact wraps this same REPL, but on first use clones and builds it from GitHub (which fails
  offline and leaves a broken cache folder); what it adds is exactly the set-up that can't run here.
* Pantograph, which the FPS authors used (it can print the answer metavariable), is not on PyPI and
  needs its own server built against the user's toolchain.
* lean-dojo works on traced repositories (tracing Mathlib takes hours and downloads); it is made for
  theorems in a repo, not for ad-hoc statements after a header.

What it does: the header (imports, options) is the first command of each process; a problem's preamble
(its ``open …`` line) is a command of its own on the header's environment (cached per preamble), so
that its scoped notations are active when tactics are parsed in tactic mode (the REPL gives a proof
state the environment from before the command that made it); each ``start_goal`` / ``run_command``
runs on the preamble's environment. Every proof state is remembered as (parent, tactic) or
(command, sorry index), so after a timeout (the process is killed) or a crash the next call restarts
Lean, runs the header again and replays just the chain of commands and tactics that leads to the state
it needs: the run loses nothing but time. A crashed request is retried ``crash_retries`` times.
Per-problem budgets: the seconds spent on one label (problem id) add up; past ``problem_timeout_s``
calls raise ``LimitExceeded``. One request at a time (a lock); use one instance per worker.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperworks.core.errors import LimitExceeded
from paperworks.tools.lean.problem import DEFAULT_IMPORTS
from paperworks.tools.lean.process import (
    ReplCrash,
    ReplProcess,
    ReplTimeout,
    child_env,
    messages_of,
    network_prefix,
    one_line,
    reply_error,
)
from paperworks.tools.lean.repl import CommandResult, LeanError, LeanRepl, ProofState, TacticResult


@dataclass
class _Node:
    label: str
    parent: int | None          # None: a sorry of ``command``
    step: str                   # the tactic, or the command
    sorry_index: int
    goals: tuple[str, ...]
    preamble: str = ""
    repl_id: int | None = None
    gen: int = -1


class SubprocessRepl(LeanRepl):
    """The leanprover-community/repl, e.g. ``SubprocessRepl(["lake", "env", "/path/repl"], cwd=project)``."""

    def __init__(self, command: Sequence[str], *, cwd: str | Path | None = None, header: str = DEFAULT_IMPORTS,
                 tactic_timeout_s: float = 60.0, problem_timeout_s: float | None = 600.0,
                 startup_timeout_s: float = 600.0, crash_retries: int = 1, env: dict[str, str] | None = None,
                 isolate_network: bool | None = None, memory_mb: int | None = None) -> None:
        """``command`` starts the REPL in ``cwd``; ``header`` is run first in each process; ``isolate_network``
        None uses ``unshare -n`` where it works; ``memory_mb`` caps the address space (``prlimit``)."""
        if not command:
            raise LeanError("no command to start the Lean REPL with")
        prefix: list[str] = []
        if isolate_network is not False:
            net = list(network_prefix())
            if isolate_network and not net:
                raise LeanError("isolate_network=True but `unshare -n` does not work here")
            prefix += net
        if memory_mb:
            prlimit = shutil.which("prlimit")
            if prlimit is None:
                raise LeanError("memory_mb needs `prlimit` (util-linux), which is not on PATH")
            prefix += [prlimit, f"--as={int(memory_mb) * 1024 * 1024}", "--"]
        self.program = str(command[0])
        self.command = [*prefix, *map(str, command)]
        self.cwd = Path(cwd) if cwd else None
        self.header = header.strip()
        self.tactic_timeout_s = tactic_timeout_s
        self.problem_timeout_s = problem_timeout_s
        self.startup_timeout_s = startup_timeout_s
        self.crash_retries = crash_retries
        self.env = child_env(env)
        self.restarts = 0          # processes started after the first
        self._proc: ReplProcess | None = None
        self._gen = 0
        self._base_env: int | None = None
        self._preamble_envs: dict[str, int] = {}
        self._nodes: dict[int, _Node] = {}
        self._spent: dict[str, float] = {}
        self._lock = threading.RLock()
        self._closed = False

    # --- process ------------------------------------------------------------------------------------
    def _ensure(self) -> ReplProcess:
        if self._closed:
            raise LeanError("this Lean REPL session is closed")
        if self._proc is not None and self._proc.alive:
            return self._proc
        self._kill()
        if self._gen:
            self.restarts += 1
        proc = ReplProcess(self.command, program=self.program, cwd=self.cwd, env=self.env)
        self._proc, self._gen = proc, self._gen + 1
        if not self.header:
            return proc
        try:
            reply = proc.request({"cmd": self.header}, self.startup_timeout_s)
        except ReplTimeout:
            self._kill()
            raise LeanError(f"Lean did not load the header within {self.startup_timeout_s:g} s") from None
        except ReplCrash as exc:
            self._kill()
            raise LeanError(f"Lean failed while loading the header: {exc}") from None
        errors = [m.one_line() for m in messages_of(reply) if m.severity == "error"]
        err = reply_error(reply) or (errors[0] if errors else None)
        if err or "env" not in reply:
            self._kill()
            raise LeanError(f"the header `{' '.join(self.header.split())[:80]}` failed: {err or reply}; "
                            "is the REPL running in a Mathlib project (lake env)?")
        self._base_env = int(reply["env"])
        return proc

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
        self._proc, self._base_env = None, None
        self._preamble_envs.clear()

    def _cmd(self, text: str, preamble: str = "") -> dict[str, Any]:
        """The request for ``text`` on the environment after ``preamble`` (which is run first if needed)."""
        preamble = preamble.strip()
        if not preamble:
            return {"cmd": text} if self._base_env is None else {"cmd": text, "env": self._base_env}
        if preamble not in self._preamble_envs:
            try:
                reply = self._send(self._cmd(preamble), self.startup_timeout_s)
            except ReplTimeout:
                self._kill()
                raise LeanError(f"the preamble `{preamble[:80]}` ran past {self.startup_timeout_s:g} s") from None
            errors = [m.one_line() for m in messages_of(reply) if m.severity == "error"]
            err = reply_error(reply) or (errors[0] if errors else None)
            if err or "env" not in reply:
                raise LeanError(f"the preamble `{' '.join(preamble.split())[:80]}` failed: {err or reply}")
            self._preamble_envs[preamble] = int(reply["env"])
        return {"cmd": text, "env": self._preamble_envs[preamble]}

    def _send(self, payload: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        assert self._proc is not None
        return self._proc.request(payload, timeout_s)

    # --- replay -------------------------------------------------------------------------------------
    def _materialize(self, node_id: int) -> int:
        """The REPL's id of our state ``node_id`` in the current process, replaying what is missing."""
        self._ensure()
        chain: list[int] = []
        nid: int | None = node_id
        while nid is not None and self._nodes[nid].gen != self._gen:
            chain.append(nid)
            nid = self._nodes[nid].parent
        for nid in reversed(chain):
            node = self._nodes[nid]
            goals: tuple[str, ...]
            try:
                if node.parent is None:
                    reply = self._send(self._cmd(node.step, node.preamble), self.startup_timeout_s)
                    sorries = [s for s in reply.get("sorries") or [] if s.get("proofState") is not None]
                    got = sorries[node.sorry_index] if node.sorry_index < len(sorries) else None
                    repl_id, goals = (got["proofState"], (str(got.get("goal", "")),)) if got else (None, ())
                else:
                    parent = self._nodes[node.parent]
                    reply = self._send({"tactic": node.step, "proofState": parent.repl_id}, self.tactic_timeout_s)
                    repl_id, goals = reply.get("proofState"), tuple(map(str, reply.get("goals") or []))
            except ReplTimeout:
                self._kill()
                raise LeanError(f"replaying proof state {nid} after a restart ran past its time limit") from None
            if repl_id is None or goals != node.goals:
                raise LeanError(f"replaying proof state {nid} after a restart gave a different state "
                                f"({reply_error(reply) or 'other goals'})")
            node.repl_id, node.gen = int(repl_id), self._gen
        node = self._nodes[node_id]
        assert node.repl_id is not None
        return node.repl_id

    # --- budgets ------------------------------------------------------------------------------------
    def _limit(self, label: str, timeout_s: float | None) -> tuple[float, bool]:
        limit = float(timeout_s if timeout_s is not None else self.tactic_timeout_s)
        if not label or self.problem_timeout_s is None:
            return limit, False
        left = self.problem_timeout_s - self._spent.get(label, 0.0)
        if left <= 0:
            raise LimitExceeded("time", f"{label}: its Lean time ({self.problem_timeout_s:g} s) is used up")
        return (left, True) if left < limit else (limit, False)

    def time_spent(self, label: str) -> float:
        """Seconds of Lean time charged to ``label`` so far."""
        return self._spent.get(label, 0.0)

    def _charge(self, label: str, seconds: float) -> None:
        if label:
            self._spent[label] = self._spent.get(label, 0.0) + seconds

    def _call(self, label: str, timeout_s: float | None, payload_for: Any) -> tuple[dict[str, Any] | str, float]:
        """Run one request with restarts: the reply, or an error line; and the seconds it took."""
        limit, by_budget = self._limit(label, timeout_s)
        crashes = 0
        while True:
            t0 = time.monotonic()
            try:
                payload = payload_for()  # may restart Lean and replay the state's history
                t0 = time.monotonic()
                reply = self._send(payload, limit)
            except ReplTimeout:
                spent = time.monotonic() - t0
                self._kill()
                self._charge(label, spent)
                if by_budget:
                    raise LimitExceeded("time", f"{label}: its Lean time ({self.problem_timeout_s:g} s) "
                                        "ran out during a request") from None
                return f"timeout: Lean ran past {limit:g} s (the REPL was restarted)", spent
            except ReplCrash as exc:
                self._charge(label, time.monotonic() - t0)
                self._kill()
                crashes += 1
                if crashes > self.crash_retries:
                    return f"Lean REPL crashed on this request: {exc}", time.monotonic() - t0
                continue
            spent = time.monotonic() - t0
            self._charge(label, spent)
            return reply, spent

    # --- the interface ------------------------------------------------------------------------------
    def run_command(self, text: str, timeout_s: float | None = None, *, preamble: str = "",
                    label: str = "") -> CommandResult:
        with self._lock:
            def payload() -> dict[str, Any]:
                self._ensure()
                return self._cmd(text, preamble)

            reply, spent = self._call(label, timeout_s, payload)
            if isinstance(reply, str):
                return CommandResult(errors=(reply,), timed_out=reply.startswith("timeout"), seconds=spent)
            messages = messages_of(reply)
            errors = [m.one_line() for m in messages if m.severity == "error"]
            if (err := reply_error(reply)) is not None:
                errors.insert(0, err)
            sorries = [s for s in reply.get("sorries") or []]
            ids = []
            for i, s in enumerate(x for x in sorries if x.get("proofState") is not None):
                nid = len(self._nodes)
                self._nodes[nid] = _Node(label, None, text, i, (str(s.get("goal", "")),), preamble,
                                         int(s["proofState"]), self._gen)
                ids.append(nid)
            return CommandResult(messages=messages, errors=tuple(errors),
                                 sorries=tuple(str(s.get("goal", "")) for s in sorries), seconds=spent,
                                 sorry_states=tuple(ids))

    def start_goal(self, command: str, *, preamble: str = "", label: str = "",
                   timeout_s: float | None = None) -> ProofState:
        with self._lock:
            result = self.run_command(command, timeout_s, preamble=preamble, label=label)
            where = f"{label}: " if label else ""
            if result.errors:
                raise LeanError(f"{where}the statement does not elaborate: {result.errors[0]}")
            if not result.sorry_states:
                raise LeanError(f"{where}the statement has no `sorry` to start a proof from")
            nid = result.sorry_states[0]
            return ProofState(nid, self._nodes[nid].goals, label)

    def run_tactic(self, state: ProofState, tactic: str, timeout_s: float | None = None) -> TacticResult:
        with self._lock:
            if state.id not in self._nodes:
                raise LeanError(f"unknown proof state {state.id}")
            label = self._nodes[state.id].label

            def payload() -> dict[str, Any]:
                return {"tactic": tactic, "proofState": self._materialize(state.id)}

            reply, spent = self._call(label, timeout_s, payload)
            if isinstance(reply, str):
                return TacticResult(None, errors=(reply,), timed_out=reply.startswith("timeout"), seconds=spent)
            messages = messages_of(reply)
            goals = tuple(map(str, reply.get("goals") or []))
            errors = [m.one_line() for m in messages if m.severity == "error"]
            if (err := reply_error(reply)) is not None:
                errors.insert(0, err)
            if reply.get("sorries"):
                errors.append("the tactic leaves a `sorry`")
            status = str(reply.get("proofStatus") or "")
            if status.startswith("Error"):
                errors.append(one_line(status))
            if errors or reply.get("proofState") is None:
                return TacticResult(None, goals, tuple(errors) or ("no proof state in the reply",), messages,
                                    seconds=spent)
            nid = len(self._nodes)
            self._nodes[nid] = _Node(label, state.id, tactic, 0, goals, "", int(reply["proofState"]), self._gen)
            return TacticResult(ProofState(nid, goals, label), goals, (), messages, seconds=spent)

    def close(self) -> None:
        with self._lock:
            if self._proc is not None:
                self._proc.close()
            self._proc, self._closed = None, True
