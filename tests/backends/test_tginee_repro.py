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
    # seeds fixed in advance and listed; nothing tuned on seeds
    assert data["config"]["reported_seeds"] == [0, 1000] and data["config"]["validation_seeds"] == []
    # the coverage diagnostic (quick: 8 edge draws of one n=20 truth)
    diag = data["extra"]["coverage_diagnostic"][0]
    assert diag["nodes"] == 20 and diag["replications"] == 8 and len(diag["edge_seeds_used"]) == 8
    for key in ("coverage_sandwich", "coverage_empirical_sd", "coverage_sandwich_centred"):
        c = diag[key]
        assert 0.5 < c["mean"] <= 1.0 and c["mc_low"] <= c["mean"] <= c["mc_high"]
        assert figs[f"diag_{key}[n=20]"]["value"] == c["mean"]
    assert 0.2 < figs["diag_se_over_sd[n=20]"]["value"] < 3.0
    assert data["elapsed_s"] < 600  # a hang guard; speed is a benchmark's job


def test_repro_tginee_rejects_gpu_scale(tmp_path: Path) -> None:
    import pytest

    from paperworks.backends.tginee.repro import run
    from paperworks.core.errors import UserError

    with pytest.raises(UserError, match="scale"):
        run(tmp_path, quick=True, scale="gpu")


def test_repro_tginee_rejects_unknown_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.tginee.repro import run
    from paperworks.core.errors import UserError

    monkeypatch.setenv("PAPERWORKS_TGINEE_PARTS", "table,plots")
    with pytest.raises(UserError, match="PAPERWORKS_TGINEE_PARTS"):
        run(tmp_path, quick=True)
