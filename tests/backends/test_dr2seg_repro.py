"""``paperworks repro dr2seg`` end to end at a tiny size (the --quick preset is timed separately)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


def test_repro_dr2seg_tiny_writes_consistent_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.dr2seg import repro
    from paperworks.backends.repro import repro_names, run_repro

    assert "dr2seg" in repro_names()
    tiny = repro.DR2SegReproConfig(seeds=(0,), hidden=32, layers=1, sft_steps=20, steps=6, scenes_per_step=4,
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
    for short in ("grpo", "self", "dr2seg"):
        assert 0.0 <= figs[f"iou_{short}"]["value"] <= 1.0
        assert 0.0 <= figs[f"words_{short}"]["value"] <= 9
    assert figs["length_ratio_dr2seg_vs_grpo"]["paper"]
    curves = data["extra"]["curves"]["GRPO (IoU only)"]
    assert curves["step"] == [0, 3, 6]  # warm start, then every steps // eval_points
    assert curves["iou"][0] == pytest.approx(data["extra"]["warm_start"]["iou"])
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
