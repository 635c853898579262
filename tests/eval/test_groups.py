"""Metrics per group (suite.yaml ``group_by``): hand-computed accuracy and pass@k per level and per tool
over two epochs, list-valued fields, the key format, and how the terminal table, ``paperworks view``, the
HTML report and ``paperworks compare`` show them."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from paperworks.eval.compare import compare_runs
from paperworks.eval.groups import group_key, group_tables, labels_of, metric_order, parse_group_key
from paperworks.eval.metrics import compute_results, format_table
from paperworks.eval.records import Results, SampleRecord
from paperworks.eval.view import load_run, summary, write_report
from tests.eval.test_view import write_run


def rec(sid: str, epoch: int, passed: bool | None, **metadata: Any) -> SampleRecord:
    """A (sample, epoch) record scored by ``match``; ``passed=None``: it failed before scoring."""
    if passed is None:
        return SampleRecord(id=sid, epoch=epoch, input={}, target="x", status="failed", error="boom",
                            error_kind="model_error", metadata=metadata)
    score = {"value": float(passed), "passed": passed, "answer": "x", "explanation": None, "details": {}}
    return SampleRecord(id=sid, epoch=epoch, input={}, target="x", output={"answer": "x"},
                        scores={"match": score}, metadata=metadata)


def records() -> list[SampleRecord]:
    """Six samples, two epochs (passes per sample: a 2/2, b 1/2, c 0/2 with a crash, d 1/2, e 1 of the one
    epoch recorded, f 1/2). Level 10 sorts after 2; f has no level; d lists no tool; e lists ocr twice."""
    return [
        rec("a", 1, True, level=1, tools=["ocr", "translate"]), rec("a", 2, True, level=1, tools=["ocr", "translate"]),
        rec("b", 1, True, level=1, tools=["ocr"]), rec("b", 2, False, level=1, tools=["ocr"]),
        rec("c", 1, None, level=2, tools=["archive_search"]), rec("c", 2, False, level=2, tools=["archive_search"]),
        rec("d", 1, False, level=2, tools=[]), rec("d", 2, True, level=2, tools=[]),
        rec("e", 1, True, level=10, tools=["ocr", "ocr", "archive_search"]),
        rec("f", 1, True, tools="translate"), rec("f", 2, False, tools="translate"),
    ]


def grouped(group_by: list[str] | None = None, recs: list[SampleRecord] | None = None) -> Results:
    return compute_results(recs if recs is not None else records(), suite="hist_offline", model="scripted/x",
                           epochs=2, limited=False, elapsed_s=1.0, group_by=group_by or ["level", "tools"])


# per group: (accuracy, its stderr, pass@1, pass@2, n); hand-computed from the per-sample values
#   accuracy (mean over recorded epochs): a 1, b .5, c 0, d .5, e 1, f .5
#   pass@1 (n = 2 epochs, a missing one fails): a 1, b .5, c 0, d .5, e .5, f .5
#   pass@2: a 1, b 1, c 0, d 1, e 1, f 1
EXPECTED = {
    ("level", "1"): (0.75, 0.25, 0.75, 1.0, 2),            # a, b
    ("level", "2"): (0.25, 0.25, 0.25, 0.5, 2),            # c, d
    ("level", "10"): (1.0, None, 0.5, 1.0, 1),             # e
    ("tools", "archive_search"): (0.5, 0.5, 0.25, 0.5, 2),  # c, e
    ("tools", "ocr"): (5 / 6, 1 / 6, 2 / 3, 1.0, 3),        # a, b, e (e once, though it lists ocr twice)
    ("tools", "translate"): (0.75, 0.25, 0.75, 1.0, 2),     # a, f (a scalar value is a one-value list)
}


def test_accuracy_and_pass_at_k_per_level_and_per_tool() -> None:
    m = grouped().metrics
    for (field, label), (acc, se, p1, p2, n) in EXPECTED.items():
        a = m[f"match/accuracy[{field}={label}]"]
        assert a["value"] == pytest.approx(acc) and a["n"] == n, (field, label)
        assert (a["stderr"] is None) if se is None else a["stderr"] == pytest.approx(se), (field, label, a)
        assert m[f"match/pass@1[{field}={label}]"]["value"] == pytest.approx(p1), (field, label)
        assert m[f"match/pass@2[{field}={label}]"]["value"] == pytest.approx(p2), (field, label)
        assert m[f"match/pass@2[{field}={label}]"]["n"] == n
    # level 2's pass@2 per sample: c 0, d 1 → stderr sqrt(0.5 / 2)
    assert m["match/pass@2[level=2]"]["stderr"] == pytest.approx(math.sqrt(0.5 / 2))
    groups = [k for k in m if "[" in k]
    assert len(groups) == 3 * len(EXPECTED)  # f (no level) and d (no tool) add no group of their own
    assert not any("mean[" in k for k in groups)  # the graded figures only


def test_group_keys_come_after_the_unchanged_overall_metrics_in_order() -> None:
    with_groups = grouped().metrics
    without = compute_results(records(), suite="hist_offline", model="scripted/x", epochs=2, limited=False,
                              elapsed_s=1.0).metrics
    assert {k: v for k, v in with_groups.items() if "[" not in k} == without
    assert list(with_groups)[: len(without)] == list(without)
    keys = [k for k in with_groups if "[" in k]
    assert keys[:3] == ["match/accuracy[level=1]", "match/pass@1[level=1]", "match/pass@2[level=1]"]
    order = list(dict.fromkeys(parse_group_key(k)[1:] for k in keys))  # type: ignore[index]
    assert order == [("level", "1"), ("level", "2"), ("level", "10"), ("tools", "archive_search"),
                     ("tools", "ocr"), ("tools", "translate")]
    assert without["match/pass@2"]["value"] == pytest.approx(5 / 6)  # a, b, d, e, f of six


def test_groups_are_order_independent_and_skip_ungraded_scorers() -> None:
    shuffled = list(reversed(records()))
    assert grouped(recs=shuffled).metrics == grouped().metrics
    quality = SampleRecord(id="q", epoch=1, input={}, target=None, metadata={"level": 1},
                           scores={"quality": {"value": 0.8, "passed": None}})
    r = compute_results([quality], suite="s", model="m", epochs=1, limited=False, elapsed_s=0, group_by=["level"])
    assert not any("[" in k for k in r.metrics)
    assert compute_results([], suite="s", model="m", epochs=2, limited=False, elapsed_s=0,
                           group_by=["level"]).metrics["time_s/mean"]["n"] == 0


def test_group_labels_and_keys() -> None:
    assert labels_of(2) == ["2"] and labels_of("ocr") == ["ocr"] and labels_of(True) == ["true"]
    assert labels_of(["ocr", "ocr", "archive_search"]) == ["ocr", "archive_search"]
    assert labels_of(None) == [] and labels_of([]) == [] and labels_of([None, 1.5]) == ["1.5"]
    key = group_key("match/pass@2", "tools", "a]b=c")
    assert key == "match/pass@2[tools=a]b=c]" and parse_group_key(key) == ("match/pass@2", "tools", "a]b=c")
    assert parse_group_key("match/accuracy") is None
    names = ["match/pass@1[level=10]", "match/accuracy", "match/accuracy[level=2]", "cost/mean"]
    assert sorted(names, key=metric_order) == ["cost/mean", "match/accuracy", "match/accuracy[level=2]",
                                               "match/pass@1[level=10]"]


def test_results_json_shape() -> None:
    data = json.loads(json.dumps(asdict(grouped())))
    assert data["metrics"]["match/accuracy[level=1]"] == {"value": 0.75, "stderr": 0.25, "n": 2}
    assert set(data) == {"suite", "model", "n_samples", "epochs", "metrics", "errors", "usage", "elapsed_s",
                         "limited"}


def render(renderable: Any) -> str:
    console = Console(record=True, width=200)
    console.print(renderable)
    return console.export_text()


def test_terminal_table_has_one_table_per_group_field() -> None:
    r = grouped()
    text = render(format_table(r))
    assert "by level" in text and "by tools" in text
    tables = group_tables(r.metrics)
    assert [t[0] for t in tables] == ["level", "tools"]
    field, header, rows = tables[0]
    assert header == ["level", "n", "match/accuracy", "match/pass@1", "match/pass@2"]
    assert rows == [["1", "2", "0.750 ± 0.250", "0.750 ± 0.250", "1.000 ± 0.000"],
                    ["2", "2", "0.250 ± 0.250", "0.250 ± 0.250", "0.500 ± 0.500"],
                    ["10", "1", "1.000", "0.500", "1.000"]]
    assert "0.833 ± 0.167" in text  # tools=ocr accuracy
    main = text.split("by level")[0]
    assert "match/accuracy" in main and "[level=" not in main  # the overall table stays as it was
    plain = compute_results(records(), suite="s", model="m", epochs=2, limited=False, elapsed_s=0)
    assert "by level" not in render(format_table(plain))


def test_view_summary_and_report_show_the_group_tables(tmp_path: Path) -> None:
    path = write_run(tmp_path / "run", records(), grouped(), record={"epochs": 2})
    run = load_run(path)
    text = render(summary(run))
    assert "metrics by level" in text and "metrics by tools" in text and "0.833 ± 0.167" in text
    assert "[level=" not in text
    html = write_report(run).read_text(encoding="utf-8")
    assert "<h2>Metrics by level</h2>" in html and "<h2>Metrics by tools</h2>" in html
    assert "<td>archive_search</td>" in html and "0.500 ± 0.500" in html


def test_compare_pairs_the_samples_of_each_group(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", records(), grouped(), record={"epochs": 2})
    flipped = [rec("c", r.epoch, True, **r.metadata) if r.id == "c" else r for r in records()]
    b = write_run(tmp_path / "b", flipped, grouped(recs=flipped), record={"epochs": 2})
    comp = compare_runs(a, b)
    by_name = {m.name: m for m in comp.metrics}
    lvl2 = by_name["match/accuracy[level=2]"]  # c: 0 → 1, d unchanged
    assert (lvl2.a, lvl2.b, lvl2.delta) == pytest.approx((0.25, 0.75, 0.5))
    assert lvl2.stderr_kind == "paired" and lvl2.n_paired == 2 and lvl2.stderr == pytest.approx(0.5)
    assert by_name["match/accuracy[level=1]"].delta == 0 and by_name["match/accuracy[level=1]"].stderr == 0
    tools = by_name["match/pass@2[tools=archive_search]"]  # c, e: c 0 → 1
    assert tools.stderr_kind == "paired" and tools.delta == pytest.approx(0.5)
    names = [m.name for m in comp.metrics]
    assert names.index("time_s/mean") < names.index("match/accuracy[level=1]")  # overall first
    assert not comp.warnings
