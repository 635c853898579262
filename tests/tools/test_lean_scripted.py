"""``ScriptedLean`` and ``DfpsSession``: a whole D-FPS run without Lean, rule order, failures, budgets."""

from __future__ import annotations

import json
import re

import pytest

from paperworks.core.errors import LimitExceeded
from paperworks.tools.lean import DfpsSession, LeanError, Rule, ScriptedLean, Submission
from tests.fixtures.lean.helpers import DATA, H_MP, ffx


def demo_solution() -> str:
    if not DATA.is_dir():
        pytest.skip("FPS data not in shared/data/fps")
    return json.loads((DATA / "prompt_hybrid_cot_final.jsonl").read_text().splitlines()[0])["formal_solution"]


def test_start_gives_the_forward_and_backward_goals() -> None:
    lean = ScriptedLean()
    state = lean.start(ffx())
    assert state.goals[0] == H_MP
    assert state.goals[1].endswith("⊢ ?w → f (f 1) = answer") and state.goals[1].startswith("case h.mpr\n")
    back = lean.start_backward(ffx(), Submission.of("7"))
    assert back.goals[0].splitlines()[1:] == ["h_submission : answer = (7)", "f : ℝ → ℝ",
                                              "h_f_def : ∀ (x : ℝ), f x = 3 * x ^ 2 - 5", "⊢ f (f 1) = answer"]


def test_a_whole_dfps_run_on_the_demonstration() -> None:
    lean = ScriptedLean(tactics=[Rule(re.compile(r"^norm_num \[h_submission"), solved=True)])
    session = DfpsSession(lean, ffx())
    assert session.forward_context == ffx().forward_context()
    results = session.run_script(demo_solution())
    assert all(r.ok for r in results) and len(results) == 8
    assert session.phase == "backward" and session.submission == Submission("answer = 7", "7")
    assert session.stated_submission() == Submission("answer = 7", "7")
    goal = session.goals[0]
    assert "h_submission : answer = 7" in goal and goal.endswith("⊢ f (f 1) = answer")
    assert "h_answer : answer = 7" not in goal  # the forward haves live on h.mp only
    done = session.step("norm_num [h_submission, h_f_def]")
    assert done.solved and session.solved
    cert = session.certificate()
    assert "  · intro h_answer\n    -- Calculate $f(1)$\n    have h_f_1" in cert
    assert "    exact h_answer -- submit\n  · intro h_submission\n    norm_num [h_submission, h_f_def]" in cert


def test_a_failed_step_leaves_the_state_and_is_recorded() -> None:
    lean = ScriptedLean(tactics=[Rule("have h : f 1 = 0 := by norm_num", errors=("linarith failed",))])
    session = DfpsSession(lean, ffx())
    before = session.state
    r = session.step("have h : f 1 = 0 := by norm_num")
    assert not r.ok and r.errors == ("linarith failed",) and r.state is None
    assert session.state == before and session.history[-1].ok is False
    ok = session.step("have h : f 1 = -2 := by norm_num [h_f_def]")
    assert ok.ok and "h : f 1 = -2" in session.goals[0]
    assert session.accepted("forward") == ["have h : f 1 = -2 := by norm_num [h_f_def]"]


def test_banned_tactics_never_reach_lean() -> None:
    lean = ScriptedLean()
    session = DfpsSession(lean, ffx())
    n = len(lean.calls)
    for text in ("have h : f 1 = 0 := by sorry", "exact?", "run_tac pure ()", "norm_num\n#eval 1"):
        r = session.step(text)
        assert not r.ok and r.errors[0].startswith("banned in a solution: ")
    assert len(lean.calls) == n
    relaxed = DfpsSession(ScriptedLean(), ffx(), banned=())
    assert relaxed.step("have h : f 1 = 0 := by sorry").ok  # the setting replaces the list
    assert not relaxed.step("run_tac pure ()").ok  # unsafe tokens stay refused


def test_submitting_an_unknown_hypothesis_fails() -> None:
    session = DfpsSession(ScriptedLean(), ffx())
    r = session.step("exact h_nope -- submit")
    assert not r.ok and "unknown identifier 'h_nope'" in r.errors[0] and session.phase == "forward"


def test_rules_in_order_unmatched_modes_and_timeouts() -> None:
    lean = ScriptedLean(tactics=[Rule(re.compile("simp"), goals=("⊢ a",)), Rule("simp", errors=("never",)),
                                 Rule("slow", timeout=True)], unmatched="error")
    state = lean.start(ffx())
    assert lean.run_tactic(state, "simp").goals == ("⊢ a",)
    r = lean.run_tactic(state, "slow", timeout_s=3)
    assert r.timed_out and r.errors == ("timeout: Lean ran past 3 s",) and not r.ok
    r = lean.run_tactic(state, "ring")
    assert not r.ok and "no scripted rule" in r.errors[0]
    assert [c[0] for c in lean.calls] == ["start", "tactic", "tactic", "tactic"]
    with pytest.raises(LeanError, match="unknown proof state 99"):
        lean.run_tactic(type(state)(99, ()), "simp")
    with pytest.raises(LeanError, match="does not elaborate"):
        lean.start_goal("example : False := by sorry", label="p")


def test_problem_budget_in_simulated_seconds() -> None:
    lean = ScriptedLean(tactics=[Rule(re.compile("^have"), seconds=4.0)], problem_timeout_s=10.0)
    state = lean.start(ffx())
    for i in range(2):
        r = lean.run_tactic(state, f"have h{i} : True := trivial")
        assert r.ok
    assert lean.time_spent("ffx") == 8.0
    with pytest.raises(LimitExceeded, match="ffx: its Lean time"):
        lean.run_tactic(state, "have h3 : True := trivial")
    with pytest.raises(LimitExceeded):
        lean.run_tactic(state, "norm_num")


def test_commands() -> None:
    lean = ScriptedLean(commands=[Rule(re.compile("by\n  rfl$"), errors=("type mismatch",)),
                                  Rule(re.compile("sorry"), goals=("⊢ False",))], unmatched="error")
    assert lean.run_command("example : 1 = 2 := by\n  rfl").errors == ("type mismatch",)
    sorry = lean.run_command("example : False := by\n  sorry")
    assert sorry.ok and not sorry.proved and sorry.sorries == ("⊢ False",)
    assert lean.run_command("example : True := trivial").errors == ("no scripted rule for this command",)
    assert ScriptedLean().run_command("anything").proved
    lean.close()
    with pytest.raises(LeanError, match="closed"):
        lean.run_command("x")


def test_a_step_that_closes_the_forward_goal_submits() -> None:
    mpr = "case h.mpr\nanswer : ℝ\nf : ℝ → ℝ\n⊢ answer = 7 → f (f 1) = answer"
    session = DfpsSession(ScriptedLean(tactics=[Rule("simpa using h7", goals=(mpr,))]), ffx())
    r = session.step("simpa using h7")
    assert r.ok and session.phase == "backward" and session.submission == Submission("answer = 7", "7")
    assert session.goals == ("case h.mpr\nanswer : ℝ\nf : ℝ → ℝ\nh_submission : answer = 7\n⊢ f (f 1) = answer",)


def test_a_failed_submission_is_undone() -> None:
    lean = ScriptedLean(tactics=[Rule("intro h_submission", errors=("no binders",))])
    session = DfpsSession(lean, ffx())
    session.step("have h_answer : answer = 7 := by norm_num")
    before = session.state
    r = session.step("exact h_answer")
    assert not r.ok and r.errors == ("submitting did not leave the backward goal: no binders",)
    assert session.phase == "forward" and session.state == before and session.submission is None
    assert session.history[-1].ok is False and session.accepted("forward") == [
        "have h_answer : answer = 7 := by norm_num"]
