"""LASER's sensors: bilinear observation, bounded moves, and QR-pivoted placement on POD modes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paperworks.backends.laser.sensors import (
    bounded_move,
    observe,
    pixel_positions,
    pod_basis,
    pod_reconstruct,
    qr_sensors,
    random_walk,
)
from paperworks.core.errors import UserError


def _few_mode_snapshots(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``m`` random combinations of a constant and 5 Fourier functions, ``(m, n²)``, and the functions."""
    x, y = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    w = 2 * np.pi / n
    funcs = np.stack([np.ones_like(x, dtype=float), np.cos(w * x), np.sin(w * y), np.cos(w * (x + 2 * y)),
                      np.sin(2 * w * x), np.cos(3 * w * y)]).reshape(6, -1)
    coef = np.random.default_rng(seed).normal(size=(m, 6)) + np.array([3.0, 0, 0, 0, 0, 0])
    return coef @ funcs, funcs


def test_qr_placement_reconstructs_a_few_mode_field_exactly() -> None:
    n = 16
    snaps, funcs = _few_mode_snapshots(n, 40, 0)
    mean, modes = pod_basis(snaps, 6)  # the centred snapshots span exactly the 6 functions
    idx = qr_sensors(modes, 6)
    assert len(set(idx.tolist())) == 6
    new, _ = _few_mode_snapshots(n, 3, 1)  # fields never seen, in the same span
    rec = pod_reconstruct(new[:, idx], idx, mean, modes)
    np.testing.assert_allclose(rec, new, atol=1e-9)
    # a degenerate layout of as many points does not: on the line y = 0 the y-modes are invisible
    bad = np.arange(6) * n  # pixels (0..5, 0)
    assert np.abs(pod_reconstruct(new[:, bad], bad, mean, modes) - new).max() > 0.1


def test_pod_modes_are_orthonormal_and_ranks_checked() -> None:
    snaps, _ = _few_mode_snapshots(8, 20, 2)
    _, modes = pod_basis(snaps, 4)
    np.testing.assert_allclose(modes.T @ modes, np.eye(4), atol=1e-10)
    with pytest.raises(UserError, match="POD rank"):
        pod_basis(snaps, 0)
    with pytest.raises(UserError, match="sensor count"):
        qr_sensors(modes, 65)


def test_observe_is_bilinear_and_periodic() -> None:
    n = 8
    u = torch.arange(n * n, dtype=torch.float64).reshape(1, n, n)  # u[x, y] = 8x + y
    pos = torch.tensor([[[2.0, 3.0], [2.5, 3.0], [2.0, 3.25], [7.5, 0.0], [1.5, 7.5]]], dtype=torch.float64)
    got = observe(u, pos)[0]
    expect = [19.0, 23.0, 19.25, (56 + 0) / 2, ((8 * 1 + 7) + (8 * 2 + 7) + 8 + 16) / 4]
    np.testing.assert_allclose(got.numpy(), expect)
    pos.requires_grad_(True)
    observe(u, pos)[0, 1].backward()
    assert pos.grad is not None
    np.testing.assert_allclose(pos.grad[0, 1].numpy(), [8.0, 1.0])  # ∂u/∂x = 8, ∂u/∂y = 1 inside the cell


def test_bounded_move_and_random_walk() -> None:
    move = bounded_move(torch.tensor([[3.0, 4.0], [0.0, 0.0]]), 2.0)
    np.testing.assert_allclose(move[0].numpy(), np.array([0.6, 0.8]) * 2 * np.tanh(5.0), rtol=1e-6)
    np.testing.assert_allclose(move[1].numpy(), [0.0, 0.0])
    walk = random_walk(16, 3, 20, 1.5, np.random.default_rng(0))
    step = np.diff(walk, axis=0)
    step = (step + 8) % 16 - 8  # undo wrap-around
    assert np.linalg.norm(step, axis=-1).max() <= 1.5 + 1e-9 and walk.min() >= 0 and walk.max() < 16


def test_pixel_positions() -> None:
    np.testing.assert_array_equal(pixel_positions(np.array([0, 17, 63]), 8), [[0, 0], [2, 1], [7, 7]])
