"""Restricted Propositional Equivalence (RPE): is a submitted answer the formal answer, by Lean?

For each tactic of the ladder, in order, Lean checks the command
``example intros (answer : T) : (answer = (SUBMISSION : T)) ↔ (FORMAL_ANSWER) := by TACTIC``;
the first tactic that leaves no error and no goal (no ``sorry``) makes the verdict "equivalent". The
statement is first elaborated once with ``sorry``: a submission that does not even typecheck costs one
command, not one per tactic. Also here: ``check_backward`` and ``check_certificate`` for whole proofs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paperworks.core.errors import LimitExceeded
from paperworks.tools.lean.problem import FpsProblem
from paperworks.tools.lean.repl import CommandResult, LeanRepl
from paperworks.tools.lean.submission import Submission
from paperworks.tools.lean.text import DEFAULT_BANNED, bracket_problem, find_banned

RPE_TACTICS: tuple[str, ...] = ("rfl", "norm_num", "ring_nf", "rw_search", "aesop")
RPE_LABEL = "Lean-verified (RPE)"
NOT_VERIFIED = "not verified"


@dataclass(frozen=True)
class RpeAttempt:
    """One rung of the ladder: the tactic, whether it proved the equivalence, its errors, its time."""

    tactic: str
    proved: bool
    errors: tuple[str, ...] = ()
    timed_out: bool = False
    seconds: float = 0.0


@dataclass(frozen=True)
class RpeVerdict:
    """``equivalent`` and the ``tactic`` that showed it; ``label`` is "Lean-verified (RPE)" then, else
    "not verified"; ``errors`` are one line each (why each rung failed, or why none ran)."""

    equivalent: bool
    tactic: str | None
    errors: tuple[str, ...]
    attempts: tuple[RpeAttempt, ...] = ()
    label: str = NOT_VERIFIED
    statement: str = ""


def submission_problem(submission: Submission, banned: Sequence[str] = ()) -> str | None:
    """Why ``submission`` may not be put into a Lean command (banned or unsafe tokens, unbalanced brackets)."""
    for text in (submission.prop, submission.term or ""):
        bad = find_banned(text, banned)
        if bad:
            return f"the submission contains {', '.join(bad)}"
        why = bracket_problem(text)
        if why:
            return f"the submission has {why}"
    return None


def rpe_check(repl: LeanRepl, problem: FpsProblem, submission: Submission | str, *,
              tactics: Sequence[str] = RPE_TACTICS, timeout_s: float = 60.0, precheck: bool = True,
              banned: Sequence[str] = DEFAULT_BANNED) -> RpeVerdict:
    """Climb the tactic ladder until one proves ``(answer = SUBMISSION) ↔ FORMAL_ANSWER``; ``timeout_s`` is
    per tactic. A string submission is read with ``Submission.of``."""
    sub = Submission.of(submission) if isinstance(submission, str) else submission
    statement = problem.rpe_statement(sub, "sorry")
    why = submission_problem(sub, banned)
    if why:
        return RpeVerdict(False, None, (why,), statement=statement)
    if precheck:
        pre = repl.run_command(statement, timeout_s, preamble=problem.preamble, label=f"{problem.id}#rpe")
        if not pre.ok:
            return RpeVerdict(False, None, tuple(f"statement: {e}" for e in pre.errors[:3]), statement=statement)
    attempts: list[RpeAttempt] = []
    for tactic in tactics:
        try:
            result = repl.run_command(problem.rpe_statement(sub, tactic), timeout_s, preamble=problem.preamble,
                                      label=f"{problem.id}#rpe")
        except LimitExceeded as exc:
            attempts.append(RpeAttempt(tactic, False, (str(exc),), timed_out=True))
            break
        attempts.append(RpeAttempt(tactic, result.proved, result.errors[:3], result.timed_out, result.seconds))
        if result.proved:
            return RpeVerdict(True, tactic, (), tuple(attempts), RPE_LABEL, statement)
    errors = tuple(f"{a.tactic}: {a.errors[0] if a.errors else 'goals left'}" for a in attempts)
    return RpeVerdict(False, None, errors, tuple(attempts), NOT_VERIFIED, statement)


def _checked(repl: LeanRepl, problem: FpsProblem, declaration_text: str, texts: Sequence[str],
             banned: Sequence[str], timeout_s: float) -> CommandResult:
    for text in texts:
        bad = find_banned(text, banned)
        if bad:
            return CommandResult(errors=(f"banned in a solution: {', '.join(bad)}",))
    return repl.run_command(declaration_text, timeout_s, preamble=problem.preamble, label=problem.id)


def check_backward(repl: LeanRepl, problem: FpsProblem, submission: Submission, proof: str, *,
                   timeout_s: float = 120.0, banned: Sequence[str] = DEFAULT_BANNED) -> CommandResult:
    """Check a whole backward proof (``h_submission : SUB ⊢ conclusion``) as one command; ``.proved``."""
    why = submission_problem(submission, banned)
    if why:
        return CommandResult(errors=(why,))
    return _checked(repl, problem, problem.backward_statement(submission, proof), [proof], banned, timeout_s)


def check_certificate(repl: LeanRepl, problem: FpsProblem, forward: str, backward: str, *,
                      timeout_s: float = 300.0, banned: Sequence[str] = DEFAULT_BANNED) -> CommandResult:
    """Check a whole D-FPS solution (forward script ending in ``exact h_answer``, backward proof) as one
    declaration of the solving statement; ``.proved`` when Lean accepts it without ``sorry``."""
    return _checked(repl, problem, problem.solution_certificate(forward, backward), [forward, backward], banned,
                    timeout_s)
