"""``DfpsSession``: one D-FPS attempt on one problem, step by step, on any ``LeanRepl``.

Forward: ``step`` runs the solver's ``have`` steps on the forward goal (``h.mp``, target ``?w``), each one
checked by Lean before the session moves on (a failed step leaves the state as it was). Submitting
(``submit``, or a step ``exact h_answer -- submit``) closes ``h.mp`` with the hypothesis, which assigns
the answer slot; the session then introduces ``h_submission`` on ``h.mpr`` and reads the submission from
Lean's own display of it. Backward: ``step`` proves the conclusion from ``h_submission``; ``solved``
once no goal is left. ``certificate()`` is the whole solution as one declaration, for a final check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from paperworks.tools.lean.goals import visible_goals
from paperworks.tools.lean.problem import H_SUBMISSION, FpsProblem
from paperworks.tools.lean.repl import LeanRepl, ProofState, TacticResult
from paperworks.tools.lean.submission import Submission, extract_submission, submission_from_goal
from paperworks.tools.lean.text import DEFAULT_BANNED, find_banned, strip_comments

_SUBMIT = re.compile(r"^exact\s+([^\s()]+)$")


@dataclass(frozen=True)
class StepRecord:
    """A step the session ran: the phase (forward/backward), the text, and whether Lean accepted it."""

    phase: str
    tactic: str
    ok: bool
    errors: tuple[str, ...] = ()


class DfpsSession:
    """A forward-then-backward D-FPS proof of ``problem`` on ``repl``; banned tactics are refused
    before they reach Lean (``banned`` replaces the default list; unsafe tokens are always refused)."""

    def __init__(self, repl: LeanRepl, problem: FpsProblem, *, banned: Sequence[str] = DEFAULT_BANNED,
                 tactic_timeout_s: float | None = None) -> None:
        self.repl, self.problem = repl, problem
        self.banned = tuple(banned)
        self.tactic_timeout_s = tactic_timeout_s
        self.state: ProofState = repl.start(problem)
        self.phase = "forward"
        self.submission: Submission | None = None
        self.history: list[StepRecord] = []

    # --- views --------------------------------------------------------------------------------------
    @property
    def goals(self) -> tuple[str, ...]:
        """The open goals (the assigned answer slot ``case w`` left out)."""
        return visible_goals(self.state.goals)

    @property
    def forward_context(self) -> str:
        """The forward goal as Lean shows it, without its ``case`` line: the prompt's goal state."""
        goal = self.goals[0] if self.goals else ""
        return goal.split("\n", 1)[1] if goal.startswith("case ") and "\n" in goal else goal

    @property
    def solved(self) -> bool:
        return self.phase == "backward" and not self.goals

    def accepted(self, phase: str) -> list[str]:
        """The accepted steps of a phase, in order."""
        return [r.tactic for r in self.history if r.ok and r.phase == phase]

    # --- steps --------------------------------------------------------------------------------------
    def step(self, tactic: str) -> TacticResult:
        """Run one step of the current phase; ``exact NAME`` in the forward phase submits NAME (so does any
        step that closes the forward goal, e.g. ``assumption``)."""
        code = " ".join(strip_comments(tactic).split())
        if self.phase == "forward" and (m := _SUBMIT.match(code)):
            return self.submit(m.group(1), text=tactic)
        before = self.state
        result = self._run(tactic)
        if self.phase == "forward" and result.ok and self._forward_closed():
            return self._enter_backward(before)
        return result

    def _forward_closed(self) -> bool:
        goals = self.goals
        return bool(goals) and goals[0].startswith("case h.mpr\n") and not any(
            g.startswith("case h.mp\n") for g in goals)

    def _run(self, tactic: str, *, record: bool = True) -> TacticResult:
        bad = find_banned(tactic, self.banned)
        if bad:
            result = TacticResult(None, self.state.goals, (f"banned in a solution: {', '.join(bad)}",))
        else:
            result = self.repl.run_tactic(self.state, tactic, self.tactic_timeout_s)
        if record:
            self.history.append(StepRecord(self.phase, tactic, result.ok, result.errors))
        if result.ok and result.state is not None:
            self.state = result.state
        return result

    def submit(self, name: str = "h_answer", *, text: str | None = None) -> TacticResult:
        """Close the forward goal with hypothesis ``name``; on success the session is in the backward
        phase and ``submission`` holds what Lean assigned to the answer slot."""
        if self.phase != "forward":
            return TacticResult(None, self.state.goals, ("already submitted",))
        before = self.state
        result = self._run(text or f"exact {name}")
        if not result.ok:
            return result
        return self._enter_backward(before)

    def _enter_backward(self, before: ProofState) -> TacticResult:
        """After the forward goal was closed: introduce ``h_submission`` and read it; undo on failure."""
        self.phase = "backward"
        intro = self._run(f"intro {H_SUBMISSION}", record=False)
        if not intro.ok or not self.goals:
            why = intro.errors[0] if intro.errors else "no backward goal left"
            message = f"submitting did not leave the backward goal: {why}"
            self.phase, self.state = "forward", before
            self.history[-1] = replace(self.history[-1], ok=False, errors=(message,))
            return TacticResult(None, before.goals, (message,))
        self.submission = submission_from_goal(self.goals[0], H_SUBMISSION) or self.stated_submission()
        return intro

    def stated_submission(self) -> Submission | None:
        """The submission as the solver's text states it (its last ``have h_answer : …``)."""
        return extract_submission("\n".join(self.accepted("forward")))

    def run_script(self, script: str) -> list[TacticResult]:
        """Run a multi-step script step by step, stopping at the first failure."""
        from paperworks.tools.lean.text import split_steps

        results = []
        for step in split_steps(script):
            results.append(self.step(step))
            if not results[-1].ok:
                break
        return results

    def certificate(self) -> str:
        """The accepted solution as one declaration (``FpsProblem.solution_certificate``)."""
        forward = [t for t in self.accepted("forward")]
        return self.problem.solution_certificate("\n".join(forward), "\n".join(self.accepted("backward")) or "sorry")
