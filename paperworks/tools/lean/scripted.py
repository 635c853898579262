"""``ScriptedLean``: a deterministic, in-process ``LeanRepl`` for tests and for workflows without Lean.

Rules are tried in order; the first whose ``match`` (exact text, or a regex searched in the text) fits
decides. A rule with ``goals`` sets the goals; with ``errors`` fails; ``solved`` closes everything;
``timeout`` reports a timeout; ``seconds`` is simulated Lean time charged to the problem. A tactic that
no rule decides, with ``unmatched="accept"``, gets the built-in behaviour, enough for a D-FPS run:
``have h : T := …`` adds ``h : T`` to the first goal; ``exact h`` on a ``⊢ ?w`` goal closes it and puts
``h``'s type in place of ``?w`` in the other goals; ``intro a b`` moves premises of ``A → B`` into the
context; any other tactic closes the first goal. ``start(problem)`` gives the forward and backward goals
as Lean would display them (from ``problem.forward_context()``), without running the setup tactics.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from paperworks.core.errors import LimitExceeded
from paperworks.tools.lean.goals import Goal
from paperworks.tools.lean.problem import H_SUBMISSION, Binder, context_lines
from paperworks.tools.lean.repl import CommandResult, LeanError, LeanMessage, LeanRepl, ProofState, TacticResult
from paperworks.tools.lean.text import strip_comments

if TYPE_CHECKING:
    from paperworks.tools.lean.problem import FpsProblem
    from paperworks.tools.lean.submission import Submission

_HAVE = re.compile(r"^have\s+(\S+)\s*:(.*?):=", re.DOTALL)
_EXACT = re.compile(r"^exact\s+(\S+)$")
_INTRO = re.compile(r"^intros?((?:\s+\S+)*)$")


@dataclass(frozen=True)
class Rule:
    """What a matching tactic or command does (see the module docstring)."""

    match: str | re.Pattern[str]
    goals: tuple[str, ...] | None = None
    errors: tuple[str, ...] = ()
    solved: bool = False
    timeout: bool = False
    seconds: float = 0.0
    messages: tuple[str, ...] = ()

    def matches(self, text: str) -> bool:
        if isinstance(self.match, str):
            return self.match.strip() == text.strip()
        return self.match.search(text) is not None


def _split_arrow(target: str) -> tuple[str, str] | None:
    depth = 0
    for i, ch in enumerate(target):
        if ch in "([{⟨":
            depth += 1
        elif ch in ")]}⟩":
            depth -= 1
        elif ch == "→" and depth == 0:
            return target[:i].strip(), target[i + 1:].strip()
    return None


class ScriptedLean(LeanRepl):
    """Rule-driven Lean stand-in. ``calls`` records ``(kind, text)`` for every request, in order."""

    def __init__(self, tactics: Sequence[Rule] = (), commands: Sequence[Rule] = (), *,
                 unmatched: Literal["accept", "error"] = "accept", tactic_timeout_s: float = 60.0,
                 problem_timeout_s: float | None = None) -> None:
        self.tactics, self.commands = list(tactics), list(commands)
        self.unmatched = unmatched
        self.tactic_timeout_s = tactic_timeout_s
        self.problem_timeout_s = problem_timeout_s
        self.calls: list[tuple[str, str]] = []
        self._states: dict[int, ProofState] = {}
        self._spent: dict[str, float] = {}
        self._closed = False

    def _new(self, goals: Sequence[str], label: str) -> ProofState:
        state = ProofState(len(self._states), tuple(goals), label)
        self._states[state.id] = state
        return state

    def _charge(self, label: str, seconds: float) -> None:
        if self._closed:
            raise LeanError("this Lean session is closed")
        if not label or self.problem_timeout_s is None:
            return
        if self._spent.get(label, 0.0) >= self.problem_timeout_s:
            raise LimitExceeded("time", f"{label}: its Lean time ({self.problem_timeout_s:g} s) is used up")
        self._spent[label] = self._spent.get(label, 0.0) + seconds
        if self._spent[label] > self.problem_timeout_s:
            raise LimitExceeded("time", f"{label}: its Lean time ({self.problem_timeout_s:g} s) ran out "
                                "during a request")

    def time_spent(self, label: str) -> float:
        return self._spent.get(label, 0.0)

    @staticmethod
    def _first(rules: Sequence[Rule], text: str) -> Rule | None:
        return next((r for r in rules if r.matches(text)), None)

    # --- starting -----------------------------------------------------------------------------------
    def start_goal(self, command: str, *, preamble: str = "", label: str = "",
                   timeout_s: float | None = None) -> ProofState:
        self.calls.append(("start", command))
        rule = self._first(self.commands, command)
        self._charge(label, rule.seconds if rule else 0.0)
        if rule is None or rule.goals is None or rule.errors:
            why = rule.errors[0] if rule and rule.errors else "no scripted rule gives goals for this command"
            raise LeanError(f"{label + ': ' if label else ''}the statement does not elaborate: {why}")
        return self._new(rule.goals, label)

    def start(self, problem: FpsProblem, *, timeout_s: float | None = None) -> ProofState:
        self.calls.append(("start", problem.id))
        self._charge(problem.id, 0.0)
        before = context_lines([*problem.intros, problem.answer_binder, *problem.outros[:-1]])
        backward = "\n".join(["case h.mpr", *before, f"⊢ ?w → {problem.conclusion.type}"])
        return self._new(("case h.mp\n" + problem.forward_context(), backward), problem.id)

    def start_backward(self, problem: FpsProblem, submission: Submission, *,
                       timeout_s: float | None = None) -> ProofState:
        self.calls.append(("start", f"backward {problem.id}: {submission.prop}"))
        self._charge(problem.id, 0.0)
        hyps = [*problem.intros, problem.answer_binder, Binder(H_SUBMISSION, submission.prop), *problem.outros[:-1]]
        return self._new(("\n".join([*context_lines(hyps), f"⊢ {problem.conclusion.type}"]),), problem.id)

    # --- tactics ------------------------------------------------------------------------------------
    def run_tactic(self, state: ProofState, tactic: str, timeout_s: float | None = None) -> TacticResult:
        if state.id not in self._states:
            raise LeanError(f"unknown proof state {state.id}")
        self.calls.append(("tactic", tactic))
        rule = self._first(self.tactics, tactic)
        self._charge(state.label, rule.seconds if rule else 0.0)
        messages = tuple(LeanMessage("info", m) for m in (rule.messages if rule else ()))
        if rule is not None and rule.timeout:
            limit = timeout_s if timeout_s is not None else self.tactic_timeout_s
            return TacticResult(None, errors=(f"timeout: Lean ran past {limit:g} s",), timed_out=True,
                                seconds=rule.seconds)
        if rule is not None and rule.errors:
            return TacticResult(None, state.goals, rule.errors, messages)
        if rule is not None and (rule.solved or rule.goals is not None):
            goals = () if rule.solved else rule.goals or ()
            return TacticResult(self._new(goals, state.label), goals, (), messages)
        if rule is None and self.unmatched == "error":
            return TacticResult(None, state.goals, (f"no scripted rule for the tactic `{tactic.strip()[:80]}`",))
        after = self._builtin(state.goals, tactic)
        if isinstance(after, str):
            return TacticResult(None, state.goals, (after,), messages)
        return TacticResult(self._new(after, state.label), after, (), messages)

    def _builtin(self, goals: tuple[str, ...], tactic: str) -> tuple[str, ...] | str:
        if not goals:
            return "no goals to be proved"
        text = " ".join(strip_comments(tactic).split())
        main, rest = Goal.parse(goals[0]), goals[1:]
        if m := _HAVE.match(text):
            return (main.with_hyp(m.group(1), m.group(2).strip()).render(), *rest)
        if (m := _EXACT.match(text)) and main.target.strip() == "?w":
            prop = main.hyp(m.group(1))
            if prop is None:
                return f"unknown identifier '{m.group(1)}'"
            return tuple(g.replace("?w", prop) for g in rest)
        if (m := _INTRO.match(text)) and m.group(1).split():
            for name in m.group(1).split():
                split = _split_arrow(main.target)
                if split is None:
                    return f"no additional binders to introduce with `intro {name}`"
                main = replace(main.with_hyp(name, split[0]), target=split[1])
            return (main.render(), *rest)
        return rest

    # --- commands -----------------------------------------------------------------------------------
    def run_command(self, text: str, timeout_s: float | None = None, *, preamble: str = "",
                    label: str = "") -> CommandResult:
        self.calls.append(("command", text))
        rule = self._first(self.commands, text)
        self._charge(label, rule.seconds if rule else 0.0)
        if rule is None:
            if self.unmatched == "error":
                return CommandResult(errors=("no scripted rule for this command",))
            return CommandResult()
        messages = tuple(LeanMessage("info", m) for m in rule.messages)
        if rule.timeout:
            limit = timeout_s if timeout_s is not None else self.tactic_timeout_s
            return CommandResult(messages, errors=(f"timeout: Lean ran past {limit:g} s",), timed_out=True)
        messages += tuple(LeanMessage("error", e) for e in rule.errors)
        sorries = () if rule.solved else tuple(rule.goals or ())
        return CommandResult(messages, errors=rule.errors, sorries=sorries, seconds=rule.seconds)

    def close(self) -> None:
        self._closed = True
