"""``paperworks rejump RUN_DIR`` on a recorded eval (scripted agent, scripted extractor), ``paperworks view``
showing the result, bad input, and ``paperworks repro rejump --quick``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from paperworks.core.runs import RunDir
from paperworks.eval import harness
from tests.cli.test_runs_view import run_cli
from tests.eval.test_harness import make_suite

AGENT = {"replies": [
    {"text": "let me compute", "tool_calls": [{"name": "calculate", "arguments": {"expression": "17*23"}}]},
    "The answer is 391."], "repeat_last": True}
TREE = {"node1": {"Problem": "What is 17*23?", "parent": "none", "Result": None},
        "node2": {"Problem": "17*20 + 17*3", "parent": "node1", "Result": None},
        "node3": {"Problem": "340 + 51", "parent": "node2", "Result": "391"},
        "node4": {"Problem": "17*23 by the calculator", "parent": "node1", "Result": "391"}}
WALK = [{"from": "node1", "to": "node4", "category": "calculation/derivation"},
        {"from": "node4", "to": "node1", "category": "verification"},
        {"from": "node1", "to": "node4", "category": "verification"}]


def recorded_eval(tmp: Path) -> RunDir:
    agent = tmp / "agent.json"
    agent.write_text(json.dumps(AGENT))
    rows = [{"id": "q1", "question": "What is 17*23?", "answer": 391}]
    run = harness.create_eval(harness.EvalArgs(suite=str(make_suite(tmp, rows)), model=f"scripted/{agent}"))
    asyncio.run(harness.run_eval(run))
    return run


def extractor(tmp: Path, tree_reply: str, walk_reply: str) -> str:
    path = tmp / "extractor.json"
    path.write_text(json.dumps({"replies": [{"text": tree_reply, "when": "convert the reasoning into a reasoning"},
                                            {"text": walk_reply, "when": "give the walk"}]}))
    return f"scripted/{path}"


def test_rejump_analyses_a_recorded_eval_and_view_shows_it(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    run = recorded_eval(tmp_path)
    model = extractor(tmp_path, "```json\n" + json.dumps(TREE) + "\n```", json.dumps(WALK))
    code, out, err = run_cli(capsys, "rejump", str(run.path), "--model", model, "--svg")
    assert code == 0, err
    assert "LiteLLM" not in err and "Traceback" not in err
    doc = json.loads((run.path / "rejump.json").read_text())
    assert doc["model"] == model and doc["summary"]["valid"] == 1 and doc["summary"]["validity_rate"] == 1.0
    (sample,) = doc["samples"]
    m = sample["metrics"]
    assert sample["key"] == "q1#1" and sample["task"] == "math"
    # leaves node3 (never visited) and node4; node4's second visit came only by verification
    assert m["solution_count"] == 2 and m["filtered_leaves"] == ["node4"] and m["jump_distance"] == 0.0
    assert m["success_rate"] == 1.0 and m["overthinking"] == 0.0  # judged against the sample's target 391
    assert m["verification_rate"] == pytest.approx(2 / 3) and m["forgetting"] == 0
    assert (run.path / sample["png"]).read_bytes()[:4] == b"\x89PNG"
    assert (run.path / "rejump" / "q1_1.svg").is_file()
    assert "valid extractions: 1/1" in out
    code, out, _ = run_cli(capsys, "view", str(run.path), "-q")
    assert code == 0 and "ReJump (extractor" in out and "rejump/q1_1.png" in out
    assert "0.667" in out  # the verification rate
    assert "ReJump tree" in (run.path / "report.html").read_text()


def test_rejump_records_a_malformed_extraction_and_fails(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    run = recorded_eval(tmp_path)
    model = extractor(tmp_path, "I would rather not.", "[]")
    code, out, _ = run_cli(capsys, "rejump", str(run.path), "--model", model)
    assert code == 1
    (sample,) = json.loads((run.path / "rejump.json").read_text())["samples"]
    assert sample["ok"] is False
    assert sample["error"] == "extractor tree reply: no JSON object found (reply began: 'I would rather not.')"
    assert "valid extractions: 0/1" in out


def test_rejump_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "rejump", str(tmp_path), "--task", "chess")
    assert code == 1 and err.strip() == "error: --task must be one of auto, math, game24, sudoku, got 'chess'"
    code, _, err = run_cli(capsys, "rejump", str(tmp_path / "nowhere"))
    assert code == 1 and err.strip().startswith("error: no run '") and err.strip().count("\n") == 0
    code, _, err = run_cli(capsys, "rejump", str(tmp_path), "--limit", "0")
    assert code == 1 and err.strip() == "error: --limit must be at least 1, got 0"


@pytest.mark.slow
def test_repro_quick_writes_figures_and_plots(tmp_path: Path) -> None:
    from paperworks.backends.repro import run_repro

    res, path = run_repro("rejump", tmp_path / "out", quick=True)
    data = json.loads(path.read_text())
    figs = data["figures"]
    assert figs["handwritten_jump_distance_explorer_vs_linear"]["value"] == "6.00 vs 0.00"
    assert figs["handwritten_overthinking"]["value"] == 0.75
    assert figs["handwritten_forgetting"]["value"] == "1 vs 0"
    assert data["extra"]["styles"]["linear"]["jump distance"] == 0.0
    assert data["extra"]["styles"]["explorer (restarts)"]["jump distance"] > data["extra"]["styles"][
        "local backtracking"]["jump distance"]
    assert figs["embedded_extraction_validity"]["value"] is None
    assert (data["config"]["reported_seeds"], data["config"]["validation_seeds"]) == ([0, 1], [100])
    bon = data["extra"]["best_of_n"]
    assert sorted(bon["per_seed"]) == ["0", "1"] and sorted(bon["per_validation_seed"]) == ["100"]
    assert "±" in figs["best_of_4_jump_distance_vs_random"]["value"]
    assert "Best-of-N selection" in {d["metric"] for d in data["extra"]["definition_differences"]}
    groups = data["extra"]["real_traces"]["groups"]
    assert groups["pass"]["samples"] + groups["fail"]["samples"] == 20
    for name in res.plots:
        assert (tmp_path / "out" / name).read_bytes()[:4] == b"\x89PNG"
