"""Audit: evolving_ac's exact objective against brute-force references (stationary law by power iteration, J by
a long expected-reward recursion, V by the Bellman residual, grad J by central differences of the reference
J), and malformed MDPs / policies / parameters raising one-line errors instead of garbage."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.evolving_ac.ac import ACConfig, run_actor_critic
from paperworks.backends.evolving_ac.mdp import (
    MDP,
    SoftmaxPolicy,
    average_reward,
    differential_values,
    exact_gradient,
    random_mdp,
)
from paperworks.core.errors import UserError


def _ref_j(mdp: MDP, pi: np.ndarray, reward: np.ndarray) -> tuple[np.ndarray, float]:
    p_pi = np.einsum("sa,sat->st", pi, mdp.P)
    d = np.full(mdp.n_states, 1 / mdp.n_states)
    for _ in range(5000):
        d = d @ p_pi
    return d, float(d @ (pi * reward).sum(1))


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("seed", range(6))
def test_objective_values_and_gradient_match_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    s, a = int(rng.integers(2, 5)), int(rng.integers(2, 4))
    mdp = random_mdp(s, a, 2, concentration=float(rng.uniform(0.3, 2)), seed=seed)
    pol = SoftmaxPolicy.linear(s, a, 3, seed=seed) if seed % 2 else SoftmaxPolicy.tabular(s, a)
    theta = rng.normal(size=pol.dim)
    reward = mdp.reward(rng.normal(size=2))
    pi = _softmax(pol.Psi @ theta)
    d_ref, j_ref = _ref_j(mdp, pi, reward)
    d, j, v = differential_values(mdp, pol, theta, reward)
    assert np.allclose(d, d_ref, atol=1e-10) and j == pytest.approx(j_ref, abs=1e-10)
    assert average_reward(mdp, pol, theta, reward) == pytest.approx(j_ref, abs=1e-10)
    p_pi = np.einsum("sa,sat->st", pi, mdp.P)
    assert np.allclose(v, (pi * reward).sum(1) - j + p_pi @ v, atol=1e-10) and abs(d @ v) < 1e-10
    num = np.zeros(pol.dim)
    for k in range(pol.dim):
        e = np.zeros(pol.dim)
        e[k] = 1e-5
        num[k] = (_ref_j(mdp, _softmax(pol.Psi @ (theta + e)), reward)[1]
                  - _ref_j(mdp, _softmax(pol.Psi @ (theta - e)), reward)[1]) / 2e-5
    assert np.allclose(exact_gradient(mdp, pol, theta, reward), num, atol=1e-7)


MDP0 = random_mdp(3, 2, 2, seed=0)
POL = SoftmaxPolicy.tabular(3, 2)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: MDP(P=np.ones((2, 2, 2)), R=np.zeros((2, 2)), B=np.zeros((0, 2, 2))), "probability distribution"),
    (lambda: MDP(P=MDP0.P, R=np.zeros((3, 3)), B=MDP0.B), "R must have shape"),
    (lambda: MDP(P=MDP0.P[:, :, :2], R=MDP0.R, B=MDP0.B), "P must have shape"),
    (lambda: MDP(P=MDP0.P, R=np.full((3, 2), np.nan), B=MDP0.B), "R contains NaN"),
    (lambda: MDP0.reward(np.zeros(3)), "psi must be 2"),
    (lambda: POL.probs(np.zeros(5)), "theta must be 6"),  # (k, 1) or short theta broadcast silently
    (lambda: POL.probs(np.full(6, np.nan)), "theta must be 6 finite"),
    (lambda: average_reward(MDP0, SoftmaxPolicy.tabular(2, 2), np.zeros(4), MDP0.R), "policy features are for"),
    (lambda: average_reward(MDP0, POL, np.zeros(6), np.zeros((3, 3))), "reward table must be"),
    (lambda: SoftmaxPolicy(np.full((3, 2, 1), np.inf)), "features contain NaN"),
    (lambda: run_actor_critic(MDP0, SoftmaxPolicy.tabular(2, 2), np.eye(3), None, 5, 1, ACConfig()),  # type: ignore[arg-type]
     "policy features are for"),
    (lambda: run_actor_critic(MDP0, POL, np.ones(3), None, 5, 1, ACConfig()), "critic features"),  # type: ignore[arg-type]
])
def test_bad_input_raises_one_line_error(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError, match=match) as info:
        call()
    assert "\n" not in str(info.value)
