"""Audit regressions for the workflow scorers: ``symbolic_answer`` judges only the submission against the
reference (close decimals of irrationals, junk values, self-reported checks), and HistAgent's evidence
scorer neither gives full marks for a row whose evidence it cannot read nor misses Windows paths."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from paperworks.core.errors import UserError
from paperworks.core.scoring import Sample
from paperworks.workflows.dfps.score import score_symbolic
from paperworks.workflows.histagent.score import evidence


def _fps(target: str, ty: str = "ℝ") -> Sample:
    return Sample(id="r1", input={"informal_problem": "p"}, target=target,
                  metadata={"formal_answer_type": ty, "intros": [], "outros": []}, source="suite.jsonl:1")


def _symbolic(target: str, output: Any, ty: str = "ℝ") -> Any:
    return asyncio.run(score_symbolic(_fps(target, ty), output, "", None))


@pytest.mark.parametrize("submission,target", [
    ("3.141592653589793", "answer = Real.pi"),           # the double nearest π
    ("0", "answer = Real.exp (-1000)"),
    ("fun x => x + 1", "answer = fun x => (x ^ 2 - 1) / (x - 1)"),
])
def test_symbolic_scorer_refuses_near_misses_whatever_the_workflow_reports(submission: str, target: str) -> None:
    ty = "ℝ → ℝ" if submission.startswith("fun") else "ℝ"
    score = _symbolic(target, {"submission": submission, "forward_ok": True, "backward_ok": True,
                               "status": "verified"}, ty)
    assert score.passed is False and score.value == 0.0
    assert score.details["metrics"] == {"submitted": 1.0, "ne_submitted": 1.0, "undecided": 0.0}


@pytest.mark.parametrize("submission,target", [
    ("0", "answer = Real.sqrt (-4)"), ("1", "answer = (-8 : ℝ) ^ ((1 : ℝ) / 3)")])
def test_symbolic_scorer_accepts_mathlib_junk_values(submission: str, target: str) -> None:
    score = _symbolic(target, {"submission": submission})
    assert score.passed is True and score.value == 1.0


def _hist(evidence_field: Any) -> Sample:
    return Sample(id="h1", input={"question": "q"}, target="a", metadata={"evidence": evidence_field},
                  source="hist.jsonl:3")


def _evidence(sample: Sample, output: Any) -> Any:
    return asyncio.run(evidence(sample, output, "", None))


@pytest.mark.parametrize("field", [["letter.pdf"], "letter.pdf", {"document": "letter.pdf"}])
def test_evidence_named_by_plain_strings_is_read(field: Any) -> None:
    # before: strings were skipped, the row counted as naming no evidence, and an output citing nothing got 1.0
    assert _evidence(_hist(field), {"evidence": []}).value == 0.0
    score = _evidence(_hist(field), {"evidence": [{"document": "/run/files/letter.pdf", "page": 1}]})
    assert score.passed is True and score.value == 1.0


def test_evidence_recall_counts_each_document_and_reads_windows_paths() -> None:
    sample = _hist([{"document": "archive\\a.pdf"}, {"document": "b.png"}, "sub/c.txt"])
    score = _evidence(sample, {"evidence": [{"document": "C:\\data\\a.pdf"}, "c.txt", {"document": 5}, None]})
    assert score.value == pytest.approx(2 / 3) and score.passed is False
    assert score.explanation == "not cited: b.png"


@pytest.mark.parametrize("field", [[{"page": 1}], [3], 7, [{"document": ""}]])
def test_malformed_row_evidence_is_a_one_line_error(field: Any) -> None:
    with pytest.raises(UserError) as err:
        _evidence(_hist(field), {"evidence": []})
    assert "h1" in str(err.value) and "hist.jsonl:3" in str(err.value) and "\n" not in str(err.value)


def test_row_without_evidence_scores_one() -> None:
    for field in (None, [], ""):
        assert _evidence(_hist(field), {"evidence": []}).value == 1.0
