"""``paperworks.eval.compare``: metric deltas with their stderr, flipped samples, warnings, errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from rich.console import Console

from paperworks.core.errors import UserError
from paperworks.eval.compare import compare_runs, paired_stderr, print_comparison
from paperworks.eval.records import Results
from tests.eval.test_view import make_sample, results_for, write_run


def run_with(path: Path, passing: set[int], n: int, **record: object) -> Path:
    samples = [make_sample(f"s{i:03d}", passed=i in passing) for i in range(n)]
    return write_run(path, samples, results_for(samples), record=dict(record))


def test_delta_with_paired_stderr(tmp_path: Path) -> None:
    a = run_with(tmp_path / "a", set(range(0, 6)), 10)
    b = run_with(tmp_path / "b", set(range(2, 10)), 10)
    c = compare_runs(a, b)
    acc = {m.name: m for m in c.metrics}["numeric/accuracy"]
    assert (acc.a, acc.b) == pytest.approx((0.6, 0.8)) and acc.delta == pytest.approx(0.2)
    # differences: -1, -1, 0 x4, +1 x4 → mean 0.2, sample variance 5.6 / 9
    assert acc.stderr_kind == "paired" and acc.n_paired == 10
    assert acc.stderr == pytest.approx(math.sqrt(5.6 / 9 / 10))
    assert not acc.significant
    assert c.warnings == []
    flips = c.flips["numeric"]
    assert flips.pass_to_fail == ["s000", "s001"] and flips.fail_to_pass == ["s006", "s007", "s008", "s009"]
    assert flips.compared == 10


def test_significant_delta_is_flagged(tmp_path: Path) -> None:
    c = compare_runs(run_with(tmp_path / "a", set(range(50)), 100), run_with(tmp_path / "b", set(range(80)), 100))
    acc = c.metrics[0]
    assert acc.name == "numeric/accuracy" and acc.stderr_kind == "paired"
    assert acc.stderr == pytest.approx(math.sqrt((30 * 0.49 + 70 * 0.09) / 99 / 100))
    assert acc.significant and c.to_dict()["metrics"][0]["significant"] is True
    json.dumps(c.to_dict())


def test_independent_stderr_when_the_samples_differ(tmp_path: Path) -> None:
    a = run_with(tmp_path / "a", set(range(6)), 10)
    b = run_with(tmp_path / "b", set(range(8)), 12)  # two more samples: not paired
    c = compare_runs(a, b)
    acc = c.metrics[0]
    assert acc.stderr_kind == "independent"
    se_a, se_b = math.sqrt(0.6 * 0.4 / 9), math.sqrt((8 / 12) * (4 / 12) / 11)
    assert acc.stderr == pytest.approx(math.sqrt(se_a**2 + se_b**2))
    assert any("sample sets differ: 0 only in A, 2 only in B, 10 in both" in w for w in c.warnings)
    assert c.flips["numeric"].compared == 10 and c.flips["numeric"].fail_to_pass == ["s006", "s007"]


def test_flips_use_the_mean_over_epochs(tmp_path: Path) -> None:
    def run(path: Path, outcomes: dict[str, list[bool | None]]) -> Path:
        samples = [make_sample(sid, epoch=e + 1, passed=p) for sid, ps in outcomes.items() for e, p in enumerate(ps)]
        res = Results(suite="arith", model="mock/m", n_samples=len(outcomes), epochs=2,
                      metrics={"numeric/pass@2": {"value": 0.5, "stderr": 0.1, "n": 4},
                               "numeric/pass@3": {"value": 0.5, "stderr": 0.1, "n": 4}})
        return write_run(path, samples, res, record={"epochs": 2})

    a = run(tmp_path / "a", {"x": [True, False], "y": [False, False], "z": [True, True], "w": [True, None]})
    b = run(tmp_path / "b", {"x": [False, False], "y": [True, False], "z": [True, False], "w": [None, None]})
    c = compare_runs(a, b)
    f = c.flips["numeric"]
    assert f.pass_to_fail == ["w", "x"] and f.fail_to_pass == ["y"]  # z: 1.0 → 0.5 still passes
    p2, p3 = c.metrics
    # per-sample pass@2 (n=2): A x 1, y 0, z 1, w 1; B x 0, y 1, z 1, w 0 → differences -1, +1, 0, -1
    assert p2.name == "numeric/pass@2" and p2.stderr_kind == "paired" and p2.n_paired == 4
    assert p2.stderr == pytest.approx(math.sqrt((2 * 0.75**2 + 1.25**2 + 0.25**2) / 3 / 4))
    # k above the epochs: no per-sample estimate, so the independent stderr
    assert p3.stderr_kind == "independent" and p3.stderr == pytest.approx(math.sqrt(0.02)) and p3.delta == 0


def test_warnings_for_different_suites_and_versions(tmp_path: Path) -> None:
    a = run_with(tmp_path / "a", {0}, 3)
    b = run_with(tmp_path / "b", {0}, 3, suite="gaia")
    c = compare_runs(a, b)
    assert any("suites differ" in w and "'gaia'" in w for w in c.warnings)
    v2 = run_with(tmp_path / "v2", {0}, 3, suite_version="2", args={"limit": 3})
    warnings = compare_runs(a, v2).warnings
    assert any("suite versions differ: A is '1', B is '2'" in w for w in warnings)
    assert any("testing only" in w for w in warnings)


def test_metrics_in_one_run_only_are_named(tmp_path: Path) -> None:
    a = run_with(tmp_path / "a", {0, 1}, 4)
    b = run_with(tmp_path / "b", {0}, 4)
    res = json.loads((b / "results.json").read_text())
    res["metrics"]["judge/mean"] = {"value": 3.0, "stderr": 0.5, "n": 4}
    (b / "results.json").write_text(json.dumps(res))
    c = compare_runs(a, b)
    assert [m.name for m in c.metrics] == ["numeric/accuracy", "time_s/mean"]
    assert any("only one run" in w and "judge/mean" in w for w in c.warnings)
    time_mean = c.metrics[1]
    assert time_mean.stderr_kind == "paired" and time_mean.stderr == 0 and not time_mean.significant


def test_errors_are_one_line_user_errors(tmp_path: Path) -> None:
    good = run_with(tmp_path / "a", {0}, 2)
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="not a run directory") as exc:
        compare_runs(good, tmp_path / "empty")
    assert "\n" not in str(exc.value)
    with pytest.raises(UserError, match="not a run directory"):
        compare_runs(tmp_path / "missing", good)
    unfinished = write_run(tmp_path / "u", [make_sample("s000")])
    with pytest.raises(UserError, match=r"run B .*no results.json"):
        compare_runs(good, unfinished)


def test_print_comparison(tmp_path: Path) -> None:
    many = set(range(50))
    c = compare_runs(run_with(tmp_path / "a", many, 100), run_with(tmp_path / "b", set(range(80)) - {3}, 100,
                                                                    suite="[red]x"))
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    print_comparison(c, console)
    text = console.export_text()
    assert "numeric/accuracy" in text and "+0.290" in text and "paired (n=100)" in text and "*" in text
    assert "warning: the suites differ" in text and "[red]x" in text
    assert "1: s003" in text and "30: s050, s051" in text and "… and 10 more" in text


def test_paired_stderr_needs_the_same_ids() -> None:
    assert paired_stderr({"a": 1.0, "b": 0.0}, {"a": 1.0}) is None
    assert paired_stderr({"a": 1.0}, {"a": 0.0}) is None
    assert paired_stderr({"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 0.0}) == pytest.approx(0.5)

