"""The OTB-vs-GRPO token benchmark's arithmetic: tokens to a per-seed target fixed by the warm start,
ratios of medians over the seeds where both arms got there, and held-out accuracy at a matched budget."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "train_otb_tokens.py"
spec = importlib.util.spec_from_file_location("train_otb_tokens", PATH)
assert spec and spec.loader
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def _arm(name: str, seed: int, curve: list[tuple[int, int, float]]) -> dict[str, Any]:
    return {"name": name, "seed": seed, "rollout_tokens": curve[-1][1],
            "heldout": [{"step": s, "rollout_tokens": t, "accuracy": a} for s, t, a in curve]}


def test_tokens_to_reach_is_the_first_evaluation_at_the_target() -> None:
    curve = [{"step": 2, "rollout_tokens": 10, "accuracy": 0.2}, {"step": 4, "rollout_tokens": 20, "accuracy": 0.4},
             {"step": 6, "rollout_tokens": 30, "accuracy": 0.5}]
    assert bench.tokens_to_reach(curve, 0.4) == 20
    assert bench.tokens_to_reach(curve, 0.45) == 30
    assert bench.tokens_to_reach(curve, 0.6) is None


def test_summary_targets_ratios_and_matched_budget() -> None:
    arms = [
        _arm("otb_n4", 0, [(0, 0, 0.30), (2, 100, 0.35), (4, 200, 0.45)]),
        _arm("grpo_n4", 0, [(0, 0, 0.30), (2, 100, 0.42), (4, 200, 0.50)]),
        _arm("grpo_n16", 0, [(0, 0, 0.30), (2, 400, 0.50), (4, 800, 0.60)]),
        _arm("otb_n4", 1, [(0, 0, 0.50), (2, 100, 0.50), (4, 200, 0.52)]),
        _arm("grpo_n4", 1, [(0, 0, 0.50), (2, 100, 0.70), (4, 200, 0.70)]),
        _arm("grpo_n16", 1, [(0, 0, 0.50), (2, 400, 0.40), (4, 800, 0.61)]),
    ]
    got = bench.summarise(arms, 0.1)
    assert got["targets"] == {"0": pytest.approx(0.4), "1": pytest.approx(0.6)}
    tokens = {(a["name"], a["seed"]): a["tokens_to_target"] for a in arms}
    assert tokens == {("otb_n4", 0): 200, ("grpo_n4", 0): 100, ("grpo_n16", 0): 400,
                      ("otb_n4", 1): None, ("grpo_n4", 1): 100, ("grpo_n16", 1): 800}
    # only seed 0 has both OTB and the other arm at the target
    assert got["otb_n4_over_grpo_n4"] == {"ratio_of_medians": 2.0, "seeds_both_reached": 1, "seeds": 2,
                                          "otb_n4_reached": 1, "grpo_n4_reached": 2}
    assert got["otb_n4_over_grpo_big_n"]["ratio_of_medians"] == 0.5
    m = got["at_matched_tokens"]
    assert m["per_seed"]["0"]["budget_tokens"] == 200
    assert m["per_seed"]["0"]["grpo_n16"] == {"last": 0.30, "best": 0.30, "at_step": 0}
    assert m["per_seed"]["1"]["grpo_n4"] == {"last": 0.70, "best": 0.70, "at_step": 4}
    assert m["mean_last"] == {"otb_n4": pytest.approx(0.485), "grpo_n4": pytest.approx(0.6),
                              "grpo_n16": pytest.approx(0.4)}


def test_a_seed_without_a_warm_start_evaluation_is_refused() -> None:
    with pytest.raises(SystemExit, match="no held-out evaluation at step 0"):
        bench.summarise([_arm("otb_n4", 0, [(2, 100, 0.3)])], 0.1)
