"""``paperworks repro dr2seg`` end to end at a tiny size (the --quick preset is timed separately)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_repro_dr2seg_tiny_writes_consistent_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.dr2seg import repro
    from paperworks.backends.repro import repro_names, run_repro

    assert "dr2seg" in repro_names()
    tiny = repro.DR2SegReproConfig(seeds=(0, 1), hidden=32, layers=1, sft_steps=20, steps=6, scenes_per_step=4,
                                   group_size=4, eval_scenes=20, eval_samples=1, eval_points=2)
    monkeypatch.setattr(repro, "preset", lambda quick, scale: tiny)
    _, path = run_repro("dr2seg", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["name"] == "dr2seg" and data["config"]["steps"] == 6
    figs, final = data["figures"], data["extra"]["final"]
    grpo, full = final["GRPO (IoU only)"], final["DR2Seg (+ self-containment + length)"]
    assert figs["iou_gain_dr2seg_vs_grpo"]["value"] == pytest.approx(full["iou"]["mean"] - grpo["iou"]["mean"],
                                                                     abs=1e-3)
    assert figs["length_ratio_dr2seg_vs_grpo"]["value"] == pytest.approx(
        full["words"]["mean"] / grpo["words"]["mean"], abs=1e-3)
    assert set(final) == set(repro.LABELS.values())  # neither self-reward, each alone, both
    assert data["config"]["reported_seeds"] == [0, 1] and data["config"]["validation_seeds"] == []
    per_seed = data["extra"]["per_seed"]
    for short, label in repro.LABELS.items():
        assert 0.0 <= figs[f"iou_{short}"]["value"] <= 1.0
        assert 0.0 <= figs[f"words_{short}"]["value"] <= 9
        ious = [r["iou"] for r in per_seed[label]]
        assert len(ious) == 2 and final[label]["iou"]["mean"] == pytest.approx(sum(ious) / 2, abs=1e-4)
        assert final[label]["iou"]["se"] == pytest.approx(abs(ious[0] - ious[1]) / 2, abs=1e-4)  # n = 2
        if short != "grpo":
            diffs = [a["self_iou"] - b["self_iou"] for a, b in zip(per_seed[label], per_seed[repro.LABELS["grpo"]],
                                                                 strict=True)]
            assert figs[f"self_iou_gain_{short}_vs_grpo"]["value"] == pytest.approx(sum(diffs) / 2, abs=1e-3)
    items = {d["item"] for d in data["extra"]["definition_differences"]}
    assert {"description self-reward", "length self-reward"} <= items
    assert figs["length_ratio_dr2seg_vs_grpo"]["paper"]
    curves = data["extra"]["curves"]["GRPO (IoU only)"]
    assert curves["step"] == [0, 3, 6]  # warm start, then every steps // eval_points
    assert curves["iou"][0] == pytest.approx(data["extra"]["warm_start"]["iou"])
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000


def test_seed_count_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.dr2seg import repro
    from paperworks.core.errors import UserError

    monkeypatch.setenv(repro.ENV_SEEDS, "2")
    assert repro.preset(False, "cpu").seeds == (0, 1)
    monkeypatch.setenv(repro.ENV_SEEDS, "0")
    with pytest.raises(UserError, match=repro.ENV_SEEDS):
        repro.preset(False, "cpu")
