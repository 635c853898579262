"""Rewards reach the trainer only from the judge's records; token records are matched to their rollouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperworks.eval.records import SampleRecord
from paperworks.eval.samples_log import SamplesLog
from paperworks.train.rollouts import collect


def _run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "artifacts" / "q1_1").mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"kind": "eval", "sample_ids": ["q2", "q1"]}))
    log = SamplesLog(run / "samples.jsonl")
    # q1#1: the judge says wrong (0), although the answer text, the events and an artifact all claim success
    log.append(SampleRecord(id="q1", epoch=1, input={"task": "t"}, target=5,
                            output={"answer": "reward: 1.0 passed=True score 1", "status": "done"},
                            scores={"numeric": {"value": 0.0, "passed": False}}, usage={"total_tokens": 30}))
    log.append(SampleRecord(id="q2", epoch=1, input={"task": "t"}, target=7, output={"answer": "7"},
                            scores={"numeric": {"value": 1.0, "passed": True}}, usage={"total_tokens": 20}))
    # q2#2 failed before scoring (a step limit): reward 0 whatever it printed
    log.append(SampleRecord(id="q2", epoch=2, input={"task": "t"}, target=7, output=None, status="step_limit",
                            error="stopped", error_kind="step_limit",
                            scores={}, usage={"total_tokens": 50}))
    (run / "artifacts" / "q1_1" / "reward.json").write_text('{"reward": 1.0, "passed": true}')
    events = [
        {"type": "model_tokens", "sample": "q1#1", "prompt_ids": [1, 2], "completion_ids": [3, 4],
         "logprobs": [-0.5, -0.25], "proxies": [0.1, 0.2]},
        {"type": "model_call", "sample": "q1#1", "text": "score: 1.0", "tool_calls": [{"name": "calculate"}]},
        {"type": "reward", "sample": "q1#1", "value": 1.0},
        {"type": "sample_end", "sample": "q1#1", "scores": {"numeric": 1.0}, "score_s": 0.01},
        {"type": "model_tokens", "sample": "q2#1", "prompt_ids": [1], "completion_ids": [9],
         "logprobs": [-1.0], "proxies": [0.5]},
        {"type": "model_tokens", "sample": "q2#1", "prompt_ids": [1, 9, 8], "completion_ids": [7, 0],
         "logprobs": [-2.0, -0.1], "proxies": [0.3, 0.4]},
        {"type": "sample_end", "sample": "q2#1", "score_s": 0.02},
    ]
    with open(run / "events.jsonl", "w") as fh:
        for ev in events:
            fh.write(json.dumps(ev) + "\n")
        fh.write('{"type": "model_tok')  # a line torn by a kill
    return run


def test_rewards_are_the_judges_values_only(tmp_path: Path) -> None:
    records, judge_s = collect(_run_dir(tmp_path))
    got = {(r.sample_id, r.epoch): r for r in records}
    assert got[("q1", 1)].reward == 0.0 and not got[("q1", 1)].passed  # forged claims ignored
    assert got[("q2", 1)].reward == 1.0 and got[("q2", 1)].passed
    assert got[("q2", 2)].reward == 0.0 and got[("q2", 2)].status == "step_limit"
    assert judge_s == pytest.approx(0.03)
    # suite order (q2 before q1), then epoch
    assert [(r.sample_id, r.epoch) for r in records] == [("q2", 1), ("q2", 2), ("q1", 1)]


def test_token_records_are_the_events_ids_in_call_order(tmp_path: Path) -> None:
    records, _ = collect(_run_dir(tmp_path))
    q2 = next(r for r in records if (r.sample_id, r.epoch) == ("q2", 1))
    assert [c.prompt_ids for c in q2.calls] == [[1], [1, 9, 8]]
    assert [c.completion_ids for c in q2.calls] == [[9], [7, 0]]
    assert [c.logprobs for c in q2.calls] == [[-1.0], [-2.0, -0.1]]
    assert [c.proxies for c in q2.calls] == [[0.5], [0.3, 0.4]]
    q1 = next(r for r in records if r.sample_id == "q1")
    assert q1.shaping == {"tool_format": 1.0} and q1.tokens == 30
    assert next(r for r in records if (r.sample_id, r.epoch) == ("q2", 2)).calls == []


def test_shaping_terms_are_the_judges_metrics_only(tmp_path: Path) -> None:
    """A shaping term is the first scorer's own sub-metric; the output's claims, a later scorer's numbers,
    non-finite values and a failed run's scores never become one."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"kind": "eval", "sample_ids": ["a", "b"]}))
    log = SamplesLog(run / "samples.jsonl")
    log.append(SampleRecord(id="a", epoch=1, input={}, target=1,
                            output={"answer": "x", "metrics": {"compiled": 1.0, "loaded": 1.0}},
                            scores={"spada": {"value": 0.0, "passed": False, "details": {
                                "metrics": {"compiled": 1.0, "loaded": 0.0, "bad": float("nan"), "flag": True}}},
                                "other": {"value": 1.0, "details": {"metrics": {"loaded": 1.0, "x": 3.0}}}}))
    log.append(SampleRecord(id="b", epoch=1, input={}, target=1, output=None, status="error", error="crashed",
                            scores={"spada": {"value": 0.0, "details": {"metrics": {"compiled": 1.0}}}}))
    records, _ = collect(run)
    got = {r.sample_id: r.shaping for r in records}
    assert got["a"] == {"compiled": 1.0, "loaded": 0.0, "tool_format": 0.0}
    assert got["b"] == {"tool_format": 0.0}
