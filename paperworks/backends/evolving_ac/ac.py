"""Single-timescale actor–critic for the average reward under Markovian sampling, with an evolving reward.

One sample per step from one running chain (no resets), all step sizes of order ``1/sqrt(T)``:

    r = R(s, a) + psi . B(s, a) - tau log pi_theta(a|s)        (see :mod:`.schedules`)
    delta = r - eta + phi(s')^T w - phi(s)^T w
    eta   <- eta + gamma (r - eta)
    w     <- Pi_{|w| <= w_max}(w + beta delta phi(s))
    theta <- theta + alpha delta grad log pi_theta(a|s)
    psi   <- schedule update (see :mod:`.schedules`)

The update order and the projection follow the issue's reconstruction (the paper's code is not public).
``n_runs`` independent runs (seeds) advance together, vectorised; the actor's error is measured exactly,
``|grad J_t(theta_t)|^2`` (``J_t``: the average of the reward of time ``t``) from the stationary law
(:func:`.mdp.exact_gradient`), at ``n_eval`` geometrically spaced times, whose trapezoidal mean estimates
``(1/T) sum_t |grad J_t(theta_t)|^2``; the critic's error likewise (:func:`run_actor_critic`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.backends.evolving_ac.mdp import (
    MDP,
    SoftmaxPolicy,
    differential_values,
    exact_gradient,
    regularised_reward,
)
from paperworks.backends.evolving_ac.schedules import Schedule
from paperworks.core.errors import UserError
from paperworks.core.tracking import track


@dataclass
class ACConfig:
    """Step sizes (each divided by ``sqrt(T)``) and measurement."""

    alpha0: float = 1.0
    """Actor step: ``alpha = alpha0 / sqrt(T)``."""
    beta0: float = 1.0
    """Critic step: ``beta = beta0 / sqrt(T)``."""
    gamma0: float = 1.0
    """Average-reward step: ``gamma = gamma0 / sqrt(T)``."""
    zeta0: float = 1.0
    """Reward-parameter step (gradient schedule): ``zeta = zeta0 / sqrt(T)``."""
    w_max: float = 50.0
    """Radius of the critic's projection ball."""
    n_eval: int = 100
    """Times at which the exact gradient is measured."""


def _sample(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of ``probs`` ``(n, K)``."""
    u = rng.random((probs.shape[0], 1))
    return np.minimum((probs.cumsum(1) < u).sum(1), probs.shape[1] - 1)


def run_actor_critic(mdp: MDP, policy: SoftmaxPolicy, phi: np.ndarray, schedule: Schedule, T: int, n_runs: int,
                     cfg: ACConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """``n_runs`` runs of ``T`` steps; returns ``times`` ``(n_eval,)``; ``grad_sq``, ``J`` and ``critic_sq``
    ``(n_runs, n_eval)`` under the reward of that time; and their means over time ``avg_grad_sq``,
    ``avg_critic_sq`` ``(n_runs,)``; and the final ``theta``, ``w``, ``eta``. The critic's error is
    ``Var_d(phi^T w - V) + (eta - J)^2``: differential values are defined up to a constant, so the constant part
    of ``phi^T w - V`` is not counted."""
    if T < 1 or n_runs < 1 or cfg.n_eval < 1:
        raise UserError(f"run_actor_critic: need T, n_runs, n_eval >= 1; got {T}, {n_runs}, {cfg.n_eval}")
    phi = np.asarray(phi, dtype=float)
    if policy.Psi.shape[:2] != (mdp.n_states, mdp.n_actions):
        raise UserError(f"policy features are for {policy.Psi.shape[:2]} (states, actions); the MDP has "
                        f"{(mdp.n_states, mdp.n_actions)}")
    if phi.ndim != 2 or phi.shape[0] != mdp.n_states or not np.all(np.isfinite(phi)):
        raise UserError(f"critic features: expected finite ({mdp.n_states}, k) (one row per state), got {phi.shape}")
    rng = np.random.default_rng(seed)
    root = np.sqrt(T)
    alpha, beta, gamma, zeta = cfg.alpha0 / root, cfg.beta0 / root, cfg.gamma0 / root, cfg.zeta0 / root
    S, m = mdp.n_states, mdp.B.shape[0]
    theta = np.zeros((n_runs, policy.dim))
    w = np.zeros((n_runs, phi.shape[1]))
    eta = np.zeros(n_runs)
    psi = schedule.initial(n_runs, m)
    s = rng.integers(0, S, n_runs)
    times = eval_times(T, cfg.n_eval)
    grad_sq = np.zeros((n_runs, len(times)))
    J = np.zeros((n_runs, len(times)))
    critic_sq = np.zeros((n_runs, len(times)))
    Bt = np.moveaxis(mdp.B, 0, -1)  # (S, A, m)
    rows = np.arange(n_runs)
    k = 0
    for t in range(T):
        tau = schedule.entropy(t)
        if k < len(times) and t == times[k]:
            for i in range(n_runs):
                reward = regularised_reward(mdp, policy, theta[i], psi[i], tau)
                g = exact_gradient(mdp, policy, theta[i], reward)
                grad_sq[i, k] = g @ g
                d, J[i, k], V = differential_values(mdp, policy, theta[i], reward)
                e = phi @ w[i] - V
                critic_sq[i, k] = d @ (e - d @ e) ** 2 + (eta[i] - J[i, k]) ** 2
            track("grad_sq", grad_sq[:, k].mean(), t)  # means over the runs, at this measurement time
            track("critic_sq", critic_sq[:, k].mean(), t)
            track("J", J[:, k].mean(), t)
            k += 1
        feats = policy.Psi[s]  # (n, A, k)
        logits = np.einsum("nak,nk->na", feats, theta)
        z = logits - logits.max(1, keepdims=True)
        log_pi = z - np.log(np.exp(z).sum(1, keepdims=True))
        pi = np.exp(log_pi)
        a = _sample(pi, rng)
        s2 = _sample(mdp.P[s, a], rng)
        b_sa = Bt[s, a]
        r = mdp.R[s, a] + (psi * b_sa).sum(1) - tau * log_pi[rows, a]
        delta = r - eta + (phi[s2] * w).sum(1) - (phi[s] * w).sum(1)
        eta = eta + gamma * (r - eta)
        w = w + beta * delta[:, None] * phi[s]
        norm = np.linalg.norm(w, axis=1, keepdims=True)
        w = np.where(norm > cfg.w_max, w * (cfg.w_max / np.maximum(norm, 1e-12)), w)
        score = feats[rows, a] - np.einsum("na,nak->nk", pi, feats)
        theta = theta + alpha * delta[:, None] * score
        psi = schedule.update(t, psi, b_sa, zeta)
        s = s2
    return {"times": times, "grad_sq": grad_sq, "J": J, "avg_grad_sq": time_average(times, grad_sq),
            "critic_sq": critic_sq, "avg_critic_sq": time_average(times, critic_sq), "theta": theta, "w": w,
            "eta": eta}


def eval_times(T: int, n_eval: int) -> np.ndarray:
    """Measurement times in ``[0, T)``: 0 and ``n_eval - 1`` geometrically spaced ones up to ``T - 1``, so that
    the early transient (about ``sqrt(T)`` steps long) is resolved as well as the tail."""
    if T == 1 or n_eval == 1:
        return np.array([0])
    return np.unique(np.concatenate([[0], np.geomspace(1, T - 1, n_eval - 1).round().astype(int)]))


def time_average(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``(1/(t_last - t_0)) ∫ values dt`` by the trapezoidal rule over the measurement ``times`` (last axis);
    a single time gives its value."""
    if len(times) == 1:
        return values[..., 0]
    return np.trapezoid(values, times, axis=-1) / float(times[-1] - times[0])


def fit_slope(Ts: np.ndarray, values: np.ndarray) -> float:
    """Least-squares slope of ``log values`` against ``log T``."""
    x, y = np.log(np.asarray(Ts, dtype=float)), np.log(np.asarray(values, dtype=float))
    if len(x) < 2:
        raise UserError("fit_slope: need at least two horizons")
    return float(np.polyfit(x, y, 1)[0])
