"""``paperworks repro laser`` end to end at a tiny size: every method scored, the figures and plots written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_laser_pipeline_tiny(tmp_path: Path) -> None:
    from paperworks.backends.laser.agent import ACConfig
    from paperworks.backends.laser.field import FieldConfig
    from paperworks.backends.laser.repro import LaserReproConfig, run_config
    from paperworks.backends.laser.train import WMTrainConfig
    from paperworks.backends.laser.world import WorldModelConfig

    cfg = LaserReproConfig(field=FieldConfig(grid=16, steps=6, spinup=4, source_width=2.0), ks=(2, 4),
                           train_episodes=8, test_episodes=3, basis_rank=8,
                           wm=WorldModelConfig(latent=16, embed=16, hidden=32, splat_grid=4),
                           wm_train=WMTrainConfig(steps=6, batch=4, window=4), wm_finetune_steps=2,
                           ac=ACConfig(steps=3, batch=4, horizon=2), rounds=2, collect_episodes=2, start_states=2,
                           seeds=(0, 1), oracle_windows=(1, 2))
    res = run_config(tmp_path, cfg)
    path = res.write(tmp_path, quick=True, scale="cpu", elapsed_s=1.0)
    data = json.loads(path.read_text())
    figs = data["figures"]
    methods = ("random static", "QR-POD static", "greedy uncertainty", "LASER",
               "QR-POD, own least-squares reconstructor")
    for m in methods:
        for k in (2, 4):
            assert 0.0 < figs[f"rel_l2[{m}, K={k}]"]["value"] < 5.0
    for k in (2, 4):  # the headline gap is the difference of the table's own numbers
        best = min(figs[f"rel_l2[{m}, K={k}]"]["value"] for m in methods[:2])  # static, shared reconstructor
        assert figs[f"laser_minus_best_static[K={k}]"]["value"] == pytest.approx(
            figs[f"rel_l2[LASER, K={k}]"]["value"] - best, abs=2e-4)
        assert "reconstructed" in figs[f"laser_minus_best_static[K={k}]"]["note"]
    assert data["config"]["reported_seeds"] == [0, 1]
    per_seed, table = data["extra"]["per_seed"], data["extra"]["table"]
    for m in methods[:4]:
        for win in (1, 2):
            label = f"{m} | oracle w={win}"
            for k in (2, 4):
                seeds = per_seed[label][str(k)]
                assert len(seeds) == 2 and table[label][str(k)][0] == pytest.approx(sum(seeds) / 2, abs=2e-4)
                assert table[label][str(k)][1] == pytest.approx(abs(seeds[0] - seeds[1]) / 2, abs=2e-4)
                assert figs[f"rel_l2[{label}, K={k}]"]["value"] == table[label][str(k)][0]
    for k in (2, 4):
        lo = min(per_seed[f"{m} | oracle w=2"][str(k)] for m in methods[:2])
        assert len(lo) == 2
        assert "oracle" in figs[f"laser_minus_best_static_oracle_w2[K={k}]"]["note"]
    assert figs["reconstructor_is_bottleneck"]["value"] in ("yes", "partly", "no")
    paths = data["extra"]["sensor_paths_episode0"]
    static = np.array(paths["QR-POD static"])
    assert static.shape == (6, 4, 2) and np.all(static == static[0])  # K = 4 is plotted; static never moves
    laser = np.array(paths["LASER"])
    np.testing.assert_array_equal(laser[0], static[0])  # LASER starts from the QR layout
    step = (np.diff(laser, axis=0) + 8) % 16 - 8
    assert np.linalg.norm(step, axis=-1).max() <= cfg.max_step + 1e-3
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000


def test_bad_scale_is_a_user_error(tmp_path: Path) -> None:
    from paperworks.backends.laser.repro import run
    from paperworks.core.errors import UserError

    with pytest.raises(UserError, match="scale"):
        run(tmp_path, quick=True, scale="gpu")


def test_seed_count_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.laser import repro
    from paperworks.core.errors import UserError

    monkeypatch.setenv(repro.ENV_SEEDS, "1")
    assert repro.preset(False).seeds == (0,)
    monkeypatch.delenv(repro.ENV_SEEDS)
    assert repro.preset(False).seeds == (0, 1, 2)
    monkeypatch.setenv(repro.ENV_SEEDS, "x")
    with pytest.raises(UserError, match=repro.ENV_SEEDS):
        repro.preset(False)


def test_size_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.laser import repro
    from paperworks.core.errors import UserError

    monkeypatch.setenv(repro.ENV_SIZE, "small")
    cfg = repro.preset(False)
    assert (cfg.rounds, cfg.wm_train.steps, cfg.train_episodes, cfg.seeds) == (1, 600, 96, (0, 1, 2))
    monkeypatch.setenv(repro.ENV_SIZE, "huge")
    with pytest.raises(UserError, match=repro.ENV_SIZE):
        repro.preset(False)
