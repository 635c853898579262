"""The determinism benchmark's comparison: transcripts read from events.jsonl in call order, a sample counts
as identical only when every reply (text and tool calls) matches, and the first differing call is named."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "eval_determinism.py"
spec = importlib.util.spec_from_file_location("eval_determinism", PATH)
assert spec and spec.loader
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def _events(folder: Path, calls: list[tuple[str, str, list[dict]]], asked: list[str] | None = None) -> Path:
    folder.mkdir()
    lines: list[dict[str, object]] = [{"type": "sample_start", "sample": s} for s in sorted({c[0] for c in calls})]
    lines += [{"type": "model_call", "sample": s, "text": t, "tool_calls": tc,
               "prompt": asked[i] if asked else None} for i, (s, t, tc) in enumerate(calls)]
    (folder / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def test_transcripts_keep_call_order_and_tool_arguments(tmp_path: Path) -> None:
    run = _events(tmp_path / "a", [("s1", "", [{"name": "calculate", "arguments": {"expression": "1+1"}}]),
                                   ("s2", "hi", []), ("s1", "2", [])])
    got = bench.transcripts(run)
    assert list(got) == ["s1", "s2"] and len(got["s1"]) == 2
    assert "1+1" in got["s1"][0] and '"2"' in got["s1"][1]


def test_compare_counts_samples_and_calls_and_names_the_first_difference(tmp_path: Path) -> None:
    a = {"s1": ["x", "y", "z"], "s2": ["p"], "s3": ["q", "r"]}
    b = {"s1": ["x", "Y", "z"], "s2": ["p"], "s3": ["q"]}
    got = bench.compare(a, b)
    assert got["samples"] == 3 and got["identical_samples"] == 1 and got["identical_sample_share"] == round(1 / 3, 4)
    assert got["calls_compared"] == 5 and got["identical_calls"] == 4
    assert got["first_differing_call"] == {"s1": 1, "s3": 1}
    assert bench.compare(a, a)["identical_sample_share"] == 1.0
    # a tool-argument difference alone makes the call differ
    run_a = _events(tmp_path / "ta", [("s", "", [{"name": "calculate", "arguments": {"expression": "2*3"}}])])
    run_b = _events(tmp_path / "tb", [("s", "", [{"name": "calculate", "arguments": {"expression": "2*4"}}])])
    assert bench.compare(bench.transcripts(run_a), bench.transcripts(run_b))["identical_samples"] == 0


def test_accuracy_reads_the_scorers_accuracy_metric(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({"metrics": {"numeric/mean": {"value": 0.9},
                                                                   "numeric/accuracy": {"value": 0.25}}}))
    assert bench.accuracy(tmp_path) == 0.25
    (tmp_path / "results.json").write_text(json.dumps({"metrics": {}}))
    assert bench.accuracy(tmp_path) is None


def test_a_first_difference_is_told_apart_by_its_prompt(tmp_path: Path) -> None:
    # s1: call 1 asked the same thing and got another reply (the engine); s2: call 1 was asked something else
    # (the workflow's feedback changed), and its reply differs as a consequence, not as engine noise.
    run_a = _events(tmp_path / "a", [("s1", "x", []), ("s1", "y", []), ("s2", "p", []), ("s2", "q", [])],
                    ["prompts/1", "prompts/2", "prompts/3", "prompts/4"])
    run_b = _events(tmp_path / "b", [("s1", "x", []), ("s1", "Y", []), ("s2", "p", []), ("s2", "Q", [])],
                    ["prompts/1", "prompts/2", "prompts/3", "prompts/4b"])
    got = bench.compare(bench.transcripts(run_a), bench.transcripts(run_b), bench.prompts(run_a),
                        bench.prompts(run_b))
    assert got["first_differing_call"] == {"s1": 1, "s2": 1}
    assert got["first_difference_kind"] == {"s1": "same_prompt", "s2": "prompt_differs"}
    assert got["same_prompt_calls"] == 3 and got["same_prompt_different_reply"] == 1
    # a prompt the log did not record (None) never counts as the same prompt
    run_c = _events(tmp_path / "c", [("s1", "x", []), ("s1", "Y", [])])
    run_d = _events(tmp_path / "d", [("s1", "x", []), ("s1", "y", [])])
    blind = bench.compare(bench.transcripts(run_c), bench.transcripts(run_d), bench.prompts(run_c),
                          bench.prompts(run_d))
    assert blind["first_difference_kind"] == {"s1": "prompt_differs"} and blind["same_prompt_calls"] == 0
    # one eval made fewer calls than the other
    run_e = _events(tmp_path / "e", [("s1", "x", [])], ["prompts/1"])
    short = bench.compare(bench.transcripts(run_a), bench.transcripts(run_e), bench.prompts(run_a),
                          bench.prompts(run_e))
    assert short["first_difference_kind"]["s1"] == "call_count_differs"
