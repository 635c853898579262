"""What the ``dfps``/``fps`` workflows and the ``rpe`` scorer ask of Lean, over ``paperworks.tools.lean``.

Two pools of Lean REPL processes, never shared: the *solver* pool checks the model's steps while the
workflow runs; the *judge* pool, used only by the ``rpe`` scorer, checks answers (RPE) and re-checks
whole solutions, so a verdict never depends on a process the solver's text ran in. Every command runs
from the REPL's base environment (the imports), so one problem's declarations cannot leak into another.
Each REPL is a subprocess in the user's Lean project (``paperworks lean info``); a crashed one is
restarted and replayed by the driver.

Without Lean, ``use_lean("auto")`` is False and the workflows submit unchecked; ``unavailable_reason()``
is the one line the eval prints when it skips ``rpe``. Tests install a stand-in (``ScriptedLean`` or a
fake REPL executable) with ``set_repl_factory``.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from paperworks.core.errors import LimitExceeded, UserError
from paperworks.tools.lean.text import DEFAULT_BANNED, find_banned

BANNED: tuple[str, ...] = DEFAULT_BANNED
"""Default banned tokens of a solution (the FPS authors' list and newer search tactics)."""

SOLVER_PLACEHOLDER = "answer = answer"
"""The solver's problems carry no reference answer; this stands in for it (never sent to Lean)."""

_factory: Callable[[], Any] | None = None
_pools: dict[str, list[Any]] = {"solver": [], "judge": []}
_lock = threading.Lock()


def set_repl_factory(factory: Callable[[], Any] | None) -> None:
    """Make every new REPL with ``factory()`` (tests); None: the real one (``open_repl``). Closes the pools."""
    global _factory
    close_pools()
    _factory = factory


def close_pools() -> None:
    """Close every pooled REPL (at exit, or when the factory changes)."""
    with _lock:
        repls = [r for pool in _pools.values() for r in pool]
        for pool in _pools.values():
            pool.clear()
    for repl in repls:
        try:
            repl.close()
        except Exception:  # a REPL that is already gone
            pass


def unavailable_reason() -> str | None:
    """None when Lean can be used here (or a stand-in is installed), else one line saying why not."""
    if _factory is not None:
        return None
    from paperworks.tools.lean.project import HOW_TO, find_lean

    setup = find_lean(run_lean=False)
    if setup.ready:
        return None
    why = "; ".join(setup.problems) or "no Lean toolchain found"
    return f"no Lean here ({why}); {HOW_TO} (see `paperworks lean info`)"


def use_lean(mode: str) -> bool:
    """Whether a run uses Lean: ``off`` never, ``on`` always (a one-line error without it), ``auto`` if found."""
    if mode == "off":
        return False
    reason = unavailable_reason()
    if mode == "on" and reason:
        raise UserError(f"setting lean=on: {reason}")
    return reason is None


@contextmanager
def repl(pool: str) -> Iterator[Any]:
    """A REPL from ``pool`` ("solver" or "judge") for the duration of the block, then back to the pool."""
    with _lock:
        item = _pools[pool].pop() if _pools[pool] else None
    if item is None:
        if _factory is not None:
            item = _factory()
        else:
            from paperworks.tools.lean.project import open_repl

            item = open_repl(memory_mb=_memory_mb())
    try:
        yield item
    finally:
        with _lock:
            _pools[pool].append(item)


def _memory_mb() -> int | None:
    """Memory cap of a Lean process (``PAPERWORKS_LEAN_MEMORY_MB``, default 12288; 0: none). Mathlib's
    import alone takes several GB, so the cap only stops a runaway proof from taking the machine."""
    raw = os.environ.get("PAPERWORKS_LEAN_MEMORY_MB", "12288").strip()
    try:
        value = int(raw)
    except ValueError:
        raise UserError(f"PAPERWORKS_LEAN_MEMORY_MB: expected a whole number of MB, got {raw!r}") from None
    return value if value > 0 else None


def banned_token(text: str, banned: Sequence[str]) -> str | None:
    """The first banned or unsafe token in ``text`` (comments ignored), or None."""
    found = find_banned(text or "", banned)
    return found[0] if found else None


def problem_for_solver(problem: dict[str, Any]) -> Any:
    """The workflow input as an ``FpsProblem`` (validated binders; no reference answer). Its id (``label``,
    one per run thread) keys the Lean time budget of the problem."""
    from paperworks.tools.lean.problem import FpsProblem

    row = {**problem, "formal_answer": SOLVER_PLACEHOLDER}
    return FpsProblem.from_row(row, id=str(problem.get("label") or problem.get("id") or "input"))


def context_without_lean(problem: dict[str, Any]) -> str:
    """The forward goal state written from the binders (what Lean would display)."""
    return str(problem_for_solver(problem).forward_context())


def forward_context(problem: dict[str, Any], cfg: Any) -> str:
    """The forward goal state as Lean displays it for this problem."""
    from paperworks.tools.lean.session import DfpsSession

    with repl("solver") as r:
        session = DfpsSession(r, problem_for_solver(problem), banned=cfg.banned, tactic_timeout_s=cfg.tactic_timeout_s)
        return str(session.forward_context)


def backward_display(problem: dict[str, Any], submission: str | None = None) -> str:
    """The backward goal written from the binders: the hypotheses, ``h_submission : answer = SUB`` (SUB
    left for the solver when None), the other outros, ``⊢`` the conclusion."""
    from paperworks.tools.lean.problem import H_SUBMISSION, Binder, context_lines

    p = problem_for_solver(problem)
    prop = f"answer = {submission}" if submission else "answer = <your answer>"
    hyps = [*p.intros, p.answer_binder, Binder(H_SUBMISSION, prop), *p.outros[:-1]]
    return "\n".join([*context_lines(hyps), f"⊢ {p.conclusion.type}"])


@dataclass
class ForwardCheck:
    """How a forward proof fared in Lean: ``ok`` when every step was accepted and it submitted an answer."""

    ok: bool
    accepted: int
    steps: int
    error: str | None
    submission: str | None


def check_forward(problem: dict[str, Any], proof: str, cfg: Any) -> ForwardCheck:
    """Run the forward proof step by step from the problem's goal; the first rejected step stops it and
    its error (with the step) is the feedback. Bounded by ``cfg.problem_timeout_s`` in all."""
    from paperworks.tools.lean.text import split_steps

    steps = split_steps(proof)
    if not steps:
        return ForwardCheck(False, 0, 0, "the proof is empty", None)
    deadline = time.monotonic() + cfg.problem_timeout_s
    try:
        return _check_forward(problem, steps, cfg, deadline)
    except LimitExceeded as exc:
        return ForwardCheck(False, 0, len(steps), f"Lean time limit of the problem reached ({exc})", None)


def _check_forward(problem: dict[str, Any], steps: list[str], cfg: Any, deadline: float) -> ForwardCheck:
    from paperworks.tools.lean.session import DfpsSession

    with repl("solver") as r:
        session = DfpsSession(r, problem_for_solver(problem), banned=cfg.banned, tactic_timeout_s=cfg.tactic_timeout_s)
        accepted = 0
        for step in steps:
            if time.monotonic() > deadline:
                return ForwardCheck(False, accepted, len(steps), f"problem time limit ({cfg.problem_timeout_s:g} s) "
                                    f"reached after {accepted} steps", None)
            if session.phase != "forward":
                return ForwardCheck(False, accepted, len(steps), f"step after the submission: {step[:200]}", None)
            result = session.step(step)
            if not result.ok:
                why = result.errors[0] if result.errors else "rejected"
                return ForwardCheck(False, accepted, len(steps), f"step {accepted + 1} failed: {step[:300]}\n"
                                    f"error: {why}", None)
            accepted += 1
        if session.submission is None:
            return ForwardCheck(False, accepted, len(steps), "every step was accepted but no answer was submitted: "
                                "prove `answer = <value>` as h_answer and end with `exact h_answer`", None)
        # the solver's own statement of it re-elaborates as written; Lean's display of the assigned goal
        # (casts shown as ↑, numerals with types) is the fallback
        sub = session.stated_submission() or session.submission
        return ForwardCheck(True, accepted, len(steps), None, sub.term if sub.term is not None else sub.prop)


def _submission(text: str) -> Any:
    from paperworks.tools.lean.submission import Submission

    return Submission.of(text)


def backward_goal(problem: dict[str, Any], submission: str, cfg: Any) -> str:
    """The backward goal for a derived answer (``h_submission : answer = SUB`` ⊢ the conclusion)."""
    from paperworks.tools.lean.goals import visible_goals
    from paperworks.tools.lean.repl import LeanError

    with repl("solver") as r:
        try:
            state = r.start_backward(problem_for_solver(problem), _submission(submission),
                                     timeout_s=cfg.tactic_timeout_s)
        except LeanError:  # the statement does not elaborate: the check will say why; show the text form
            return backward_display(problem, submission)
        goals = visible_goals(state.goals)
        return "\n\n".join(goals) if goals else backward_display(problem, submission)


def check_backward(problem: dict[str, Any], submission: str, proof: str, cfg: Any) -> tuple[bool, str | None]:
    """Check a whole backward proof of the derived answer; (proved, first error)."""
    from paperworks.tools.lean import rpe

    try:
        with repl("solver") as r:
            result = rpe.check_backward(r, problem_for_solver(problem), _submission(submission), proof,
                                        timeout_s=cfg.problem_timeout_s, banned=cfg.banned)
    except LimitExceeded as exc:
        return False, f"Lean time limit of the problem reached ({exc})"
    if result.proved:
        return True, None
    return False, (result.errors[0] if result.errors else "goals left (or the proof uses sorry)")


def solution_text(problem: dict[str, Any], forward: str, backward: str) -> str:
    """The whole solution as one Lean declaration (what a user can paste into their project)."""
    try:
        return str(problem_for_solver(problem).solution_certificate(forward or "sorry", backward or "sorry"))
    except UserError as exc:
        return f"-- could not render the solution: {exc}\n"


def judge(problem: dict[str, Any], formal_answer: str, submission: str, forward: str, backward: str,
          *, timeout_s: float = 120.0) -> dict[str, Any]:
    """The ``rpe`` scorer's verdict, from the judge pool: RPE of ``submission`` against ``formal_answer``,
    and ``proven`` = the whole solution (forward + backward) accepted as one declaration."""
    from paperworks.tools.lean import rpe
    from paperworks.tools.lean.problem import FpsProblem

    full = FpsProblem.from_row({**problem, "formal_answer": formal_answer}, id=f"judge-{uuid.uuid4().hex[:12]}")
    with repl("judge") as r:
        try:
            verdict = rpe.rpe_check(r, full, submission, timeout_s=timeout_s)
        except LimitExceeded as exc:
            verdict = rpe.RpeVerdict(False, None, (f"Lean time limit reached ({exc})",))
        proven, proof_errors = False, []
        if forward.strip() and backward.strip():
            try:
                cert = rpe.check_certificate(r, full, forward, backward, timeout_s=timeout_s * 2)
                proven, proof_errors = bool(cert.proved), list(cert.errors[:3])
            except LimitExceeded as exc:
                proof_errors = [f"Lean time limit reached ({exc})"]
    explanation = (f"equivalent by {verdict.tactic} ({verdict.label})" if verdict.equivalent else
                   f"not shown equivalent: {verdict.errors[0] if verdict.errors else 'no tactic closed it'}")
    return {"equivalent": verdict.equivalent, "tactic": verdict.tactic, "errors": list(verdict.errors),
            "proven": proven, "proof_errors": proof_errors, "explanation": explanation, "label": verdict.label}
