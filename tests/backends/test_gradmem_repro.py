"""``paperworks repro gradmem --quick`` runs end to end and writes results.json and its plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_repro_gradmem_quick_writes_results(tmp_path: Path) -> None:
    from paperworks.backends.repro import repro_names, run_repro

    assert "gradmem" in repro_names()
    res, path = run_repro("gradmem", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["name"] == "gradmem" and data["quick"] is True
    assert data["command"] == f"paperworks repro gradmem --quick --out {tmp_path}"
    figs = data["figures"]
    for label in ("GradMem K=1", "GradMem K=2", "GradMem K=5", "Forward writer (1 pass)"):
        for n in (1, 2, 4):
            assert 0.0 <= figs[f"kv_em[{label}, {n} pairs]"]["value"] <= 1.0
    assert "88.4%" in figs["kv_best_gradmem_em_at_largest"]["paper"]
    assert figs["kv_gradmem_minus_forward_mean"]["paper"]
    assert len(set(data["extra"]["memory_parameters"].values())) == 1  # every writer has the same memory size
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
    if "story_floor" in figs:  # the embedded model is installed
        assert 0.0 <= figs["story_floor"]["value"] <= 1.0
        assert {f"story_em[K={k}]" for k in (0, 1, 2)} <= set(figs)
        assert "story_em_vs_steps.png" in data["plots"]
    assert data["elapsed_s"] < 120
