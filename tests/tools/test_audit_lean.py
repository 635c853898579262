"""Audit regressions for the Lean-side verdict code: the banned-token scan must lex Lean as Lean does
(no code hidden behind a char literal, a quoted name, a raw or interpolated string), compiler-trusting
tactics are refused, and the symbolic checker tells close-but-different closed values apart."""

from __future__ import annotations

import pytest

from paperworks.tools.lean.problem import FpsProblem
from paperworks.tools.lean.rpe import submission_problem
from paperworks.tools.lean.submission import Submission, extract_submission
from paperworks.tools.lean.symbolic import check_answer_local
from paperworks.tools.lean.text import find_banned, split_steps, strip_comments

# Each hides `run_tac` (arbitrary MetaM code: it can add an axiom and close any goal without `sorry`)
# from a scanner that takes `'"'`, `«--»`, `r#"a"b"#` or the `{…}` of `s!"…"` for a comment or a string.
HIDDEN = {
    "char literal opens no string": "have h : Char := '\"'\nrun_tac pure () -- \"\nexact h_answer",
    "char literal after a numeral": "exact f 2'\"'\nrun_tac pure () -- \"",
    "char literal right after a raw string": 'have s : String := r"x"\'"\' run_tac pure () -- "',
    "escaped char literal": "have h : Char := '\\''\nrun_tac pure () -- '\nexact h_answer",
    "quoted name is no line comment": "have «--» : True := trivial <;> run_tac pure ()",
    "quoted name is no block comment": "have «/-» : True := trivial\nrun_tac pure ()\nexact «-/»",
    "raw string with quotes inside": 'have s : String := r#"a"b"#\nrun_tac pure ()\nhave t : String := "x"',
    "interpolation is code": 'have s : String := s!"{(by run_tac pure (); exact 1 : Nat)}"',
    "interpolated without a prefix": 'exact (dbg_trace "{(by run_tac pure (); exact 1 : Nat)}"; trivial)',
    "a `!` name before a plain string": 'exact get!"{" run_tac "}"',
    "unclosed quoted name": "have h : True := trivial «\nrun_tac pure ()",
    "nested interpolation": 'have s : String := s!"a{s!"b{(by run_tac pure (); exact 1 : Nat)}"}c"',
}


@pytest.mark.parametrize("text", list(HIDDEN.values()), ids=list(HIDDEN))
def test_banned_scan_sees_code_a_naive_lexer_hides(text: str) -> None:
    assert "run_tac" in find_banned(text)


def test_sorry_behind_char_literal_is_found_in_a_submission() -> None:
    sub = Submission.of("(fun _ => '\"') sorry -- \"")
    why = submission_problem(sub, ("sorry",))
    assert why is not None and "sorry" in why


@pytest.mark.parametrize("text,token", [
    ("native_decide", "native_decide"), ("decide +native", "native"),
    ("decide (config := { native := true })", "native"), ("exact Lean.ofReduceBool _ _ rfl", "Lean.ofReduceBool"),
    ("exact Lean.trustCompiler", "Lean.trustCompiler"),
    ("exact Lean.ofReduceNat _ _ rfl", "Lean.ofReduceNat"), ("exact sorryAx _ false", "sorryAx"),
])
def test_compiler_trusting_and_sorry_axiom_are_refused(text: str, token: str) -> None:
    assert token in find_banned(text, ())


def test_legitimate_literals_stay_allowed_and_unchanged() -> None:
    text = "have h' : 'a' ≠ 'b' := by decide\nhave s : r#\"q\"# = \"q\" := rfl -- sorry\nexact h'"
    assert find_banned(text) == []
    assert "decide" not in find_banned("decide")
    # without blanking, only comments go: the literals reach Lean exactly as written
    assert strip_comments(text) == text.replace(" -- sorry", " ")
    assert strip_comments('s!"a{x -- c\n}b" «--» x') == 's!"a{x \n}b" «--» x'


def test_steps_and_submission_read_through_literals() -> None:
    script = "have c : Char := '\"'\nhave h_answer : answer = 5 := by norm_num\nexact h_answer"
    assert len(split_steps(script)) == 3
    assert extract_submission(script) == Submission("answer = 5", "5")


def test_rpe_statement_keeps_a_raw_string_term() -> None:
    problem = FpsProblem.from_row({"informal_problem": "p", "formal_answer": "answer = \"a\"",
                                   "formal_answer_type": "String", "intros": [],
                                   "outros": [{"name": "h", "t": "answer = \"a\""}]})
    statement = problem.rpe_statement(Submission.of('r#"a"#'))
    assert 'r#"a"#' in statement


@pytest.mark.parametrize("submission,reference", [
    ("Real.exp (-1000)", "answer = 0"),               # 5e-435 is not 0 (absolute tolerance near 0)
    ("Real.exp (-60)", "answer = 0"),
    ("Real.sqrt 8", "answer = 2.8284271247461903"),   # the double nearest √8 is not √8
    ("Real.pi", "answer = 3.141592653589793"),
    ("Real.sqrt 2 + 10^(-25:ℤ) * Real.pi", "answer = Real.sqrt 2"),
])
def test_close_but_different_closed_values_are_rejected(submission: str, reference: str) -> None:
    v = check_answer_local(submission, reference, "ℝ", timeout_s=5.0)
    assert v.equivalent is False, v.reason


@pytest.mark.parametrize("submission,reference", [
    ("Real.sqrt 2 + Real.sqrt 3", "answer = Real.sqrt (5 + 2 * Real.sqrt 6)"),
    ("Real.sin (Real.pi / 7) ^ 2 + Real.cos (Real.pi / 7) ^ 2", "answer = 1"),
    ("Real.sqrt 8", "answer = 2 * Real.sqrt 2"),
    ("Real.exp (Real.log 5)", "answer = 5"),
])
def test_equal_closed_values_are_still_accepted(submission: str, reference: str) -> None:
    v = check_answer_local(submission, reference, "ℝ", timeout_s=5.0)
    assert v.equivalent is True, v.reason


@pytest.mark.parametrize("submission,reference,expected", [
    # Mathlib's junk values of closed arguments, not SymPy's complex ones
    ("Real.sqrt (-1)", "answer = 0", True), ("Real.sqrt (-1)", "answer = 1", False),
    ("Real.log (-2)", "answer = Real.log 2", True), ("Real.log 0", "answer = 0", True),
    ("Real.arcsin 2", "answer = Real.pi / 2", True), ("Real.arccos (-3)", "answer = Real.pi", True),
    ("Real.arcsin (1/2)", "answer = Real.pi / 6", True),
    ("(-8 : ℝ) ^ ((1 : ℝ) / 3)", "answer = 1", True),     # |b|^e * cos(e π) = 2 * cos(π/3)
    ("(-8 : ℝ) ^ ((1 : ℝ) / 3)", "answer = -2", False),
    ("(0 : ℝ) ^ (-1 : ℝ)", "answer = 0", True), ("(-8 : ℝ) ^ (2 : ℝ)", "answer = 64", True),
])
def test_junk_values_of_real_functions_follow_mathlib(submission: str, reference: str, expected: bool) -> None:
    v = check_answer_local(submission, reference, "ℝ", timeout_s=5.0)
    assert v.equivalent is expected, v.reason


@pytest.mark.parametrize("submission,reference,expected", [
    ("fun x => (x ^ 2 - 1) / (x - 1)", "answer = fun x => x + 1", False),   # 0 vs 2 at x = 1
    ("fun x => x / x", "answer = fun x => 1", False),                         # 0 vs 1 at x = 0
    ("fun x => (x ^ 2 + 2 * x) / x", "answer = fun x => x + 2", False),
    ("fun x => 1 / (x + 1) + 1 / (x - 1)", "answer = fun x => 2 * x / (x ^ 2 - 1)", False),
    ("fun x => (x ^ 2 - 1) / (x - 1)", "answer = fun x => (x + 1) * (x - 1) / (x - 1)", True),
    ("fun x => 2 * x / x", "answer = fun x => 2 * (x / x)", True),
    ("fun x => x ^ 2 / x", "answer = fun x => x", True),                      # both 0 at x = 0
    ("fun x => 1 / x + 1 / x", "answer = fun x => 2 / x", True),
    ("fun x => 1 / x", "answer = fun x => x⁻¹", True),
])
def test_division_by_zero_is_zero_where_sympy_would_cancel(submission: str, reference: str, expected: bool) -> None:
    v = check_answer_local(submission, reference, "ℝ → ℝ", timeout_s=5.0)
    assert v.equivalent is expected, v.reason


@pytest.mark.parametrize("submission,reference,ty,expected", [
    # members off the 0..40 grid: the numbers in the predicates and the roots of its equations are tested
    ("{x : ℕ | x = 1000}", "answer = ∅", "Set ℕ", False),
    ("{x : ℤ | x ^ 2 = 10 ^ 12}", "answer = ∅", "Set ℤ", False),
    ("{x : ℤ | x ^ 2 = 10 ^ 12}", "answer = {1000000, -1000000}", "Set ℤ", True),
    ("{x : ℕ | 50 < x ∧ x < 54}", "answer = {51, 52}", "Set ℕ", False),
    ("{x : ℕ | 50 < x ∧ x < 53}", "answer = {51, 52}", "Set ℕ", True),
    ("{x : ℕ | x > 100}", "answer = {x : ℕ | x ≥ 100}", "Set ℕ", False),
    ("{x : ℕ | x > 100}", "answer = {x : ℕ | x ≥ 101}", "Set ℕ", True),
    ("{p : ℕ × ℕ | p.1 = 100}", "answer = ∅", "Set (ℕ × ℕ)", False),
    ("{p : ℕ × ℕ | p.1 = 100 ∧ p.2 = 7}", "answer = {(100, 7)}", "Set (ℕ × ℕ)", True),
])
def test_integer_sets_are_tested_where_their_predicates_change(submission: str, reference: str, ty: str,
                                                                  expected: bool) -> None:
    v = check_answer_local(submission, reference, ty, timeout_s=5.0)
    assert v.equivalent is expected, v.reason


@pytest.mark.parametrize("submission,reference,ty,expected", [
    ("fun x => (x + 1) ^ 1000", "answer = fun x => (1 + x) ^ 1000 + 1 / 10 ^ 40", "ℝ → ℝ", False),  # exact values
    ("fun n => n + (if n = 12345 then 1 else 0)", "answer = fun n => n", "ℕ → ℕ", False),  # the formula's numbers
    ("fun x => (x + 1) ^ 2", "answer = fun x => x ^ 2 + 2 * x + 1", "ℝ → ℝ", True),
    ("fun n => n * (n + 1) / 2", "answer = fun n => (n ^ 2 + n) / 2", "ℕ → ℕ", True),
])
def test_sampling_compares_exact_values_and_the_formulas_numbers(submission: str, reference: str, ty: str,
                                                                 expected: bool) -> None:
    v = check_answer_local(submission, reference, ty, timeout_s=5.0)
    assert v.equivalent is expected, v.reason


@pytest.mark.parametrize("script", ['x "\n', 'have h_answer : answer = 5 := by norm_num\nexact h_answer\n"\n',
                                    's!"{x\n', "r#\"a\n"])
def test_an_unclosed_string_in_a_model_reply_does_not_crash_the_step_split(script: str) -> None:
    from paperworks.agents.dfps.parse import submission_from_proof

    steps = split_steps(script)  # was: ValueError from zip(strict=True), the closing quote made a new line
    assert steps and all(isinstance(s, str) for s in steps)
    assert strip_comments(script).count("\n") == script.count("\n")
    submission_from_proof(script)


@pytest.mark.parametrize("text", ["r" * 100_000, "a'x'" * 25_000, "h'" * 50_000])
def test_the_scan_takes_linear_time(text: str) -> None:
    import time

    start = time.monotonic()
    assert find_banned(text) == [] and split_steps(text)
    assert time.monotonic() - start < 20.0  # ~1.5 s on a loaded 2-core machine; quadratic took 87 s for 20,000 "r"
