"""The Lean layer against a real Lean + Mathlib + REPL (``PAPERWORKS_LEAN_PROJECT``); skipped where
``lean_available()`` finds none (as on the machines this project is built on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from paperworks.tools.lean import (
    DfpsSession,
    FpsProblem,
    LeanRepl,
    Submission,
    check_certificate,
    lean_available,
    open_repl,
    rpe_check,
)
from tests.fixtures.lean.helpers import DATA, ffx

SETUP = lean_available()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(SETUP is None, reason="no Lean REPL here (paperworks lean info)")]


@pytest.fixture(scope="module")
def repl() -> Iterator[LeanRepl]:
    with open_repl(SETUP, tactic_timeout_s=120, problem_timeout_s=900) as lean:
        yield lean


def test_rpe_on_a_benchmark_row(repl: LeanRepl) -> None:
    problem = FpsProblem.load_jsonl(DATA / "formal_math500.jsonl")[0]
    right = rpe_check(repl, problem, "9")
    assert right.equivalent, right.errors
    assert not rpe_check(repl, problem, Submission.of("8"), tactics=("rfl", "norm_num")).equivalent


def test_a_dfps_session_forward_and_backward(repl: LeanRepl) -> None:
    session = DfpsSession(repl, ffx())
    assert session.forward_context == ffx().forward_context()
    assert session.step("have h1 : f 1 = -2 := by rw [h_f_def]; norm_num").ok
    assert session.step("have h_answer : answer = 7 := by rw [← h_answer, h1, h_f_def]; norm_num").ok
    assert session.step("exact h_answer -- submit").ok
    assert session.submission is not None and session.submission.term == "7"
    assert session.step("rw [h_submission, h_f_def, h_f_def]; norm_num").ok and session.solved
    assert check_certificate(repl, ffx(), "\n".join(session.accepted("forward")),
                             "\n".join(session.accepted("backward"))).proved
    assert rpe_check(repl, ffx(), session.submission).equivalent
