"""Scorers of the FPS suites: ``rpe`` (Lean-verified) and ``symbolic_answer`` (SymPy, no Lean).

Both judge the workflow's ``submission`` (a Lean term) against the row's reference ``formal_answer``,
which the workflow never saw; neither trusts anything the workflow reports about its own checks.

- ``rpe``: Restricted Propositional Equivalence in a Lean process of the scorer's own, started fresh:
  ``example <intros> (answer : T) : (answer = (submission : T)) ↔ (formal_answer) := by`` closed by
  ``rfl`` / ``norm_num`` / ``ring_nf`` / ``rw_search`` / ``aesop`` (no error, no goal left). Passed =
  Solved. It also re-checks the workflow's whole solution (forward derivation and backward proof,
  assembled into one declaration, banned tokens refused) in that fresh process: ``rpe/proven``.
  Unavailable (skipped by the eval, with one line) where no Lean toolchain is found.
- ``symbolic_answer``: the answer terms translated into SymPy and compared symbolically (numeric
  sampling where symbolic equality is undecided). Every result carries the label "symbolic, not
  Lean-verified"; its figures are reported under its own name, never mixed with ``rpe``'s.

Sub-metrics (averaged by the eval as ``<scorer>/<name>``): ``submitted`` (a non-empty answer),
``ne_submitted`` (submitted but not equivalent: the paper's NE-Submitted), and for ``symbolic_answer``
``undecided`` (the check could not decide; counted as not solved).
"""

from __future__ import annotations

import asyncio
from typing import Any

from paperworks.core.scoring import Sample, Score

SYMBOLIC_LABEL = "symbolic, not Lean-verified"
LEAN_LABEL = "Lean-verified (RPE)"


def problem_of(sample: Sample) -> dict[str, Any]:
    """The FPS problem of a suite row (its binders and answer type), as the workflow's input has it."""
    meta = sample.metadata
    return {"informal_problem": str(sample.input.get("informal_problem", "")) if isinstance(sample.input, dict)
            else "", "formal_answer_type": str(meta.get("formal_answer_type", "")),
            "intros": list(meta.get("intros") or []), "outros": list(meta.get("outros") or []),
            "header": meta.get("header")}


def _submission(output: Any, answer: str) -> str:
    if isinstance(output, dict) and isinstance(output.get("submission"), str):
        return output["submission"].strip()
    return (answer or "").strip()


async def score_symbolic(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """SymPy equivalence of the submission and the reference; see the module docstring."""
    from paperworks.tools.lean.symbolic import check_answer

    submission = _submission(output, answer)
    if not submission:
        return Score(0.0, False, "", f"no answer submitted ({SYMBOLIC_LABEL})", details={
            "label": SYMBOLIC_LABEL, "metrics": {"submitted": 0.0, "ne_submitted": 0.0, "undecided": 0.0}})
    meta = sample.metadata
    verdict = await asyncio.to_thread(check_answer, submission, str(sample.target),
                                      str(meta.get("formal_answer_type", "")), intros=list(meta.get("intros") or []))
    ok = verdict.equivalent is True
    return Score(1.0 if ok else 0.0, ok, submission, f"{verdict.reason} ({SYMBOLIC_LABEL})", details={
        "label": SYMBOLIC_LABEL, "method": verdict.method,
        "submission_expr": verdict.submission_expr, "reference_expr": verdict.reference_expr,
        "metrics": {"submitted": 1.0, "ne_submitted": 0.0 if ok else 1.0,
                    "undecided": 1.0 if verdict.equivalent is None else 0.0}})


async def score_rpe(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """RPE in a fresh Lean process, and the whole solution re-checked there; see the module docstring."""
    from paperworks.workflows.dfps import lean as dfps_lean

    submission = _submission(output, answer)
    out = output if isinstance(output, dict) else {}
    if not submission:
        return Score(0.0, False, "", f"no answer submitted ({LEAN_LABEL})", details={
            "label": LEAN_LABEL, "metrics": {"submitted": 0.0, "ne_submitted": 0.0, "proven": 0.0}})
    judged = await asyncio.to_thread(dfps_lean.judge, problem_of(sample), str(sample.target), submission,
                                     str(out.get("forward_proof") or ""), str(out.get("backward_proof") or ""))
    ok = bool(judged["equivalent"])
    return Score(1.0 if ok else 0.0, ok, submission, judged["explanation"], details={
        "label": LEAN_LABEL, "tactic": judged.get("tactic"), "errors": judged.get("errors", [])[:5],
        "proof_errors": judged.get("proof_errors", [])[:5],
        "metrics": {"submitted": 1.0, "ne_submitted": 0.0 if ok else 1.0, "proven": float(bool(judged["proven"]))}})


def _lean_unavailable() -> str | None:
    from paperworks.workflows.dfps import lean as dfps_lean

    return dfps_lean.unavailable_reason()


score_rpe.available = _lean_unavailable  # type: ignore[attr-defined]  # read by the eval's scorer registry
score_rpe.metrics = ("submitted", "ne_submitted", "proven")  # type: ignore[attr-defined]
score_symbolic.metrics = ("submitted", "ne_submitted", "undecided")  # type: ignore[attr-defined]

SCORERS: dict[str, Any] = {"rpe": score_rpe, "symbolic_answer": score_symbolic}
