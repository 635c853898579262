"""RPE: the tactic ladder in order, stopping at the first success; timeouts; refused submissions; on the
scripted Lean and on the real driver with the fake ``repl``. Also the whole-proof checks."""

from __future__ import annotations

import re
from pathlib import Path

from paperworks.tools.lean import (
    RPE_LABEL,
    RPE_TACTICS,
    Rule,
    ScriptedLean,
    Submission,
    SubprocessRepl,
    check_backward,
    check_certificate,
    rpe_check,
)
from tests.fixtures.lean.helpers import fake_repl, ffx, requests


def ends_with(tactic: str) -> re.Pattern[str]:
    return re.compile(rf":= by\n  {re.escape(tactic)}$")


def ladder(calls: list[tuple[str, str]]) -> list[str]:
    return [text.rsplit("\n  ", 1)[-1] for kind, text in calls if kind == "command"]


def test_default_ladder_is_the_authors() -> None:
    assert RPE_TACTICS == ("rfl", "norm_num", "ring_nf", "rw_search", "aesop")


def test_first_success_stops_the_ladder() -> None:
    lean = ScriptedLean(commands=[Rule(ends_with("rfl"), errors=("The rfl tactic failed",)),
                                  Rule(ends_with("norm_num"), solved=True)])
    verdict = rpe_check(lean, ffx(), "7")
    assert verdict.equivalent and verdict.tactic == "norm_num" and verdict.label == RPE_LABEL
    assert ladder(lean.calls) == ["sorry", "rfl", "norm_num"]  # precheck, then the ladder in order
    assert [a.tactic for a in verdict.attempts] == ["rfl", "norm_num"]
    assert verdict.attempts[0].errors == ("The rfl tactic failed",) and verdict.attempts[1].proved
    assert "(answer = (\n      7 : ℝ)) ↔ (\n      @Eq Real answer" in verdict.statement


def test_no_tactic_works() -> None:
    lean = ScriptedLean(commands=[Rule(ends_with("sorry"), goals=("⊢ …",)),
                                  Rule(ends_with("ring_nf"), goals=("⊢ goals left",)),
                                  Rule(re.compile(r":= by\n  \w+$"), errors=("failed",))])
    verdict = rpe_check(lean, ffx(), Submission.of("8"))
    assert not verdict.equivalent and verdict.tactic is None and verdict.label == "not verified"
    assert ladder(lean.calls) == ["sorry", *RPE_TACTICS]
    assert verdict.errors == ("rfl: failed", "norm_num: failed", "ring_nf: goals left", "rw_search: failed",
                              "aesop: failed")


def test_timeouts_move_to_the_next_rung() -> None:
    lean = ScriptedLean(commands=[Rule(ends_with("rw_search"), timeout=True),
                                  Rule(ends_with("aesop"), solved=True),
                                  Rule(re.compile(r":= by\n  (rfl|norm_num|ring_nf)$"), errors=("no",))])
    verdict = rpe_check(lean, ffx(), "7", timeout_s=5)
    assert verdict.equivalent and verdict.tactic == "aesop"
    assert verdict.attempts[3].timed_out and verdict.attempts[3].errors == ("timeout: Lean ran past 5 s",)


def test_custom_ladder_and_no_precheck() -> None:
    lean = ScriptedLean(commands=[Rule(ends_with("simp"), solved=True)], unmatched="error")
    verdict = rpe_check(lean, ffx(), "7", tactics=("decide", "simp", "rfl"), precheck=False)
    assert verdict.tactic == "simp" and ladder(lean.calls) == ["decide", "simp"]


def test_a_statement_that_does_not_typecheck_costs_one_command() -> None:
    lean = ScriptedLean(commands=[Rule(ends_with("sorry"), errors=("unknown identifier 'q'",))])
    verdict = rpe_check(lean, ffx(), "q + 1")
    assert not verdict.equivalent and verdict.errors == ("statement: unknown identifier 'q'",)
    assert ladder(lean.calls) == ["sorry"]


def test_refused_submissions_never_reach_lean() -> None:
    lean = ScriptedLean()
    for text, why in [("sorry", "contains sorry"), ("7 : ℝ)) ↔ True ∨ ((7", "unbalanced ')'"),
                      ("by exact?", "contains exact?"), ("(fun x => x) 7 -- fine", None)]:
        verdict = rpe_check(lean, ffx(), text)
        if why is None:
            assert verdict.equivalent  # unmatched commands are accepted by this ScriptedLean
        else:
            assert not verdict.equivalent and why in verdict.errors[0]
    assert len([c for c in lean.calls if c[0] == "command"]) == 2  # only the last one: precheck + rfl


def test_proposition_submissions() -> None:
    lean = ScriptedLean(commands=[Rule(re.compile(r"\(\n      answer = 7 ∨ answer = -7\) ↔"), solved=True)],
                        unmatched="error")
    verdict = rpe_check(lean, ffx(), Submission.from_prop("answer = 7 ∨ answer = -7"), precheck=False)
    assert verdict.equivalent and verdict.tactic == "rfl"


def test_ladder_on_the_subprocess_driver(tmp_path: Path) -> None:
    """rfl fails with an error, norm_num hangs (killed, restarted), ring_nf proves it."""
    failed = [{"severity": "error", "pos": {"line": 9, "column": 2}, "data": "The rfl tactic failed."}]
    cmd, log = fake_repl(tmp_path, {"commands": [
        {"match": r"by\n  rfl$", "messages": failed, "sorries": []},
        {"match": r"by\n  norm_num$", "hang": True},
        {"match": r"by\n  ring_nf$", "sorries": []},
    ]})
    with SubprocessRepl(cmd, tactic_timeout_s=30) as repl:
        verdict = rpe_check(repl, ffx(), "7", timeout_s=1.0)
        assert verdict.equivalent and verdict.tactic == "ring_nf" and repl.restarts == 1
    assert verdict.attempts[0].errors == ("9:2: The rfl tactic failed.",)
    assert verdict.attempts[1].timed_out
    sent = [r["cmd"].rsplit("\n  ", 1)[-1] for r in requests(log)]
    header, opens = "import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000", ffx().preamble
    assert sent == [header, opens, "sorry", "rfl", "norm_num", header, opens, "ring_nf"]


def test_whole_backward_proof_and_certificate() -> None:
    lean = ScriptedLean(commands=[Rule(re.compile(r"h_submission : answer = 7\) .*\n  subst h_submission",
                                                  re.DOTALL), solved=True),
                                  Rule(re.compile(r"· intro h_submission\n    linarith"), solved=True)],
                        unmatched="error")
    sub = Submission.from_prop("answer = 7")
    assert check_backward(lean, ffx(), sub, "subst h_submission\nnorm_num [h_f_def]").proved
    assert not check_backward(lean, ffx(), sub, "sorry").ok
    assert check_backward(lean, ffx(), Submission.of("sorry"), "rfl").errors == ("the submission contains sorry",)
    forward = "have h_answer : answer = 7 := by norm_num [h_f_def] at h_answer ⊢; linarith\nexact h_answer"
    assert check_certificate(lean, ffx(), forward, "linarith").proved
    refused = check_certificate(lean, ffx(), forward + "\n#eval 1", "linarith")
    assert refused.errors == ("banned in a solution: #eval",)
