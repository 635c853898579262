"""``paperworks repro tginee --quick`` runs end to end and writes results.json and its plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.mark.slow
def test_repro_tginee_quick_writes_results(tmp_path: Path) -> None:
    from paperworks.backends.repro import repro_names, run_repro
    from paperworks.backends.tginee.baselines import METHODS

    assert "tginee" in repro_names()
    _, path = run_repro("tginee", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["name"] == "tginee" and data["quick"] is True
    figs = data["figures"]
    for m in METHODS:
        for rho in ("0.0", "0.8"):
            assert 0.0 < figs[f"rel_error[{m}, rho={rho}]"]["value"] < 3.0
            assert 0.5 < figs[f"auc[{m}, rho={rho}]"]["value"] <= figs[f"oracle_auc[rho={rho}]"]["value"] + 0.05
            assert 0.5 < figs[f"coverage[{m}, rho={rho}]"]["value"] <= 1.0
            assert -1.0 <= figs[f"ari[{m}, rho={rho}]"]["value"] <= 1.0
    # the moment estimate of the layers' correlation tracks the planted one
    assert figs["alpha_exchangeable[rho=0.0]"]["value"] < 0.1 < 0.2 < figs["alpha_exchangeable[rho=0.8]"]["value"]
    assert "link prediction" in figs["auc_tginee_minus_best_baseline"]["paper"]
    assert "Reconstructed" in figs["coverage_tginee"]["note"]
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
    assert data["elapsed_s"] < 90


def test_repro_tginee_rejects_gpu_scale(tmp_path: Path) -> None:
    import pytest

    from paperworks.backends.tginee.repro import run
    from paperworks.core.errors import UserError

    with pytest.raises(UserError, match="scale"):
        run(tmp_path, quick=True, scale="gpu")
