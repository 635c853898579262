"""FPS problems rendered as Lean text, on every row of the three benchmark files and a few exactly;
row validation; submissions; banned tactics; step splitting; goal displays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.tools.lean import (
    DEFAULT_BANNED,
    FpsProblem,
    Goal,
    Submission,
    extract_submission,
    find_banned,
    split_steps,
    strip_comments,
    submission_from_goal,
    submitted_name,
    visible_goals,
)
from paperworks.tools.lean.text import bracket_problem
from tests.fixtures.lean.helpers import DATA, FFX_ROW, H_MP, ffx

FILES = ["formal_math500.jsonl", "minif2f_solving.jsonl", "putnam_solving.jsonl"]
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="FPS data not in shared/data/fps")


@needs_data
@pytest.mark.parametrize("name", FILES)
def test_every_row_renders(name: str) -> None:
    problems = FpsProblem.load_jsonl(DATA / name)
    assert len(problems) == sum(1 for line in (DATA / name).read_text().splitlines() if line.strip())
    for p in problems:
        sub = Submission.of("0")
        texts = [p.solving_statement(), p.forward_context(), p.rpe_statement(sub, "norm_num"),
                 p.rpe_statement(Submission.from_prop(p.formal_answer), "rfl"), p.backward_statement(sub),
                 p.solution_certificate("exact h_answer", "sorry"), p.rpe_self_check()]
        for text in texts:
            assert bracket_problem(text) is None, (p.id, text)
        flat = " ".join(p.rpe_statement(sub, "rfl").split())
        assert " ".join(p.formal_answer.split()) in flat
        assert p.solving_statement().startswith("example :\n    ")
        assert " ".join(p.conclusion.type.split()) in " ".join(p.solving_statement().split())
        assert p.forward_setup()[-1] == f"intro {p.conclusion_name}"
        assert p.forward_context().endswith(f"\n{p.conclusion_name} : {p.conclusion.type}\n⊢ ?w")
        assert p.command("x").startswith(p.preamble + "\n\n")


@needs_data
def test_first_math500_row_exactly() -> None:
    p = FpsProblem.load_jsonl(DATA / "formal_math500.jsonl")[0]
    assert p.id == "formal_math500.jsonl:1" and p.preamble == "open BigOperators Real Nat Topology Rat"
    assert p.solving_statement() == (
        "example :\n"
        "    ∀ (n : Nat),\n"
        "    ∀ (answer : ℕ), ∃ (h_submission : Prop),\n"
        "    ((Nat.factorial 42 = n * 10^answer ∧ n % 10 ≠ 0) ↔ h_submission) := by\n"
        "  sorry")
    assert p.forward_setup() == ["intro n", "intro answer", "apply Exists.intro", "constructor", "intro h_answer"]
    assert p.forward_context() == "n : Nat\nanswer : ℕ\nh_answer : Nat.factorial 42 = n * 10^answer ∧ n % 10 ≠ 0\n⊢ ?w"
    assert p.rpe_statement(Submission.of("9"), "norm_num") == (
        "example (n : Nat) (answer : ℕ) :\n"
        "    (answer = (\n"
        "      9 : ℕ)) ↔ (\n"
        "      @Eq Nat answer (@OfNat.ofNat Nat (nat_lit 9) (instOfNatNat (nat_lit 9)))) := by\n"
        "  norm_num")
    assert p.backward_statement(Submission.of("9"), "decide") == (
        "example (n : Nat) (answer : ℕ) (h_submission : answer = (9)) :\n"
        "    Nat.factorial 42 = n * 10^answer ∧ n % 10 ≠ 0 := by\n"
        "  decide")
    assert p.lean_file("example : True := trivial") == (
        "import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000\n\n"
        "open BigOperators Real Nat Topology Rat\n\nexample : True := trivial\n")


@needs_data
def test_putnam_header_and_instance_binders() -> None:
    problems = FpsProblem.load_jsonl(DATA / "putnam_solving.jsonl")
    assert problems[0].preamble == "open MeasureTheory Set"
    assert problems[0].command("x") == "open MeasureTheory Set\n\nx"
    unnamed = [p for p in problems if any(b.name is None for b in (*p.intros, *p.outros))]
    assert unnamed
    for p in unnamed:
        text = p.solving_statement()
        for b in (*p.intros, *p.outros):
            if b.name is None:
                assert f"[{b.type}]" in text
                assert "inst✝ : " + b.type in p.forward_context()
        assert any(" _" in t for t in p.forward_setup())


@needs_data
def test_multi_answer_rows_use_the_proposition_form() -> None:
    p = FpsProblem.load_jsonl(DATA / "formal_math500.jsonl")[334]
    assert p.formal_answer.startswith("Or")
    sub = Submission.of("answer = 1 ∨ answer = -2")
    assert sub.term is None
    text = p.rpe_statement(sub, "omega")
    assert "(\n      answer = 1 ∨ answer = -2) ↔ (\n      Or" in text


def test_forward_context_matches_the_authors_goal_states() -> None:
    demos = [json.loads(x) for x in (DATA / "prompt_hybrid_cot_final.jsonl").read_text().splitlines()] \
        if DATA.is_dir() else []
    assert ffx().forward_context() == "answer : ℝ\nf : ℝ → ℝ\nh_f_def : ∀ (x : ℝ), f x = 3 * x ^ 2 - 5\n" \
                                      "h_answer : f (f 1) = answer\n⊢ ?w"
    if demos:
        assert ffx().forward_context() == demos[0]["forward_context"]
        # second demonstration: answer and the outros x y z share a line, as Lean prints them
        row = {**FFX_ROW, "outros": [{"t": "ℝ", "v": None, "name": n} for n in "xyz"] + [
            {"t": "(x + y + z) * (x * y + x * z + y * z) = 25", "v": None, "name": "h₁"},
            {"t": "x ^ 2 * (y + z) + y ^ 2 * (x + z) + z ^ 2 * (x + y) = 7", "v": None, "name": "h₂"},
            {"t": "x * y * z = answer", "v": None, "name": "h_answer"}]}
        assert FpsProblem.from_row(row).forward_context() == demos[1]["forward_context"]
        # fourth: intros a b before the answer
        row4 = {**FFX_ROW, "intros": [{"t": "ℝ", "v": None, "name": "a"}, {"t": "ℝ", "v": None, "name": "b"}],
                "outros": [{"t": "ℝ", "v": None, "name": "r"}, {"t": "ℝ → ℝ", "v": None, "name": "f"},
                           {"t": "ℝ → ℝ", "v": None, "name": "g"}]}
        got = FpsProblem.from_row({**row4, "outros": [*row4["outros"], {"t": "r = answer", "v": None,
                                                                          "name": "h_answer"}]}).forward_context()
        want = demos[3]["forward_context"]
        assert got.splitlines()[:2] == want.splitlines()[:2] == ["a b answer r : ℝ", "f g : ℝ → ℝ"]


def test_let_values_go_into_a_telescope() -> None:
    row = {**FFX_ROW, "outros": [{"t": "ℝ", "v": "2", "name": "c"}, {"t": "c * answer = 14", "v": None,
                                                                      "name": "h_answer"}]}
    p = FpsProblem.from_row(row)
    assert "let c : ℝ := 2;" in p.solving_statement()
    assert p.forward_setup() == ["intro answer", "apply Exists.intro", "intro c", "constructor", "intro h_answer"]
    assert "c : ℝ := 2" in p.forward_context()
    text = p.backward_statement(Submission.of("7"), "norm_num")
    assert text.startswith("example :\n    ∀ (answer : ℝ) (h_submission : answer = (7)),\n    let c : ℝ := 2;")
    assert "  intro answer h_submission c\n  norm_num" in text


@pytest.mark.parametrize(("row", "message"), [
    ({**FFX_ROW, "formal_answer": None}, "row: field 'formal_answer': expected a non-empty string, got NoneType"),
    ({k: v for k, v in FFX_ROW.items() if k != "formal_answer_type"}, "field 'formal_answer_type': expected a "
                                                                      "non-empty string, got missing"),
    ({**FFX_ROW, "outros": "h"}, "field 'outros': expected a list"),
    ({**FFX_ROW, "outros": []}, "field 'outros': expected at least one binder"),
    ({**FFX_ROW, "intros": [{"t": "", "v": None, "name": "x"}]}, "field 'intros'[0].t: expected a non-empty"),
    ({**FFX_ROW, "intros": [{"t": "ℕ", "v": None, "name": "a b"}]}, "field 'intros'[0].name: expected null or"),
    ({**FFX_ROW, "intros": [{"t": "ℕ", "v": None, "name": "answer"}]}, "'answer' is reserved"),
    ({**FFX_ROW, "intros": [3]}, "field 'intros'[0]: expected an object"),
    ({**FFX_ROW, "formal_answer": "@Eq Nat x 3"}, "expected a proposition about 'answer'"),
    ({**FFX_ROW, "metainfo": [1]}, "field 'metainfo': expected an object or null"),
    ([1, 2], "row: expected a JSON object, got list"),
])
def test_malformed_rows_are_one_line_user_errors(row: object, message: str) -> None:
    with pytest.raises(UserError) as err:
        FpsProblem.from_row(row, id="row")  # type: ignore[arg-type]
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith("row: ")


def test_load_jsonl_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(FFX_ROW) + "\n\n{not json\n")
    with pytest.raises(UserError, match=r"bad\.jsonl:3: not a JSON object"):
        FpsProblem.load_jsonl(path)
    path.write_text(json.dumps(FFX_ROW) + "\n" + json.dumps({**FFX_ROW, "outros": None}) + "\n")
    with pytest.raises(UserError, match=r"^bad\.jsonl:2: field 'outros'"):
        FpsProblem.load_jsonl(path)


def test_submissions() -> None:
    assert Submission.of("7") == Submission("answer = (7)", "7")
    assert Submission.of("answer = 6 / 5") == Submission("answer = 6 / 5", "6 / 5")
    assert Submission.from_prop("√2 = answer").term == "√2"
    for prop in ("answer = 1 ∨ answer = -2", "answer = 1 ∧ True", "answer ≤ 3", "answer = answer + 0",
                 "answer == 3", "f answer = 2"):
        assert Submission.from_prop(prop).term is None, prop
    assert Submission.from_prop("answer = (1, fun x => x = 2)").term == "(1, fun x => x = 2)"


def test_extract_submission_from_the_demonstrations() -> None:
    if not DATA.is_dir():
        pytest.skip("FPS data not in shared/data/fps")
    demos = [json.loads(x) for x in (DATA / "prompt_hybrid_cot_final.jsonl").read_text().splitlines()]
    terms = []
    assert [submitted_name(d["formal_solution"]) for d in demos].count("h_answer") == 9
    assert submitted_name(demos[8]["formal_solution"]) == "h_final"  # `exact h_final -- submit`
    for d in demos:
        sub = extract_submission(d["formal_solution"])
        assert sub is not None and sub.prop.startswith("answer = "), d["formal_solution"][-200:]
        terms.append(sub.term)
    assert terms[:3] == ["7", "6", "6 / 5"]
    assert terms[8:] == ["Real.sin y ^ 2", "3 * y + 1"]


def test_extract_submission_cases() -> None:
    script = "have h1 : x = 2 := by norm_num\nhave h_answer : answer = 2 * x := by\n  rw [h1]\nexact h_answer"
    assert extract_submission(script) == Submission("answer = 2 * x", "2 * x")
    assert extract_submission("have h : answer = 3 := rfl\nexact h -- submit") == Submission("answer = 3", "3")
    assert extract_submission("have h : answer = 3 := rfl") is None  # it submits h_answer, never stated
    assert extract_submission("have h_answer : answer = 3 := rfl", name="h") is None
    nested = "have h_answer : answer = 1 ∨\n    answer = 2 := by\n  omega\nexact h_answer"
    assert extract_submission(nested) == Submission("answer = 1 ∨\n    answer = 2", None)


def test_banned_tactics_outside_comments_and_strings() -> None:
    assert find_banned("norm_num -- sorry later") == []
    assert find_banned("/- admit /- nested sorry -/ -/ simp") == []
    assert find_banned('simp [show "sorry" = "sorry" from rfl]') == []
    assert find_banned("exact sorry") == ["sorry"]
    assert find_banned("rw [h]\napply?") == ["apply?"]
    assert find_banned("rw [foo]") == [] and find_banned("rw? ") == ["rw?"]
    assert find_banned("exact my_sorry_lemma") == [] and find_banned("exact Foo.sorry") == []
    assert find_banned("simp?") == ["simp?"] and find_banned("simp") == []
    assert find_banned("norm_num\n#eval IO.Process.run {cmd := \"ls\"}") == ["#eval"]
    assert find_banned("run_tac do pure ()") == ["run_tac"]
    assert find_banned("theorem t : False := sorry") == ["sorry", "theorem"]
    assert find_banned("exact sorry", banned=["linarith"]) == []
    assert find_banned("linarith", banned=["linarith"]) == ["linarith"]
    assert find_banned("run_tac x", banned=[], unsafe=False) == []
    assert "rw_search" in DEFAULT_BANNED and find_banned("rw_search") == ["rw_search"]


def test_comments_and_brackets() -> None:
    assert strip_comments("a -- b\nc /- d\ne -/ f") == "a \nc \n f"
    assert strip_comments('"--x"') == '"--x"'
    assert bracket_problem("(a + [b]) * ⟨c, d⟩") is None
    assert bracket_problem("7 : ℕ)) ↔ True ∨ ((") == "unbalanced ')'"
    assert bracket_problem("f (x") == "unclosed '('"


def test_split_steps_on_a_demonstration() -> None:
    if not DATA.is_dir():
        pytest.skip("FPS data not in shared/data/fps")
    demo = json.loads((DATA / "prompt_hybrid_cot_final.jsonl").read_text().splitlines()[0])
    steps = split_steps(demo["formal_solution"])
    codes = [strip_comments(s).split()[:2] for s in steps]
    assert [c[1] for c in codes[:-1]] == ["h_f_1", "h_f_1_simplified", "h_f_1_final", "h_f_neg2",
                                          "h_f_neg2_simplified", "h_f_neg2_final", "h_answer"]
    assert steps[0].startswith("-- Calculate $f(1)$\nhave h_f_1")
    assert "norm_num -- 0\n} -- Simplifying $1^2$ to $1$" in steps[1]  # braces at column 0 stay inside
    assert steps[-1] == "exact h_answer -- submit"


def test_split_steps_indentation_and_bullets() -> None:
    script = "  have a : 1 = 1 := by\n    rfl\n\n  calc 1 = 1 := rfl\n  _ = 1 := rfl\n  · simp\n  exact a"
    assert split_steps(script) == ["have a : 1 = 1 := by\n  rfl", "calc 1 = 1 := rfl\n_ = 1 := rfl", "· simp",
                                   "exact a"]
    assert split_steps("-- only a comment\n") == []


def test_goal_displays() -> None:
    g = Goal.parse(H_MP)
    assert g.case == "h.mp" and g.target == "?w" and g.hyp("h_f_def") == "∀ (x : ℝ), f x = 3 * x ^ 2 - 5"
    assert Goal.parse(g.render()) == g and g.render() == H_MP
    long = "case h.mpr\nx y : ℝ\nc : ℝ := 2\nh_submission : answer =\n    2 + 3\n⊢ f x =\n  y"
    parsed = Goal.parse(long)
    assert parsed.hyps[0].names == ("x", "y") and parsed.hyps[1].value == "2"
    assert parsed.hyp("h_submission") == "answer =\n    2 + 3" and parsed.target == "f x =\n  y"
    assert submission_from_goal(long) == Submission("answer =\n    2 + 3", "2 + 3")
    shadow = g.with_hyp("h_answer", "answer = 7")
    assert shadow.hyp("h_answer") == "answer = 7" and "h_answer✝ : f (f 1) = answer" in shadow.render()
    assert visible_goals([H_MP, "case w\nanswer : ℝ\n⊢ Prop"]) == (H_MP,)
