"""Stochastic systems that generate the training and reference trajectories.

Each :class:`SDE` is ``dX = b(X) dt + sigma dW`` (additive noise), simulated by Euler–Maruyama with ``substeps``
inner steps per observation interval ``dt_obs`` (as the authors' ``sl/sde.py`` generates data):

- ``ou`` — Ornstein–Uhlenbeck ``b(x) = -theta x`` in 1-D, whose transition law is exact
  (:func:`ou_exact_transition`): ``N(x e^{-theta dt}, sigma^2 (1 - e^{-2 theta dt}) / (2 theta))``;
- ``double_well`` — ``b(x) = x - x^3`` in 1-D: bimodal, so a mean predictor collapses between the wells;
- ``ring`` — a noisy Stuart–Landau oscillator in 2-D, ``b(z) = (1 - |z|^2) z + omega J z``: the law spreads
  around the limit cycle (a ring), whose mean is near the origin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from paperworks.core.errors import UserError


@dataclass(frozen=True)
class SDE:
    """An additive-noise SDE and how it is observed."""

    name: str
    """``ou``, ``double_well`` or ``ring``."""
    dim: int
    """State dimension."""
    sigma: float
    """Noise amplitude."""
    dt_obs: float
    """Time between observations (one transition of the learned map)."""
    substeps: int = 20
    """Euler–Maruyama steps per observation interval (:func:`make_system` keeps each at most 0.01 long, the
    authors' default step in ``sl/sde.py``)."""
    theta: float = 1.0
    """OU mean-reversion rate."""
    omega: float = 1.0
    """Rotation rate of the ring oscillator."""

    def drift(self, x: np.ndarray) -> np.ndarray:
        """``b(x)`` for states ``(n, dim)``."""
        if self.name == "ou":
            return -self.theta * x
        if self.name == "double_well":
            return x - x ** 3
        if self.name == "ring":
            r2 = (x ** 2).sum(-1, keepdims=True)
            rot = np.stack([-x[:, 1], x[:, 0]], axis=-1)
            return (1.0 - r2) * x + self.omega * rot
        raise UserError(f"unknown system '{self.name}'; known: ou, double_well, ring")

    def step(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One observation interval from states ``(n, dim)``."""
        h = self.dt_obs / self.substeps
        for _ in range(self.substeps):
            x = x + self.drift(x) * h + self.sigma * np.sqrt(h) * rng.normal(size=x.shape)
        return x

    def simulate(self, x0: np.ndarray, n_steps: int, rng: np.random.Generator) -> np.ndarray:
        """Trajectories ``(n, n_steps + 1, dim)`` observed every ``dt_obs`` from ``x0`` ``(n, dim)``."""
        x = np.asarray(x0, dtype=float).reshape(-1, self.dim)
        out = [x]
        for _ in range(n_steps):
            x = self.step(x, rng)
            out.append(x)
        return np.stack(out, axis=1)

    def initial(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` initial states: ``ou`` from N(1.5, 0.1^2), ``double_well`` near the barrier top
        N(0, 0.1^2), ``ring`` near the point (1, 0) with spread 0.1."""
        if self.name == "ou":
            return 1.5 + 0.1 * rng.normal(size=(n, 1))
        if self.name == "double_well":
            return 0.1 * rng.normal(size=(n, 1))
        if self.name == "ring":
            return np.array([1.0, 0.0]) + 0.1 * rng.normal(size=(n, 2))
        raise UserError(f"unknown system '{self.name}'; known: ou, double_well, ring")


def make_system(name: str, dt_obs: float | None = None, sigma: float | None = None) -> SDE:
    """The systems of the repro with their default noise and observation interval."""
    defaults = {"ou": (1, 0.5, 0.2), "double_well": (1, 0.5, 0.2), "ring": (2, 0.3, 0.2)}
    if name not in defaults:
        raise UserError(f"unknown system '{name}'; known: {', '.join(defaults)}")
    dim, sig, dt = defaults[name]
    dt = dt if dt_obs is None else dt_obs
    sig = sig if sigma is None else sigma
    if dt <= 0 or sig < 0:
        raise UserError(f"system '{name}': dt_obs must be > 0 and sigma >= 0, got {dt}, {sig}")
    return SDE(name=name, dim=dim, sigma=sig, dt_obs=dt, substeps=max(20, math.ceil(dt / 0.01 - 1e-9)))


def ou_exact_transition(x: np.ndarray, sde: SDE, n_steps: int = 1) -> tuple[np.ndarray, float]:
    """Mean and standard deviation of the OU state ``n_steps`` observation intervals after ``x``."""
    if sde.name != "ou":
        raise UserError(f"ou_exact_transition: system is '{sde.name}', not 'ou'")
    t = n_steps * sde.dt_obs
    mean = np.asarray(x, dtype=float) * np.exp(-sde.theta * t)
    std = sde.sigma * np.sqrt((1.0 - np.exp(-2.0 * sde.theta * t)) / (2.0 * sde.theta))
    return mean, float(std)


def transitions(paths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All consecutive pairs ``(x_t, x_{t+1})`` of trajectories ``(n, T + 1, dim)``, flattened."""
    x = paths[:, :-1].reshape(-1, paths.shape[-1])
    y = paths[:, 1:].reshape(-1, paths.shape[-1])
    return x, y
