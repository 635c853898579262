"""``paperworks repro codila`` end to end at a toy size: results.json, the plots, and figures that agree with
the raw points they are derived from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


def tiny():  # type: ignore[no-untyped-def]
    from paperworks.backends.codila.repro import CodilaReproConfig

    return CodilaReproConfig(train_examples=300, dim=32, layers=1, head_dim=32, head_layers=1, dlm_steps=20,
                             ar_steps=10, head_steps=10, batch=16, ks=(1, 2), eval_code=8, eval_arith=8)


def test_repro_codila_writes_consistent_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.codila import repro as codila_repro
    from paperworks.backends.codila.plots import pareto_front
    from paperworks.backends.repro import repro_names, run_repro

    assert "codila" in repro_names()
    monkeypatch.setattr(codila_repro, "preset", lambda quick: tiny())
    _, path = run_repro("codila", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["command"] == f"paperworks repro codila --quick --out {tmp_path}"
    assert data["config"]["ks"] == [1, 2]
    figs, pts = data["figures"], data["extra"]["points"]
    assert set(pts) == {"AR", "DLM (confidence)", "DLM (blocks)", "CoDiLA"}
    for label in ("DLM (confidence)", "DLM (blocks)", "CoDiLA"):
        # 32 generated code positions: 32 / k forward passes; the 4-token answer slot: ceil(4 / k)
        assert [pts[label][k]["code_steps"] for k in ("1", "2")] == [32, 16]
        assert [pts[label][k]["arith_steps"] for k in ("1", "2")] == [4, 2]
        for k in ("1", "2"):
            v = figs[f"code_valid[{label}, k={k}]"]["value"]
            assert v == round(pts[label][k]["valid"], 4) and 0 <= v <= 1 and (v * 8) == int(v * 8)
    assert pts["AR"]["1"]["code_steps"] == 32
    diff = pts["CoDiLA"]["2"]["valid"] - pts["DLM (blocks)"]["2"]["valid"]
    assert figs["codila_minus_dlm_blocks_valid[k=2]"]["value"] == round(diff, 4)
    assert "breaks multi-token structure" in figs["codila_minus_dlm_blocks_valid[k=2]"]["paper"]
    every = [(lb, k, p["tokens_per_cpu_s"], p["valid"]) for lb, row in pts.items() for k, p in row.items()]
    front = set(pareto_front([(s, v) for _, _, s, v in every]))
    assert figs["codila_points_on_frontier"]["value"] == sum(lb == "CoDiLA" and (s, v) in front
                                                             for lb, _, s, v in every)
    ratio = pts["CoDiLA"]["2"]["tokens_per_cpu_s"] / pts["AR"]["1"]["tokens_per_cpu_s"]
    assert figs["throughput_codila_k2_over_ar"]["value"] == round(ratio, 3)
    assert "2x throughput" in figs["codila_speedup_at_matched_validity"]["paper"]
    losses = data["extra"]["train_loss"]["DLM"]
    assert figs["dlm_loss_first_last"]["value"] == f"{losses[0]:.3f} -> {losses[-1]:.3f}"
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000


def test_bad_config_is_a_user_error() -> None:
    from paperworks.backends.codila.repro import CodilaReproConfig
    from paperworks.core.errors import UserError

    with pytest.raises(UserError, match="clock"):
        CodilaReproConfig(clock="sundial")
    with pytest.raises(UserError, match="ks"):
        CodilaReproConfig(ks=(0, 2))


def test_pareto_front_by_hand() -> None:
    from paperworks.backends.codila.plots import pareto_front

    pts = [(1.0, 0.9), (2.0, 0.5), (2.0, 0.4), (3.0, 0.5), (0.5, 0.95), (0.4, 0.9)]
    # (2, 0.5) and (2, 0.4) are dominated by (3, 0.5); (0.4, 0.9) by (1, 0.9)
    assert pareto_front(pts) == [(3.0, 0.5), (1.0, 0.9), (0.5, 0.95)]


def test_matched_speedup_by_hand() -> None:
    from paperworks.backends.codila.repro import matched_speedup

    def p(speed: float, valid: float) -> dict[str, float]:
        return {"tokens_per_s": speed, "valid": valid}

    pts = {"CoDiLA": {1: p(5, 0.95), 8: p(100, 0.5)},
           "DLM (confidence)": {1: p(10, 0.9), 2: p(20, 0.6), 4: p(40, 0.3)},
           "DLM (blocks)": {1: p(12, 0.4)}}
    # CoDiLA k=1 has no DLM rival as valid (0.95); k=8 (0.5) is matched by conf k=1 (10/s) and k=2 (20/s)
    assert matched_speedup(pts, "tokens_per_s") == (5.0, 8, "DLM (confidence) k=2")
    pts["CoDiLA"] = {1: p(5, 0.99)}
    assert matched_speedup(pts, "tokens_per_s") is None
