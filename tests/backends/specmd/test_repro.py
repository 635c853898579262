"""``paperworks repro specmd``: a tiny run in the default suite, the real ``--quick`` run marked slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperworks.backends.repro import REPROS, run_repro
from paperworks.backends.specmd.repro import SpecmdReproConfig, run


def test_registered() -> None:
    import paperworks.backends.specmd  # noqa: F401

    assert REPROS["specmd"] == "paperworks.backends.specmd.repro:run"


def test_tiny_run(tmp_path: Path) -> None:
    res = run(tmp_path, quick=True, cfg=SpecmdReproConfig(synthetic_tokens=64, prompt_tokens=8, smollm_tokens=0))
    assert res.figures["hit_rate[least-stale, no prefetch]"].paper
    assert res.figures["hit_rate[lru, no prefetch]"].value == 0.0  # the layer cycle defeats LRU at 5%
    for name in res.plots:
        assert (tmp_path / name).stat().st_size > 1000
    assert {"hit_rate_vs_capacity.png", "collision_ratio.png", "ttft_5pct.png"} <= set(res.plots)
    rows = res.extra["olmoe_shaped_sweep"]
    assert len(rows) == 2 * 7 * 7  # prefetch on/off x policies x capacities
    assert all(r["hit_rate"] <= 1 for r in rows)


@pytest.mark.slow
def test_quick_repro(tmp_path: Path) -> None:
    _, path = run_repro("specmd", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["elapsed_s"] < 120
    assert "hit_rate_vs_capacity_smollm2.png" in data["plots"]
    assert data["figures"]["collision_ratio_lru_over_least_stale[no prefetch]"]["value"] > 1
