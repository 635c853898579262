"""Reward schedules: ``r_t(s, a) = R(s, a) + psi_t . B(s, a) - tau_t log pi_theta(a|s)`` (two shaping tables
``B`` and an entropy coefficient ``tau``).

- ``static`` — ``psi = 0``, ``tau = tau0`` throughout;
- ``drift`` — a decaying entropy coefficient, ``tau_t = tau_end + (tau0 - tau_end) / sqrt(1 + t / t_scale)``
  (total variation ``tau0 - tau_end`` however long the run: slow drift);
- ``gradient`` — ``psi`` updated on the actor's timescale by a bounded gradient rule,
  ``psi <- Pi_[-c, c](psi + zeta (c B[:, s_t, a_t] - psi))`` (a stochastic gradient step on
  ``1/2 |psi - c B(s_t, a_t)|^2``, bounded by ``2 c sqrt(2)``), so the reward follows the visited pairs;
- ``switching`` — fast switching, ``psi_0 = c (-1)^floor(t / period)``: the objective jumps by ``2c B_0`` every
  ``period`` steps however small the step sizes, which the slow-drift condition excludes.

These forms are this project's reconstruction: the paper's examples (reward shaping, entropy regularisation,
curricula) are named in its abstract, not its exact rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.core.errors import UserError

KINDS = ("static", "drift", "gradient", "switching")


@dataclass(frozen=True)
class Schedule:
    """How the reward parameters evolve."""

    kind: str = "static"
    """One of :data:`KINDS`."""
    tau0: float = 0.2
    """Entropy coefficient (the drift's starting value)."""
    tau_end: float = 0.05
    """The drift's limit of the entropy coefficient."""
    t_scale: float = 100.0
    """Time scale of the drift's decay (steps)."""
    c: float = 1.0
    """Amplitude of the shaping coefficients (gradient, switching)."""
    period: int = 50
    """Steps between switches."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UserError(f"unknown reward schedule '{self.kind}'; known: {', '.join(KINDS)}")
        if self.c < 0 or self.tau0 < 0 or self.tau_end < 0 or self.t_scale <= 0 or self.period < 1:
            raise UserError(f"schedule '{self.kind}': need c, tau0, tau_end >= 0, t_scale > 0, period >= 1; got "
                            f"{self.c}, {self.tau0}, {self.tau_end}, {self.t_scale}, {self.period}")

    def entropy(self, t: int) -> float:
        """``tau_t``."""
        if self.kind == "drift":
            return self.tau_end + (self.tau0 - self.tau_end) / float(np.sqrt(1.0 + t / self.t_scale))
        return self.tau0

    def initial(self, n_runs: int, m: int) -> np.ndarray:
        """``psi_0`` for ``n_runs`` parallel runs, shape ``(n_runs, m)``."""
        return self._open_loop(0, np.zeros((n_runs, m)))

    def _open_loop(self, t: int, psi: np.ndarray) -> np.ndarray:
        out = np.zeros_like(psi)
        if self.kind == "switching":
            out[:, 0] = self.c * (-1.0) ** (t // self.period)
        return out

    def update(self, t: int, psi: np.ndarray, b_sa: np.ndarray, zeta: float) -> np.ndarray:
        """``psi_{t+1}`` from ``psi_t`` ``(n_runs, m)`` and the shaping features ``B[:, s_t, a_t]`` of each
        run ``(n_runs, m)``, with step size ``zeta``."""
        if self.kind == "gradient":
            return np.clip(psi + zeta * (self.c * b_sa - psi), -self.c, self.c)
        return self._open_loop(t + 1, psi)
