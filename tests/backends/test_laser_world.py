"""LASER's world model (its loss falls on a small problem), the encoder's splatting, and the λ-returns."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch

from paperworks.backends.laser.agent import lambda_returns
from paperworks.backends.laser.field import FieldConfig, make_dataset
from paperworks.backends.laser.sensors import pod_basis
from paperworks.backends.laser.train import WMTrainConfig, initial_bank, train_world_model
from paperworks.backends.laser.world import WorldModel, WorldModelConfig, splat_weights, world_model_loss
from paperworks.core.errors import UserError


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the CI cores are shared
    yield
    torch.set_num_threads(threads)


SMALL = WorldModelConfig(latent=32, embed=32, hidden=64, splat_grid=4, splat_width=2.0)


def test_world_model_loss_falls() -> None:
    torch.manual_seed(0)
    cfg = FieldConfig(grid=16, steps=8, spinup=6, source_width=2.0)
    data = make_dataset(cfg, 12, 0)
    snaps = data.reshape(-1, 256).astype(np.float64)
    rng = np.random.default_rng(0)
    bank = initial_bank(16, 12, 8, (16,), 1.5, {16: np.arange(16) * 17}, rng)
    wm = WorldModel(16, SMALL, basis=pod_basis(snaps, 16))
    fields, tracks = torch.from_numpy(data), torch.from_numpy(bank.tracks[16][:12]).float()  # static layouts

    def evaluate() -> tuple[float, float]:
        with torch.no_grad():
            loss, info = world_model_loss(wm, fields, tracks)
        return loss.item(), info["mse"]

    loss0, mse0 = evaluate()
    hist = train_world_model(wm, data, bank, WMTrainConfig(steps=60, batch=12, window=8), rng)
    loss1, mse1 = evaluate()
    assert len(hist) == 60 and all(np.isfinite(h["loss"]) for h in hist)
    assert loss1 < loss0 - 0.3  # measured 2.20 → 1.64
    assert mse1 < 0.9 * mse0  # measured 0.975 → 0.802


def test_splat_weights_by_hand() -> None:
    # coarse 2 × 2 grid over [0, 8)²: centres (2, 2), (2, 6), (6, 2), (6, 6); σ = 2
    w = splat_weights(torch.tensor([[[2.0, 2.0], [0.0, 0.0]]]), 8, 2, 2.0)[0]
    e = np.exp
    np.testing.assert_allclose(w[0].numpy(), [1.0, e(-2.0), e(-2.0), e(-4.0)], rtol=1e-6)
    np.testing.assert_allclose(w[1].numpy(), [e(-1.0)] * 4, rtol=1e-6)  # every centre at distance √8 (periodic)


def test_encoder_ignores_sensor_order_and_checks_its_basis() -> None:
    torch.manual_seed(1)
    wm = WorldModel(8, SMALL)
    vals, pos = torch.randn(2, 5), torch.rand(2, 5, 2) * 8
    perm = torch.tensor([3, 0, 4, 1, 2])
    torch.testing.assert_close(wm.encode(vals, pos), wm.encode(vals[:, perm], pos[:, perm]))
    mean, logvar = wm.decode(wm.initial(3))
    assert mean.shape == logvar.shape == (3, 8, 8)
    torch.testing.assert_close(logvar[:, 0, 0], logvar[:, 1, 1])  # half-resolution variance: 2 × 2 blocks
    with pytest.raises(UserError, match="basis"):
        WorldModel(8, SMALL, basis=(np.zeros(10), np.zeros((10, 2))))
    with pytest.raises(UserError, match="even grid"):
        WorldModel(7, SMALL)


def test_lambda_returns_by_hand() -> None:
    r = torch.tensor([[1.0], [2.0]])
    v = torch.tensor([[0.5], [1.0], [3.0]])
    g = lambda_returns(r, v, gamma=0.9, lam=0.5)[:, 0]
    g1 = 2 + 0.9 * 3.0
    g0 = 1 + 0.9 * (0.5 * 1.0 + 0.5 * g1)
    np.testing.assert_allclose(g.numpy(), [g0, g1], rtol=1e-6)
    mc = lambda_returns(r, v, gamma=0.9, lam=1.0)[0, 0]  # λ = 1: the discounted sum bootstrapped at the end
    assert float(mc) == pytest.approx(1 + 0.9 * 2 + 0.81 * 3.0)
    td = lambda_returns(r, v, gamma=0.9, lam=0.0)[0, 0]  # λ = 0: one-step TD target
    assert float(td) == pytest.approx(1 + 0.9 * 1.0)
    with pytest.raises(UserError, match="one more value"):
        lambda_returns(r, v[:2], 0.9, 0.5)
