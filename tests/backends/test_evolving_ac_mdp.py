"""The random MDP's exact average-reward gradient against finite differences (plain and entropy-regularised
rewards, tabular and linear-feature policies), and the stationary law and Poisson equation it rests on."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.evolving_ac.mdp import (
    SoftmaxPolicy,
    average_reward,
    differential_values,
    exact_gradient,
    random_mdp,
    regularised_reward,
    stationary,
)
from paperworks.core.errors import UserError


def _fd_gradient(f, theta: np.ndarray, h: float = 1e-6) -> np.ndarray:  # type: ignore[no-untyped-def]
    g = np.zeros_like(theta)
    for k in range(len(theta)):
        e = np.zeros_like(theta)
        e[k] = h
        g[k] = (f(theta + e) - f(theta - e)) / (2 * h)
    return g


@pytest.mark.parametrize("kind", ["tabular", "linear"])
@pytest.mark.parametrize("tau", [0.0, 0.3])
def test_exact_gradient_matches_finite_differences(kind: str, tau: float) -> None:
    mdp = random_mdp(5, 3, seed=1)
    policy = SoftmaxPolicy.tabular(5, 3) if kind == "tabular" else SoftmaxPolicy.linear(5, 3, k=4, seed=2)
    theta = np.random.default_rng(3).normal(size=policy.dim)
    psi = np.array([0.7, -0.4])

    def J(th: np.ndarray) -> float:
        # the entropy term depends on theta: recompute the reward table at every perturbed theta
        return average_reward(mdp, policy, th, regularised_reward(mdp, policy, th, psi, tau))

    g = exact_gradient(mdp, policy, theta, regularised_reward(mdp, policy, theta, psi, tau))
    fd = _fd_gradient(J, theta)
    assert np.abs(fd).max() > 1e-3  # a non-trivial gradient
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-8)


def test_stationary_law_and_poisson_equation() -> None:
    mdp = random_mdp(6, 2, seed=4)
    policy = SoftmaxPolicy.tabular(6, 2)
    theta = np.random.default_rng(5).normal(size=policy.dim)
    pi = policy.probs(theta)
    P_pi = np.einsum("sa,sat->st", pi, mdp.P)
    d = stationary(P_pi)
    np.testing.assert_allclose(d @ P_pi, d, atol=1e-12)
    np.testing.assert_allclose(d, np.linalg.matrix_power(P_pi, 500)[0], atol=1e-10)  # the chain's limit
    reward = mdp.reward(None)
    d2, J, V = differential_values(mdp, policy, theta, reward)
    r_pi = (pi * reward).sum(1)
    np.testing.assert_allclose(V, r_pi - J + P_pi @ V, atol=1e-12)  # V = r_pi - J + P_pi V
    assert d2 @ V == pytest.approx(0.0, abs=1e-12) and J == pytest.approx(float(d @ r_pi))
    # entropy regularisation adds tau times the stationary average of the policy's entropy
    tau = 0.3
    entropy = -(pi * np.log(pi)).sum(1)
    J_tau = average_reward(mdp, policy, theta, regularised_reward(mdp, policy, theta, None, tau))
    assert J_tau == pytest.approx(J + tau * float(d @ entropy), rel=1e-10)


def test_policy_and_mdp_shapes_and_errors() -> None:
    mdp = random_mdp(4, 3, seed=0)
    np.testing.assert_allclose(mdp.P.sum(-1), 1.0)
    np.testing.assert_allclose(mdp.reward(np.array([1.0, 2.0])), mdp.R + mdp.B[0] + 2 * mdp.B[1])
    policy = SoftmaxPolicy.tabular(4, 3)
    theta = np.zeros(12)
    theta[3 * 1 + 2] = np.log(2.0)  # state 1: logits (0, 0, log 2) -> (1/4, 1/4, 1/2)
    np.testing.assert_allclose(policy.probs(theta)[1], [0.25, 0.25, 0.5])
    with pytest.raises(UserError, match="n_states"):
        random_mdp(1, 3)
    with pytest.raises(UserError, match="features"):
        SoftmaxPolicy(np.zeros((3, 2)))
