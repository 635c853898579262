"""An FPS problem (``∀ intros, ∃ answer : T, ∀ outros, conclusion``) and the Lean text built from it.

The formulation follows the FPS authors' "answer as a proposition" solving server: the solving statement
``∀ intros, ∀ (answer : T), ∃ (h_submission : Prop), ∀ outros', (conclusion ↔ h_submission)`` is opened
with ``intro``s, ``apply Exists.intro`` and ``constructor``; the forward goal ``h.mp`` then has the intros,
``answer``, the outros and ``h_answer : conclusion`` as hypotheses and the unknown ``?w`` as its target.
A forward derivation adds ``have`` steps and ends with ``exact h_answer`` once ``h_answer : answer = TERM``,
which assigns the answer slot; the backward goal ``h.mpr`` (``h_submission : answer = TERM ⊢ conclusion``)
is the verification. RPE checks ``(answer = SUBMISSION) ↔ FORMAL_ANSWER`` with a ladder of tactics.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.tools.lean.submission import ANSWER, Submission
from paperworks.tools.lean.text import indent

DEFAULT_IMPORTS = "import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000"
DEFAULT_OPENS = "open BigOperators Real Nat Topology Rat"
H_SUBMISSION = "h_submission"
H_ANSWER = "h_answer"


@dataclass(frozen=True)
class Binder:
    """A binder before or after the answer: ``(name : type)``, ``[type]`` when unnamed, or a let
    ``name : type := value``."""

    name: str | None
    type: str
    value: str | None = None

    def signature(self) -> str:
        return f"({self.name} : {self.type})" if self.name else f"[{self.type}]"

    def display(self) -> str:
        value = f" := {self.value}" if self.value is not None else ""
        return f"{self.name or 'inst✝'} : {self.type}{value}"

    @property
    def intro_name(self) -> str:
        return self.name or "_"


def _telescope(binders: Sequence[Binder]) -> list[str]:
    parts: list[str] = []
    run: list[str] = []
    for b in binders:
        if b.value is None:
            run.append(b.signature())
            continue
        if run:
            parts.append(f"∀ {' '.join(run)},")
            run = []
        parts.append(f"let {b.name} : {b.type} := {b.value};")
    if run:
        parts.append(f"∀ {' '.join(run)},")
    return parts


def declaration(binders: Sequence[Binder], goal: str, proof: str) -> str:
    """``example <binders> : goal := by proof``; binders with a let-value go into the goal as a telescope
    (``example : ∀ …, let x := v; … := by intro …``) since ``example`` has no let-binders."""
    body = indent(proof, 2)
    goal = indent(goal, 4, first=False)
    if all(b.value is None for b in binders):
        sig = " ".join(b.signature() for b in binders)
        return f"example{' ' + sig if sig else ''} :\n    {goal} := by\n{body}"
    tele = "\n    ".join(indent(x, 4, first=False) for x in _telescope(binders))
    intro = "intro " + " ".join(b.intro_name for b in binders)
    return f"example :\n    {tele}\n    {goal} := by\n  {intro}\n{body}"


def context_lines(binders: Sequence[Binder]) -> list[str]:
    """Hypothesis lines as ``Meta.ppGoal`` writes them: same-typed named neighbours share a line (``x y : ℝ``)."""
    lines: list[tuple[list[str], Binder]] = []
    for b in binders:
        last = lines[-1][1] if lines else None
        if last is not None and b.name and last.name and b.value is None and last.value is None and last.type == b.type:
            lines[-1][0].append(b.name)
        else:
            lines.append(([b.name or "inst✝"], b))
    return [Binder(" ".join(names), b.type, b.value).display() for names, b in lines]


def _block(term: str) -> str:
    """A term on lines of its own inside parentheses, its lines' relative indentation kept."""
    return "(\n" + indent(term.strip("\n"), 2) + ")"


@dataclass(frozen=True)
class FpsProblem:
    """One benchmark row, validated. ``id`` names it in messages (``formal_math500.jsonl:12``)."""

    id: str
    informal_problem: str
    formal_answer: str
    formal_answer_type: str
    intros: tuple[Binder, ...]
    outros: tuple[Binder, ...]
    header: str | None = None
    informal_answer: str | None = None
    informal_solution: str | None = None
    metainfo: dict[str, Any] = field(default_factory=dict, compare=False)

    # --- reading ------------------------------------------------------------------------------------
    @classmethod
    def from_row(cls, row: dict[str, Any], *, id: str = "row") -> FpsProblem:
        """Validate a row; a malformed one raises a one-line ``UserError`` naming the row and the field."""
        from paperworks.tools.lean.rows import parse_row

        return parse_row(cls, Binder, row, id)

    @classmethod
    def load_jsonl(cls, path: str | Path) -> list[FpsProblem]:
        """All rows of an FPS ``.jsonl`` file, ids ``<file name>:<line>``."""
        path = Path(path)
        out = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}:{n}: not a JSON object ({exc.msg})") from None
            out.append(cls.from_row(row, id=f"{path.name}:{n}"))
        return out

    # --- pieces -------------------------------------------------------------------------------------
    @property
    def preamble(self) -> str:
        """The problem's ``open`` line(s): its header, or the default opens."""
        return (self.header or DEFAULT_OPENS).strip()

    @property
    def conclusion(self) -> Binder:
        """The last outro: the statement about ``answer`` (``h_answer``)."""
        return self.outros[-1]

    @property
    def conclusion_name(self) -> str:
        return self.conclusion.name or H_ANSWER

    @property
    def answer_binder(self) -> Binder:
        return Binder(ANSWER, self.formal_answer_type)

    def command(self, declaration_text: str) -> str:
        """A REPL command: the preamble, then the declaration (imports are the REPL's header)."""
        return f"{self.preamble}\n\n{declaration_text}"

    def lean_file(self, declaration_text: str, imports: str = DEFAULT_IMPORTS) -> str:
        """A stand-alone ``.lean`` file for ``lake env lean``: imports, preamble, declaration."""
        return f"{imports}\n\n{self.command(declaration_text)}\n"

    # --- forward (solving) --------------------------------------------------------------------------
    def solving_statement(self, proof: str = "sorry") -> str:
        """``example : ∀ intros, ∀ (answer : T), ∃ (h_submission : Prop), ∀ outros', (concl ↔ h_submission)``."""
        lines = _telescope(self.intros)
        lines.append(f"∀ ({ANSWER} : {self.formal_answer_type}), ∃ ({H_SUBMISSION} : Prop),")
        lines += _telescope(self.outros[:-1])
        lines.append(f"(({self.conclusion.type}) ↔ {H_SUBMISSION})")
        goal = "\n    ".join(indent(x, 4, first=False) for x in lines)
        return f"example :\n    {goal} := by\n{indent(proof, 2)}"

    def forward_setup(self) -> list[str]:
        """Tactics that turn the solving statement into the forward goal ``h.mp`` (target ``?w``)."""
        tactics = []
        if self.intros:
            tactics.append("intro " + " ".join(b.intro_name for b in self.intros))
        tactics += [f"intro {ANSWER}", "apply Exists.intro"]
        if len(self.outros) > 1:
            tactics.append("intro " + " ".join(b.intro_name for b in self.outros[:-1]))
        tactics += ["constructor", f"intro {self.conclusion_name}"]
        return tactics

    def forward_context(self) -> str:
        """The forward goal as Lean displays it (without ``case h.mp``), written without Lean: the hypotheses
        in order, same-typed neighbours on one line, then ``⊢ ?w``. This is the prompt's "Goal State"."""
        hyps = [*self.intros, self.answer_binder, *self.outros[:-1], Binder(self.conclusion_name, self.conclusion.type)]
        return "\n".join([*context_lines(hyps), "⊢ ?w"])

    def solution_certificate(self, forward: str, backward: str) -> str:
        """The whole D-FPS solution as one declaration: the solving statement proved by the setup, the
        forward script on ``h.mp`` (ending in ``exact h_answer``) and the backward proof on ``h.mpr``."""
        setup = [t for t in self.forward_setup() if t != f"intro {self.conclusion_name}"]
        proof = "\n".join([*setup, f"· intro {self.conclusion_name}", indent(forward, 2),
                           f"· intro {H_SUBMISSION}", indent(backward, 2)])
        return self.solving_statement(proof)

    # --- backward and RPE ---------------------------------------------------------------------------
    def backward_statement(self, submission: Submission, proof: str = "sorry") -> str:
        """Verification of a derived answer: ``example intros (answer : T) (h_submission : SUB) outros' :
        conclusion``. SUB comes before the outros, so it may only mention the intros and ``answer``."""
        binders = [*self.intros, self.answer_binder, Binder(H_SUBMISSION, submission.prop), *self.outros[:-1]]
        return declaration(binders, self.conclusion.type, proof)

    def rpe_statement(self, submission: Submission, tactic: str = "sorry") -> str:
        """``example intros (answer : T) : (answer = (TERM : T)) ↔ (FORMAL_ANSWER) := by tactic`` (the
        authors' term form); ``(SUB) ↔ (FORMAL_ANSWER)`` when the submission is no ``answer = TERM``."""
        if submission.term is not None:
            left = f"({ANSWER} = {_block(submission.term + ' : ' + self.formal_answer_type)})"
        else:
            left = _block(submission.prop)
        goal = f"{left} ↔ {_block(self.formal_answer)}"
        return declaration([*self.intros, self.answer_binder], goal, tactic)

    def rpe_self_check(self) -> str:
        """The RPE statement of the formal answer against itself (``… ↔ … := by rfl``): a data sanity check."""
        fa = _block(self.formal_answer)
        return declaration([*self.intros, self.answer_binder], f"{fa} ↔ {fa}", "exact Iff.rfl")


def load_problems(paths: Iterable[str | Path]) -> list[FpsProblem]:
    """The problems of several ``.jsonl`` files, in order."""
    return [p for path in paths for p in FpsProblem.load_jsonl(path)]
