"""Metrics: pass@k against hand-computed and brute-force values, accuracy with clustered standard
errors over epochs, failures as zeros, order independence, usage totals with the judge's calls."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from paperworks.eval.metrics import compute_results, errors_line, format_table, mean_stderr, pass_at_k
from paperworks.eval.records import SampleRecord

# ------------------------------------------------------------------------------------------ pass@k


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (5, 2, 1, 0.4),
    (5, 2, 2, 0.7),      # 1 - C(3,2)/C(5,2) = 1 - 3/10
    (5, 2, 3, 0.9),      # 1 - C(3,3)/C(5,3) = 1 - 1/10
    (5, 2, 4, 1.0),
    (4, 0, 1, 0.0),
    (4, 0, 4, 0.0),
    (3, 3, 1, 1.0),
    (3, 3, 3, 1.0),
    (10, 1, 1, 0.1),
    (10, 3, 5, 1 - 21 / 252),  # C(7,5)=21, C(10,5)=252
    (1, 1, 1, 1.0),
    (1, 0, 1, 0.0),
])
def test_pass_at_k_hand_computed(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def brute_force(n: int, c: int, k: int) -> float:
    """Fraction of the k-subsets of n attempts (the first c correct) that hold a correct one."""
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(i < c for i in s) for s in subsets) / len(subsets)


def test_pass_at_k_matches_brute_force_enumeration() -> None:
    for n in range(1, 9):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(brute_force(n, c, k), abs=1e-12), (n, c, k)


@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_matches_exact_binomials(nck: tuple[int, int, int]) -> None:
    n, c, k = nck
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    value = pass_at_k(n, c, k)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(float(exact), abs=1e-9)


def test_pass_at_k_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="k=4"):
        pass_at_k(3, 1, 4)
    for n, c, k in [(3, 4, 1), (3, -1, 1), (3, 1, 0)]:
        with pytest.raises(ValueError):
            pass_at_k(n, c, k)


# ------------------------------------------------------------------------------------------ mean_stderr

def test_mean_stderr() -> None:
    empty = mean_stderr([])
    assert (empty.value, empty.stderr, empty.n) == (0.0, None, 0)
    one = mean_stderr([0.7])
    assert (one.value, one.stderr, one.n) == (0.7, None, 1)
    three = mean_stderr([1.0, 2.0, 3.0])
    assert three.value == 2.0 and three.n == 3
    assert three.stderr == pytest.approx(1 / math.sqrt(3))


# ------------------------------------------------------------------------------------------ compute_results

JUDGE_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cost": 0.001, "calls": 1}
OWN_USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120, "cost": 0.01, "calls": 2}


def rec(id: str, epoch: int, scores: dict[str, tuple[float, bool | None]] | None, *, time_s: float,
        error_kind: str | None = None) -> SampleRecord:
    """A record: scores as name → (value, passed); judge scores carry the judge's usage."""
    if scores is None:  # failed before scoring
        return SampleRecord(id=id, epoch=epoch, input={}, target=None, status="failed", error="boom",
                            error_kind=error_kind, usage=dict(OWN_USAGE), time_s=time_s)
    out: dict[str, dict[str, Any]] = {}
    for name, (value, passed) in scores.items():
        details = {"usage": dict(JUDGE_USAGE), "grade": "C"} if name == "judge" else {}
        out[name] = {"value": value, "passed": passed, "answer": "a", "explanation": None, "details": details}
    return SampleRecord(id=id, epoch=epoch, input={}, target=1, output={"answer": "a"}, scores=out,
                        usage=dict(OWN_USAGE), time_s=time_s)


def example() -> list[SampleRecord]:
    """Three samples, two epochs. numeric passes: a 2/2, b 1/2, c 0/2 (epoch 1 crashed).
    judge values: a 1, 0.5; b 0, 0; c (crashed), 0.5."""
    return [
        rec("a", 1, {"numeric": (1, True), "judge": (1.0, True)}, time_s=1),
        rec("a", 2, {"numeric": (1, True), "judge": (0.5, False)}, time_s=2),
        rec("b", 1, {"numeric": (1, True), "judge": (0.0, False)}, time_s=3),
        rec("b", 2, {"numeric": (0, False), "judge": (0.0, False)}, time_s=4),
        rec("c", 1, None, time_s=5, error_kind="model_error"),
        rec("c", 2, {"numeric": (0, False), "judge": (0.5, False)}, time_s=6),
    ]


def results_for(records: list[SampleRecord], epochs: int = 2, **kw: Any) -> Any:
    return compute_results(records, suite="arith", model="scripted/x", epochs=epochs, limited=False,
                           elapsed_s=9.0, **kw)


def test_accuracy_and_stderr_clustered_by_sample() -> None:
    r = results_for(example())
    assert r.n_samples == 3 and r.epochs == 2
    acc = r.metrics["numeric/accuracy"]
    # per-sample means 1, 0.5, 0: mean 0.5, sample std 0.5, stderr 0.5 / sqrt(3)
    assert acc["value"] == pytest.approx(0.5) and acc["n"] == 3
    assert acc["stderr"] == pytest.approx(0.5 / math.sqrt(3))
    assert r.metrics["numeric/mean"]["value"] == pytest.approx(0.5)
    # pass@1 = mean of c/n = 0.5; pass@2: a 1, b 1, c 0 → 2/3, stderr sqrt((1/3) / 3) = 1/3
    assert r.metrics["numeric/pass@1"]["value"] == pytest.approx(0.5)
    p2 = r.metrics["numeric/pass@2"]
    assert p2["value"] == pytest.approx(2 / 3) and p2["stderr"] == pytest.approx(1 / 3) and p2["n"] == 3


def test_graded_mean_and_failed_samples_count_as_zero() -> None:
    r = results_for(example())
    # judge per-sample means: a 0.75, b 0, c (0 for the crash + 0.5) / 2 = 0.25
    assert r.metrics["judge/mean"]["value"] == pytest.approx(1 / 3)
    assert r.metrics["judge/accuracy"]["value"] == pytest.approx((0.5 + 0 + 0) / 3)
    # a succeeded record's crash-free twin would not change the others; the crash counts as a 0:
    only_crash = results_for([rec("c", 1, None, time_s=1, error_kind="tool_error"),
                              rec("d", 1, {"numeric": (1, True)}, time_s=1)], epochs=1)
    assert only_crash.metrics["numeric/accuracy"]["value"] == pytest.approx(0.5)
    assert only_crash.metrics["numeric/accuracy"]["n"] == 2


def test_non_succeeded_status_counts_as_zero_even_with_a_score() -> None:
    record = rec("a", 1, {"numeric": (1, True)}, time_s=1)
    record.status = "step_limit"
    r = results_for([record], epochs=1)
    assert r.metrics["numeric/accuracy"]["value"] == 0.0


def test_time_tokens_cost_errors_usage() -> None:
    r = results_for(example())
    t = r.metrics["time_s/mean"]
    assert t["value"] == pytest.approx(3.5) and t["n"] == 6
    assert t["stderr"] == pytest.approx(math.sqrt(3.5) / math.sqrt(6))
    assert r.metrics["tokens/mean"]["value"] == pytest.approx(120) and r.metrics["tokens/mean"]["stderr"] == 0
    assert r.metrics["cost/mean"]["value"] == pytest.approx(0.01)
    assert r.errors == {"model_error": 1}
    # 6 records of own usage + 5 judge scores (the crashed record has none)
    assert r.usage["prompt_tokens"] == 6 * 100 + 5 * 10
    assert r.usage["completion_tokens"] == 6 * 20 + 5 * 5
    assert r.usage["total_tokens"] == 6 * 120 + 5 * 15
    assert r.usage["calls"] == 6 * 2 + 5
    assert r.usage["cost"] == pytest.approx(6 * 0.01 + 5 * 0.001)
    assert r.elapsed_s == 9.0 and r.suite == "arith" and r.model == "scripted/x" and r.limited is False


def test_order_independence() -> None:
    reference = dataclasses.asdict(results_for(example()))
    rng = random.Random(0)
    for _ in range(20):
        shuffled = example()
        rng.shuffle(shuffled)
        assert dataclasses.asdict(results_for(shuffled)) == reference


def test_duplicate_record_counts_once() -> None:
    records = example()
    twice = results_for([*records, rec("a", 1, {"numeric": (1, True), "judge": (1.0, True)}, time_s=1)])
    assert twice.metrics == results_for(records).metrics


def test_pass_at_k_with_missing_epochs_and_explicit_ks() -> None:
    records = [rec("a", 1, {"numeric": (1, True)}, time_s=1)]  # epoch 2 never recorded
    r = results_for(records, epochs=2)
    assert r.metrics["numeric/accuracy"]["value"] == 1.0  # over recorded epochs
    assert r.metrics["numeric/pass@1"]["value"] == pytest.approx(0.5)  # n = epochs
    assert r.metrics["numeric/pass@2"]["value"] == 1.0
    r3 = results_for(example(), epochs=2, ks=[2, 5])
    assert "numeric/pass@2" in r3.metrics and "numeric/pass@5" not in r3.metrics
    assert "numeric/pass@1" not in r3.metrics
    single = results_for([rec("a", 1, {"numeric": (1, True)}, time_s=1)], epochs=1)
    assert [k for k in single.metrics if "pass@" in k] == ["numeric/pass@1"]


def test_scorer_without_pass_notion_gets_mean_only() -> None:
    r = results_for([rec("a", 1, {"quality": (0.8, None)}, time_s=1)], epochs=1)
    assert "quality/mean" in r.metrics and "quality/accuracy" not in r.metrics
    assert not any(k.startswith("quality/pass@") for k in r.metrics)


def test_empty_records() -> None:
    r = results_for([], epochs=1)
    assert r.n_samples == 0 and r.errors == {} and r.usage["calls"] == 0
    assert r.metrics["time_s/mean"]["n"] == 0


def test_format_table_and_errors_line() -> None:
    r = results_for(example())
    r.limited = True
    console = Console(record=True, width=160)
    console.print(format_table(r))
    text = console.export_text()
    assert "numeric/accuracy" in text and "0.500" in text and "0.289" in text
    assert "numeric/pass@2" in text and "0.667" in text
    assert "errors: 1 (model_error 1)" in text and "testing only" in text
    assert errors_line(results_for([], epochs=1)) == "errors: none"


def test_scorer_sub_metrics_are_averaged() -> None:
    from paperworks.eval.metrics import compute_results
    from paperworks.eval.records import SampleRecord

    recs = [SampleRecord(id=f"s{i}", epoch=1, input={}, target=None,
                         scores={"spada": {"value": 1.0, "passed": True,
                                           "details": {"metrics": {"invalid": float(i == 0), "iterations": i + 1}}}})
            for i in range(4)]
    res = compute_results(recs, suite="x", model="m", epochs=1, limited=False, elapsed_s=0.0)
    assert res.metrics["spada/invalid"]["value"] == 0.25 and res.metrics["spada/iterations"]["value"] == 2.5
    assert res.metrics["spada/accuracy"]["value"] == 1.0
