"""The Lean interface D-FPS needs: open a goal, run one tactic on a proof state, run a whole command.

``LeanRepl`` is abstract. ``SubprocessRepl`` (``subprocess_repl.py``) drives a real Lean through the
leanprover-community/repl JSON protocol; ``ScriptedLean`` (``scripted.py``) answers from a rule table
for tests and workflows without Lean. Proof-state ids are the implementation's own and stay valid
across restarts of a Lean process. Nothing here checks banned tactics: the callers that pass a model's
text (``DfpsSession``, ``rpe_check``, ``check_backward``) do, since RPE's own ladder uses ``rw_search``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Self

from paperworks.core.errors import PaperworksError

if TYPE_CHECKING:
    from paperworks.tools.lean.problem import FpsProblem
    from paperworks.tools.lean.submission import Submission


class LeanError(PaperworksError):
    """Lean could not be started or used for this request (not: a tactic failed); one line."""


@dataclass(frozen=True)
class LeanMessage:
    """A message Lean reported: ``severity`` is error, warning, info or trace; ``line``/``column`` 1-based
    line and 0-based column in the command (0 when unknown)."""

    severity: str
    text: str
    line: int = 0
    column: int = 0

    def one_line(self, limit: int = 300) -> str:
        text = " ".join(self.text.split())
        where = f"{self.line}:{self.column}: " if self.line else ""
        out = f"{where}{text}"
        return out if len(out) <= limit else out[: limit - 1] + "…"


@dataclass(frozen=True)
class ProofState:
    """A proof state: ``id`` for ``run_tactic``, the goal displays, and the ``label`` (problem) it belongs to."""

    id: int
    goals: tuple[str, ...]
    label: str = ""

    @property
    def solved(self) -> bool:
        return not self.goals


@dataclass(frozen=True)
class TacticResult:
    """What one tactic did. ``state`` is None when it failed (an error, a timeout, a crash), so that nobody
    goes on from a state whose proof has holes; ``errors`` are one line each."""

    state: ProofState | None
    goals: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    messages: tuple[LeanMessage, ...] = ()
    timed_out: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.state is not None and not self.errors

    @property
    def solved(self) -> bool:
        """The tactic succeeded and left no goal."""
        return self.ok and not self.goals


@dataclass(frozen=True)
class CommandResult:
    """What one command did: its messages (errors one line each in ``errors``), the goals at its
    ``sorry``s, and whether it ran out of time."""

    messages: tuple[LeanMessage, ...] = ()
    errors: tuple[str, ...] = ()
    sorries: tuple[str, ...] = ()
    timed_out: bool = False
    seconds: float = 0.0
    sorry_states: tuple[int, ...] = field(default=(), compare=False)

    @property
    def ok(self) -> bool:
        """No error and no timeout (warnings allowed)."""
        return not self.errors and not self.timed_out

    @property
    def proved(self) -> bool:
        """No error, no timeout, and no ``sorry`` left in what was declared."""
        return self.ok and not self.sorries and not any(
            m.severity == "warning" and "declaration uses 'sorry'" in m.text for m in self.messages)


class LeanRepl(ABC):
    """A Lean session. Use as a context manager, or call ``close()``."""

    #: seconds one tactic or command may take when the call gives none
    tactic_timeout_s: float = 60.0

    @abstractmethod
    def start_goal(self, command: str, *, preamble: str = "", label: str = "",
                   timeout_s: float | None = None) -> ProofState:
        """Run ``command`` (a declaration proved by ``sorry``) after the session's imports and ``preamble``
        (``open …`` lines, run as a command of their own so that their scoped notations are active in
        tactic mode) and return the proof state at its first ``sorry``. Raises ``LeanError`` on an error."""

    @abstractmethod
    def run_tactic(self, state: ProofState, tactic: str, timeout_s: float | None = None) -> TacticResult:
        """Run one tactic (it may span lines) on ``state``; ``state`` itself stays usable."""

    @abstractmethod
    def run_command(self, text: str, timeout_s: float | None = None, *, preamble: str = "",
                    label: str = "") -> CommandResult:
        """Run a whole command (declarations) after the imports and ``preamble``; report its messages.
        ``label`` (a problem id) charges the time to that problem's budget."""

    @abstractmethod
    def close(self) -> None:
        """End the session (idempotent)."""

    # --- D-FPS helpers ------------------------------------------------------------------------------
    def start(self, problem: FpsProblem, *, timeout_s: float | None = None) -> ProofState:
        """The forward goal of ``problem`` (case ``h.mp``: intros, ``answer``, outros, ``h_answer`` ⊢ ``?w``),
        reached from the solving statement by ``problem.forward_setup()``."""
        state = self.start_goal(problem.solving_statement(), preamble=problem.preamble, label=problem.id,
                                timeout_s=timeout_s)
        for tactic in problem.forward_setup():
            result = self.run_tactic(state, tactic, timeout_s)
            if not result.ok or result.state is None:
                why = result.errors[0] if result.errors else "no proof state"
                raise LeanError(f"{problem.id}: setting up the forward goal failed at `{tactic}`: {why}")
            state = result.state
        return state

    def start_backward(self, problem: FpsProblem, submission: Submission, *,
                       timeout_s: float | None = None) -> ProofState:
        """The backward goal for a derived answer on its own: ``h_submission : SUB`` ⊢ the conclusion."""
        return self.start_goal(problem.backward_statement(submission), preamble=problem.preamble,
                               label=problem.id, timeout_s=timeout_s)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
