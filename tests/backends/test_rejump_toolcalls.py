"""The deterministic tool-call extractor (each calculator call a node) and the seeded Best-of-N split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperworks.backends.rejump import experiments, tasks
from paperworks.backends.rejump.metrics import compute_metrics
from paperworks.backends.rejump.toolcalls import calls_from_run, rejump_from_calls
from paperworks.backends.rejump.tree import BACK, CALC, VERIFY
from paperworks.core.errors import UserError

CALLS = [{"expression": "2*8.65", "result": "173/10 ≈ 17.3"}, {"expression": "100-17.3", "result": "82.7"},
         {"expression": "3*4", "result": "12"}, {"expression": "2*8.65", "result": "17.3"}]


def test_calls_become_a_tree_and_walk_by_hand() -> None:
    """Call 1 uses no earlier result: node2 under the root (calc node1→node2). Call 2 uses 17.3, call 1's
    result: node3 under node2 (calc node2→node3). Call 3 uses neither 17.3 nor 82.7: a new attempt, node4
    under the root, reached by backtracking node3→node1 then calc node1→node4. Call 4 repeats call 1 under
    the same parent: no new node, a verification step node4→node2.
    Visits [1, 2, 3, 1, 4, 2]; leaves node3 (depth 2), node4 (depth 1); filtered [node3, node4]; jump
    2 + 1 − 0 = 3. Target 82.7: node3 correct, node4 not → success 1/2, overthinking 1/2. Verification
    rate 1/5; calculation steps 3 < 4 nodes → forgetting 0."""
    rj = rejump_from_calls("problem", CALLS)
    assert {n.id: n.parent for n in rj.nodes.values()} == {"node1": None, "node2": "node1", "node3": "node2",
                                                           "node4": "node1"}
    assert [(s.src, s.dst, s.category) for s in rj.walk] == [
        ("node1", "node2", CALC), ("node2", "node3", CALC), ("node3", "node1", BACK), ("node1", "node4", CALC),
        ("node4", "node2", VERIFY)]
    m = compute_metrics(rj, tasks.judge_answer(82.7))
    assert m.jump_distance == 3.0
    assert (m.success_rate, m.overthinking, m.forgetting) == (0.5, 0.5, 0)
    assert m.verification_rate == pytest.approx(0.2)


def test_single_call_has_no_jump() -> None:
    """One call: root → node2, one leaf, jump distance 0."""
    m = compute_metrics(rejump_from_calls("p", CALLS[:1]))
    assert (m.solution_count, m.jump_distance) == (1, 0.0)


def test_calls_from_run_reads_events_and_scores(tmp_path: Path) -> None:
    events = [{"type": "tool_call", "sample": "a-1#1", "tool": "calculate", "arguments": {"expression": "2*3"},
               "ok": True, "observation": "6"},
              {"type": "tool_call", "sample": "a-1#1", "tool": "calculate", "arguments": {"expression": "x"},
               "ok": False, "observation": "error"},
              {"type": "model_call", "sample": "a-1#1", "text": "6"}]
    samples = [{"id": "a-1", "epoch": 1, "input": {"task": "Two times three?"}, "target": 6,
                "scores": {"numeric": {"passed": True}}, "status": "succeeded"},
               {"id": "a-2", "epoch": 1, "input": {"task": "?"}, "target": 1,
                "scores": {"numeric": {"passed": False}}, "status": "succeeded"}]
    (tmp_path / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    (tmp_path / "samples.jsonl").write_text("\n".join(json.dumps(s) for s in samples) + "\n")
    out = calls_from_run(tmp_path)
    assert [(s["key"], s["passed"], s["calls"]) for s in out] == [
        ("a-1#1", True, [{"expression": "2*3", "result": "6"}]), ("a-2#1", False, [])]
    with pytest.raises(UserError, match="not found"):
        calls_from_run(tmp_path / "missing")


@pytest.mark.slow
def test_validation_and_reported_problems_are_disjoint() -> None:
    val, rep = experiments.problem_split()
    assert len(val) == experiments.VALIDATION_PROBLEMS
    assert not {tuple(p) for p in val} & {tuple(p) for p in rep}
    assert all(tasks.solve24(p, first_only=True) for p in val[:20])
    assert not set(experiments.REPORTED_SEEDS) & set(experiments.VALIDATION_SEEDS)


@pytest.mark.slow
def test_validation_seeds_do_not_change_reported_numbers() -> None:
    """The reported seeds' results are the same whichever validation seeds pick the direction, and the
    picked direction is the one with the higher validation accuracy."""
    a = experiments.seeded_best_of_n(12, [2, 4], (0, 1), (100,))
    b = experiments.seeded_best_of_n(12, [2, 4], (0, 1), (101,))
    assert a["mean_se"] == b["mean_se"] and a["per_seed"] == b["per_seed"]
    for r in (a, b):
        acc = r["validation_accuracy_at_n"]
        assert r["chosen_rule"] == max(acc, key=lambda k: (acc[k], k == experiments.RULES[0]))
    per = a["per_seed"]
    k = a["index_n4"]
    mean = sum(per[s][experiments.RULES[0]][k] for s in per) / len(per)
    assert a["mean_se"][experiments.RULES[0]][k][0] == pytest.approx(mean)


def test_embedded_stage_size_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.rejump import repro

    monkeypatch.delenv(repro.EMBEDDED_ENV, raising=False)
    assert repro._embedded_traces() == len(repro.load_traces()) == 6
    monkeypatch.setenv(repro.EMBEDDED_ENV, "2")
    assert repro._embedded_traces() == 2
    monkeypatch.setenv(repro.EMBEDDED_ENV, "many")
    with pytest.raises(UserError, match="whole number"):
        repro._embedded_traces()
