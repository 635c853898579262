"""The symbolic (non-Lean) FPS answer checker: real benchmark rows, equivalent and near-miss
submissions, Lean's typing rules, hostile inputs, the worker process, and informal answers."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import sympy as sp

from paperworks.tools.lean.symbolic import (
    LABEL,
    SymbolicVerdict,
    check_answer,
    check_answer_local,
    coverage,
    coverage_row,
)
from paperworks.tools.lean.symbolic.leantypes import INT, NAT, REAL, Ty, parse_type
from paperworks.tools.lean.symbolic.parse import ParseError, parse
from paperworks.tools.lean.symbolic.ref import parse_reference, parse_submission

ROOT = Path(__file__).resolve().parents[2]
TRIPLES = [json.loads(line) for line in (ROOT / "tests/fixtures/fps_symbolic_triples.jsonl").read_text().splitlines()
           if line.strip()]
DATA = ROOT.parent / "shared" / "data" / "fps"
FILES = ["formal_math500", "minif2f_solving", "putnam_solving"]


def _row(name: str, index: int) -> dict:
    path = DATA / f"{name}.jsonl"
    if not path.exists():
        pytest.skip(f"benchmark data not found at {path}")
    return json.loads(path.read_text().splitlines()[index])


def test_fixture_has_enough_real_triples() -> None:
    assert len(TRIPLES) >= 40
    assert all(":" in t["id"] and t["file"] in FILES and isinstance(t["row"], int) for t in TRIPLES)
    kinds = {t["expected"] for t in TRIPLES}
    assert kinds == {True, False, None}
    assert sum(t["expected"] is False for t in TRIPLES) >= 15  # near misses


@pytest.mark.parametrize("triple", TRIPLES, ids=[f"{t['id']}|{t['submission'][:30]}" for t in TRIPLES])
def test_triple(triple: dict) -> None:
    v = check_answer_local(triple["submission"], triple["formal_answer"], triple["answer_type"],
                           intros=triple["intros"], timeout_s=5.0)
    assert v.equivalent is triple["expected"], f"{triple['note']}: {v.method} {v.reason}"
    assert v.label == LABEL
    assert v.method in ("symbolic", "numeric", "unparsed", "undecided")
    assert "\n" not in v.reason and v.reason
    assert v.elapsed_s < 5.0


def test_verdict_shape_and_methods() -> None:
    t = next(x for x in TRIPLES if x["id"] == "formal_math500:10" and x["submission"] == "Real.sqrt 242")
    v = check_answer_local(t["submission"], t["formal_answer"], t["answer_type"])
    assert v.equivalent is True and v.method == "symbolic"
    assert "sqrt(2)" in v.submission_expr and "sqrt(2)" in v.reference_expr
    assert v.to_dict()["label"] == "symbolic, not Lean-verified"
    near = next(x for x in TRIPLES if x["id"] == "formal_math500:72" and x["expected"] is False)
    v2 = check_answer_local(near["submission"], near["formal_answer"], near["answer_type"], intros=near["intros"])
    assert v2.equivalent is False and v2.method == "numeric" and "differs at x=" in v2.reason


def test_through_the_worker_process() -> None:
    picks = [t for t in TRIPLES if t["id"] in ("putnam_solving:1", "formal_math500:145")][:4]
    for t in picks:
        v = check_answer(t["submission"], t["formal_answer"], t["answer_type"], intros=t["intros"], timeout_s=5.0)
        assert isinstance(v, SymbolicVerdict)
        assert v.equivalent is t["expected"], v.reason


def test_overrunning_request_kills_the_worker_and_the_next_works() -> None:
    from paperworks.tools.lean.symbolic import api

    api._WORKER.call("sleep", (0,), 30.0)  # started and warm
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        api._WORKER.call("sleep", (60,), 0.5)
    assert time.monotonic() - start < 10
    assert api._WORKER.proc is None
    v = check_answer("9", "@Eq Nat answer (@OfNat.ofNat Nat (nat_lit 9) (instOfNatNat (nat_lit 9)))", "ℕ")
    assert v.equivalent is True


NAT9 = "@Eq Nat answer (@OfNat.ofNat Nat (nat_lit 9) (instOfNatNat (nat_lit 9)))"


@pytest.mark.parametrize("bad", [
    "", "   ", "@@ )( !!", "fun =>", "2^2^2^2^2^99", "(" * 5000 + "1" + ")" * 5000, "1+" * 60_000 + "1",
    "+".join(["x"] * 4000), "Nat.factorial (10^9)", "9" * 3000, "fun a => " * 400 + "a", "{1, 2", "⟨⟩⌊",
    "∑ k in Finset.range (2^2^2^2^2^2), k",
])
def test_hostile_inputs_return_none_quickly(bad: str) -> None:
    start = time.monotonic()
    v = check_answer_local(bad, NAT9, "ℕ", timeout_s=5.0)
    assert v.equivalent is None
    assert time.monotonic() - start < 3.0
    assert v.reason


def test_hostile_inputs_through_worker_and_wrong_argument_types() -> None:
    start = time.monotonic()
    assert check_answer("2^2^2^2^2^99", NAT9, "ℕ", timeout_s=2.0).equivalent is None
    assert check_answer(None, NAT9, "ℕ").equivalent is None  # type: ignore[arg-type]
    assert check_answer("9", "", "ℕ").equivalent is None
    assert check_answer("9", "@Iff True True", "Prop").method == "unparsed"
    assert time.monotonic() - start < 20


def test_hostile_sampling_is_bounded() -> None:
    row = next(t for t in TRIPLES if t["id"] == "putnam_solving:8")
    start = time.monotonic()
    v = check_answer_local("fun n => 2 ^ 2 ^ 2 ^ 2 ^ n", row["formal_answer"], row["answer_type"], timeout_s=3.0)
    assert time.monotonic() - start < 3.5
    assert v.equivalent in (False, None)


# -- Lean's typing rules ------------------------------------------------------------------------------
@pytest.mark.parametrize("text, ty, value", [
    ("7 - 9", NAT, 0), ("7 / 2", NAT, 3), ("7 % 0", NAT, 7), ("(7 : ℤ) / (-2)", INT, -3), ("-7 / 2", INT, -4),
    ("-7 % 3", INT, 2), ("7 / 2", REAL, sp.Rational(7, 2)), ("(2 : ℝ) ^ (1 / 2)", REAL, 1),
    ("(4 : ℝ) ^ ((1 : ℝ) / 2)", REAL, 2), ("∑ k in Finset.range 5, k + 1", NAT, 11),
    ("∑ k in Finset.range 5, (k + 1)", NAT, 15), ("∑ k ∈ Finset.Icc 1 4, k ^ 2", NAT, 30), ("5 !", NAT, 120),
    ("Nat.choose 5 2", NAT, 10), ("⌊(7 : ℝ) / 2⌋", INT, 3), ("|(-3 : ℤ)|", INT, 3), ("1.5e1", REAL, 15),
    ("(1 : ℝ) / 0", REAL, 0), ("((3 : ℕ) : ℝ) - 5", REAL, -2), ("(3 - 5 : ℕ)", NAT, 0), ("|3 - 5|", INT, 2),
    ("|(3 : ℕ) - 5|", INT, 2), ("((3 - 5 : ℕ) : ℤ)", INT, 0), ("if 2 < 3 then 7 - 9 else 1", INT, -2),
])
def test_lean_arithmetic_semantics(text: str, ty: Ty, value: object) -> None:
    assert parse_submission(text, ty) == value


def test_binop_elaboration_coerces_leaves_up() -> None:
    x = parse_submission("fun n => n - 1", Ty("Fun", (NAT, INT)))  # ↑n - 1 in ℤ: no truncation
    assert x(sp.Integer(0)) == -1
    y = parse_submission("fun n => (n - 1 : ℕ)", Ty("Fun", (NAT, INT)))
    assert y(sp.Integer(0)) == 0


def test_parser_precedence_and_errors() -> None:
    assert parse("-x^2").op == "neg"
    assert parse("a + b * c").args[1].op == "mul"
    assert parse("fun x => x + 1").op == "lam"
    assert parse("{x : ℝ | 0 < x}").op == "setof"
    assert parse("p.1 + p.2").args[0].op == "proj"
    with pytest.raises(ParseError):
        parse("(" * 200 + "1" + ")" * 200)
    with pytest.raises(ValueError):
        parse("1 +")


def test_surface_forms() -> None:
    assert parse_submission("Polynomial.X * (Polynomial.X - 1)", parse_type("Polynomial ℤ")) == sp.Symbol("X") * (
        sp.Symbol("X") - 1)
    assert parse_submission("⟨1, 2⟩", parse_type("ℂ")) == 1 + 2 * sp.I
    assert parse_submission("![1, 2]", parse_type("Fin 2 → ℝ")) == sp.Tuple(1, 2)
    assert parse_submission("fun n => (n - 1).choose 2", parse_type("ℕ → ℕ"))(sp.Integer(5)) == 6
    assert parse_submission("Finset.sum (Finset.range 5) (fun k => k)", NAT) == 10
    s = parse_submission("{p | Nat.Prime p ∧ p ≡ 1 [MOD 4]}", parse_type("Set ℕ"))
    assert s.contains(13) == sp.true and s.contains(7) == sp.false
    assert parse_submission("{3 * m ^ 2 | m > 0}", parse_type("Set ℕ")) is not None


def test_types() -> None:
    assert parse_type("ℝ × ℝ") == Ty("Prod", (REAL, REAL))
    assert parse_type("Set (ℝ → ℝ)") == Ty("Set", (Ty("Fun", (REAL, REAL)),))
    assert parse_type("ℕ+") == NAT and parse_type("NNReal") == REAL
    assert parse_type("Fin 3 → ℝ").args[0] == Ty("Fin", (), 3)
    assert parse_type("Set ℂ[X]").args[0].head == "Poly"


# -- references from the real benchmark files ---------------------------------------------------------
@pytest.mark.parametrize("name, floor", [("formal_math500", 0.97), ("minif2f_solving", 0.97), ("putnam_solving", 0.9)])
def test_reference_parsing_on_real_rows(name: str, floor: float) -> None:
    path = DATA / f"{name}.jsonl"
    if not path.exists():
        pytest.skip(f"benchmark data not found at {path}")
    rows = [json.loads(line) for line in path.read_text().splitlines()][::7]
    ok = 0
    for r in rows:
        try:
            parse_reference(r["formal_answer"], r["formal_answer_type"], r["intros"], time.monotonic() + 5)
            ok += 1
        except Exception:  # counted, not raised
            pass
    assert ok / len(rows) >= floor, f"{ok}/{len(rows)}"


def test_reference_shapes() -> None:
    alt = parse_reference(_row("formal_math500", 334)["formal_answer"], "ℤ")
    assert alt.kind == "alternatives" and set(alt.values) == {1, -2}
    r = _row("putnam_solving", 33)
    fn = parse_reference(r["formal_answer"], r["formal_answer_type"], r["intros"])
    assert fn.kind == "value" and isinstance(fn.values[0], sp.Lambda)
    nn = _row("minif2f_solving", 314)
    assert "coercion" in " ".join(parse_reference(nn["formal_answer"], nn["formal_answer_type"], nn["intros"]).notes)
    mem = parse_reference("@Membership.mem Nat (Set Nat) (@Set.instMembership Nat) "
                          "(@Set.Icc Nat Nat.instPreorder (@OfNat.ofNat Nat (nat_lit 1) (instOfNatNat (nat_lit 1))) "
                          "(@OfNat.ofNat Nat (nat_lit 3) (instOfNatNat (nat_lit 3)))) answer", "ℕ")
    assert mem.kind == "member"
    v = check_answer_local("2", "@Membership.mem Nat (Set Nat) (@Set.instMembership Nat) "
                           "(@Set.Icc Nat Nat.instPreorder (@OfNat.ofNat Nat (nat_lit 1) (instOfNatNat (nat_lit 1))) "
                           "(@OfNat.ofNat Nat (nat_lit 3) (instOfNatNat (nat_lit 3)))) answer", "ℕ")
    assert v.equivalent is True
    with pytest.raises(ValueError):
        parse_reference("@Iff (@Eq Nat answer (@OfNat.ofNat Nat (nat_lit 1) (instOfNatNat (nat_lit 1)))) True", "ℕ")


# -- informal answers and coverage --------------------------------------------------------------------
def test_informal_answers() -> None:
    pytest.importorskip("latex2sympy2_extended")
    from paperworks.tools.lean.symbolic.latex import LatexUnparsed, clean_latex, parse_informal

    assert parse_informal(r"\frac{1}{2}", REAL) == sp.Rational(1, 2)
    assert parse_informal(r"$\boxed{3\sqrt{2}}$", REAL) == 3 * sp.sqrt(2)
    assert parse_informal(r"\textbf{(C) } 5", NAT) == 5
    assert parse_informal("1.25", REAL) == sp.Rational(5, 4)
    assert parse_informal(r"11,\! 111", NAT) == 11111
    assert clean_latex(r"45^\circ") == "45"
    assert parse_informal(r"\left(\tfrac{1}{2}\right)", REAL) == sp.Rational(1, 2)
    assert parse_informal(r"11\sqrt2", REAL) == 11 * sp.sqrt(2)
    with pytest.raises(LatexUnparsed):
        parse_informal("the set of functions of the form f(x) = x", REAL)


def test_coverage_rows_and_report() -> None:
    pytest.importorskip("latex2sympy2_extended")
    rows = [_row("formal_math500", i) for i in (0, 1, 10, 145)] + [_row("putnam_solving", i) for i in (0, 1, 7)]
    res = coverage_row(rows[2])
    assert res["reference"] and res["informal"] and res["agrees"] is True
    rep = coverage(rows, isolate=False)
    assert rep["rows"] == 7 and rep["reference_parsed"] == 7
    assert rep["informal_parsed"] >= 5 and rep["informal_agrees"] >= 5
    assert rep["top_failure_reasons"]  # row 145's informal answer disagrees with its formal one
