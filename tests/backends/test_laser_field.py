"""LASER's field solver: what the spectral advection–diffusion step conserves, against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.laser.field import (
    FieldConfig,
    gaussian_bump,
    make_dataset,
    propagator,
    simulate_episode,
    step,
)
from paperworks.core.errors import UserError


def _rand_field(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, n))


def test_mean_changes_only_by_the_source_without_damping() -> None:
    n, dt = 16, 0.7
    u, s = _rand_field(n, 0), np.abs(_rand_field(n, 1))
    prop = propagator(n, (0.37, -0.81), diffusion=0.2, damping=0.0, dt=dt)
    u2 = step(u, prop, dt, s)
    assert u2.mean() == pytest.approx(u.mean() + dt * s.mean(), abs=1e-12)
    lam = 0.3  # with damping: mean ← e^{−λ dt} (mean + dt mean(s))
    u3 = step(u, propagator(n, (0.37, -0.81), 0.2, lam, dt), dt, s)
    assert u3.mean() == pytest.approx(np.exp(-lam * dt) * (u.mean() + dt * s.mean()), abs=1e-12)


def test_pure_advection_is_an_exact_shift_and_conserves_l2() -> None:
    n = 16
    uh = np.fft.fft2(_rand_field(n, 2))
    uh[n // 2, :] = uh[:, n // 2] = 0.0  # band-limited: the Nyquist modes are not advected (see propagator)
    u = np.real(np.fft.ifft2(uh))
    shifted = step(u, propagator(n, (1.0, 2.0), 0.0, 0.0, 1.0), 1.0)
    np.testing.assert_allclose(shifted, np.roll(u, (1, 2), axis=(0, 1)), atol=1e-12)
    full = _rand_field(n, 3)  # with Nyquist content, a shift off the grid still conserves energy and mass
    frac = step(full, propagator(n, (0.3, -0.45), 0.0, 0.0, 1.3), 1.3)
    assert np.linalg.norm(frac) == pytest.approx(np.linalg.norm(full), rel=1e-12)
    assert frac.sum() == pytest.approx(full.sum(), abs=1e-10)


def test_diffusion_damps_a_fourier_mode_by_the_heat_kernel() -> None:
    n, m, nu, lam, dt = 32, 3, 0.4, 0.1, 0.5
    x = np.arange(n)
    u = np.cos(2 * np.pi * m * x / n)[:, None] * np.ones(n)[None, :]
    k2 = (2 * np.pi * m / n) ** 2
    out = step(u, propagator(n, (0.0, 0.0), nu, lam, dt), dt)
    np.testing.assert_allclose(out, np.exp(-(nu * k2 + lam) * dt) * u, atol=1e-12)


def test_gaussian_bump_is_periodic() -> None:
    g = gaussian_bump(16, np.array([0.0, 0.0]), 2.0)
    assert g[0, 0] == pytest.approx(1.0)
    assert g[15, 0] == pytest.approx(g[1, 0]) == pytest.approx(np.exp(-1 / 8))
    assert g[0, 15] == pytest.approx(g[0, 1])


def test_episode_mean_follows_the_source_balance() -> None:
    cfg = FieldConfig(grid=16, steps=5, spinup=0, damping=0.2, sources=1, source_amp=(0.5, 0.5))
    frames, paths = simulate_episode(cfg, np.random.default_rng(3))
    assert frames.shape == (5, 16, 16) and paths.shape == (5, 1, 2)
    m = 0.0  # mean_t = e^{−λ}(mean_{t−1} + a · mean(bump at the recorded source position))
    for t in range(5):
        m = np.exp(-cfg.damping) * (m + 0.5 * gaussian_bump(16, paths[t, 0], cfg.source_width).mean())
        assert frames[t].mean() == pytest.approx(m, rel=1e-5)


def test_dataset_is_seeded_and_bad_config_is_a_user_error() -> None:
    cfg = FieldConfig(grid=8, steps=3, spinup=2)
    a, b = make_dataset(cfg, 2, 7), make_dataset(cfg, 2, 7)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, make_dataset(cfg, 2, 8))
    with pytest.raises(UserError, match="diffusion"):
        FieldConfig(diffusion=-1.0).validate()
    with pytest.raises(UserError, match="source_speed"):
        FieldConfig(source_speed=(2.0, 1.0)).validate()
    with pytest.raises(UserError, match="episodes"):
        make_dataset(cfg, 0, 0)
