"""``paperworks repro cagnn --quick`` runs end to end and writes results.json and its plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_repro_cagnn_quick_writes_results(tmp_path: Path) -> None:
    from paperworks.backends.repro import repro_names, run_repro

    assert "cagnn" in repro_names()
    _, path = run_repro("cagnn", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["name"] == "cagnn" and data["quick"] is True
    figs = data["figures"]
    t = data["config"]["stream"]["tasks"]
    names = ("CAGNN", "Fine-tune", "EWC", "Replay (ER-GNN)", "Expanding")
    for name in names:
        assert 0.0 <= figs[f"average_accuracy[{name}]"]["value"] <= 1.0
    assert figs["average_forgetting[CAGNN]"]["value"] == 0.0  # frozen subnetworks, right selector
    per_forward = [figs[f"params_per_forward[CAGNN, after task {k}]"]["value"] for k in (1, t)]
    assert per_forward[0] == per_forward[1]
    assert figs[f"macs_ratio[CAGNN, task {t} / task 1]"]["value"] == pytest.approx(1.0, abs=1e-3)
    assert figs[f"macs_ratio[Expanding, task {t} / task 1]"]["value"] > 3.0
    assert "flat" in figs[f"macs_ratio[CAGNN, task {t} / task 1]"]["paper"]
    run0 = data["extra"]["runs"]["CAGNN"][0]
    assert len(run0["acc"]) == t and len(run0["time_s"]) == t and all(v > 0 for v in run0["time_s"])
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
    assert data["elapsed_s"] < 90
