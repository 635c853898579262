"""``paperworks repro lifting --quick`` runs end to end and writes results.json and its plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_repro_lifting_quick_writes_results(tmp_path: Path) -> None:
    from paperworks.backends.repro import repro_names, run_repro

    assert "lifting" in repro_names()
    _, path = run_repro("lifting", tmp_path, quick=True)
    data = json.loads(path.read_text())
    figs = data["figures"]
    for system in ("ou", "double_well dt=0.2", "double_well dt=1.5", "ring"):
        for kind in ("deterministic", "gaussian", "lifted"):
            assert figs[f"w2_mean[{system}, {kind}]"]["value"] >= 0
        assert figs[f"lifted_train_rel_err[{system}]"]["value"] < 0.01
    # the lifted map does not collapse on OU (measured quick: 0.32 of the deterministic W2)
    assert figs["lifted_over_deterministic[ou]"]["value"] < 0.5
    # the deterministic regressor has no spread at all; the lifted map has some
    assert figs["one_step_spread[ou, deterministic]"]["value"] == 0.0
    assert figs["one_step_spread[ou, lifted]"]["value"] > 0.5
    cfg = data["config"]
    assert cfg["reported_seeds"] and not set(cfg["reported_seeds"]) & set(cfg["validation_seeds"])
    diffs = data["extra"]["definition_differences"]
    assert len(diffs) >= 5 and all(set(d) == {"item", "authors", "ours", "reason"} for d in diffs)
    assert "ring" in data["extra"]["diagnostics"]["more_data"]["per_system"]
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
