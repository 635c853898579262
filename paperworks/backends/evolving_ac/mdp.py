"""Random finite MDPs, softmax policies over features, and the exact average-reward objective and gradient.

- :func:`random_mdp` — ``S`` states, ``A`` actions, transition rows drawn from a Dirichlet law (every entry
  positive, so every policy's chain is irreducible and aperiodic), base rewards ``R`` in [0, 1] and shaping
  tables ``B`` (rewards ``r_psi = R + sum_j psi_j B_j``);
- :class:`SoftmaxPolicy` — ``pi(a|s) ∝ exp(theta . Psi[s, a])`` over policy features ``Psi``: one-hot features
  give the tabular softmax, random ones a linear-feature policy;
- :func:`stationary`, :func:`average_reward`, :func:`exact_gradient` — ``d_theta``, ``J(theta) = sum_s d(s)
  sum_a pi(a|s) r(s, a)`` and, by the policy-gradient theorem, ``grad J = sum_s d(s) sum_a pi(a|s)
  grad log pi(a|s) Q(s, a)`` with the differential values from the Poisson equation
  ``(I - P_pi + 1 d^T) V = r_pi - J 1``;
- :func:`regularised_reward` — ``R + psi . B - tau log pi_theta(a|s)``: with an entropy coefficient ``tau`` the
  reward depends on ``theta`` too, yet the same formula gives the exact gradient, because the extra term
  ``sum_a pi grad(-tau log pi) = -tau grad sum_a pi = 0`` vanishes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.core.errors import UserError


@dataclass
class MDP:
    """A finite MDP with rewards linear in the reward parameters ``psi``."""

    P: np.ndarray
    """Transition probabilities ``(S, A, S)``."""
    R: np.ndarray
    """Base rewards ``(S, A)``."""
    B: np.ndarray
    """Shaping tables ``(m, S, A)``: ``r_psi = R + sum_j psi_j B[j]``."""

    def __post_init__(self) -> None:
        self.P, self.R, self.B = (np.asarray(x, dtype=float) for x in (self.P, self.R, self.B))
        if self.P.ndim != 3 or self.P.shape[0] != self.P.shape[2] or self.P.shape[0] < 1 or self.P.shape[1] < 1:
            raise UserError(f"MDP: P must have shape (S, A, S), got {self.P.shape}")
        s, a = self.P.shape[:2]
        if self.R.shape != (s, a):
            raise UserError(f"MDP: R must have shape ({s}, {a}), got {self.R.shape}")
        if self.B.ndim != 3 or self.B.shape[1:] != (s, a):
            raise UserError(f"MDP: B must have shape (m, {s}, {a}), got {self.B.shape}")
        for name in ("P", "R", "B"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise UserError(f"MDP: {name} contains NaN or infinity")
        if np.any(self.P < 0) or not np.allclose(self.P.sum(-1), 1.0, atol=1e-8):
            raise UserError("MDP: every row P[s, a, :] must be a probability distribution (>= 0, summing to 1)")

    @property
    def n_states(self) -> int:
        return int(self.P.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.P.shape[1])

    def reward(self, psi: np.ndarray | None) -> np.ndarray:
        """The reward table ``(S, A)`` for parameters ``psi`` (``None`` = base rewards)."""
        if psi is None:
            return self.R
        p = np.asarray(psi, dtype=float)
        if p.shape != (self.B.shape[0],) or not np.all(np.isfinite(p)):
            raise UserError(f"MDP.reward: psi must be {self.B.shape[0]} finite numbers, got shape {p.shape}")
        return self.R + np.tensordot(p, self.B, axes=1)


def random_mdp(n_states: int, n_actions: int, n_shaping: int = 2, concentration: float = 1.0,
               seed: int = 0) -> MDP:
    """A random MDP (see the module docstring); ``concentration`` is the Dirichlet parameter."""
    if n_states < 2 or n_actions < 2 or n_shaping < 0 or concentration <= 0:
        raise UserError(f"random_mdp: need n_states >= 2, n_actions >= 2, n_shaping >= 0, concentration > 0; "
                        f"got {n_states}, {n_actions}, {n_shaping}, {concentration}")
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(n_states, concentration), size=(n_states, n_actions))
    R = rng.uniform(0.0, 1.0, size=(n_states, n_actions))
    B = rng.uniform(-1.0, 1.0, size=(n_shaping, n_states, n_actions))
    return MDP(P=P, R=R, B=B)


class SoftmaxPolicy:
    """``pi_theta(a|s) = softmax_a(theta . Psi[s, a])``."""

    def __init__(self, features: np.ndarray) -> None:
        f = np.asarray(features, dtype=float)
        if f.ndim != 3 or 0 in f.shape:
            raise UserError(f"SoftmaxPolicy: features must have shape (S, A, k), got {f.shape}")
        if not np.all(np.isfinite(f)):
            raise UserError("SoftmaxPolicy: features contain NaN or infinity")
        self.Psi = f

    @classmethod
    def tabular(cls, n_states: int, n_actions: int) -> SoftmaxPolicy:
        """One-hot features: ``theta`` is the ``S x A`` logit table."""
        return cls(np.eye(n_states * n_actions).reshape(n_states, n_actions, n_states * n_actions))

    @classmethod
    def linear(cls, n_states: int, n_actions: int, k: int, seed: int = 0) -> SoftmaxPolicy:
        """Gaussian random features of dimension ``k``."""
        rng = np.random.default_rng(seed)
        return cls(rng.normal(size=(n_states, n_actions, k)) / np.sqrt(k))

    @property
    def dim(self) -> int:
        return int(self.Psi.shape[2])

    def probs(self, theta: np.ndarray) -> np.ndarray:
        """``pi(a|s)`` as ``(S, A)`` for one ``theta`` ``(k,)``."""
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (self.dim,) or not np.all(np.isfinite(theta)):
            raise UserError(f"SoftmaxPolicy: theta must be {self.dim} finite numbers, got shape {theta.shape}")
        logits = self.Psi @ theta
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def score(self, theta: np.ndarray) -> np.ndarray:
        """``grad_theta log pi(a|s)`` as ``(S, A, k)``."""
        pi = self.probs(theta)
        return self.Psi - np.einsum("sa,sak->sk", pi, self.Psi)[:, None, :]


def _check_pair(mdp: MDP, policy: SoftmaxPolicy, reward: np.ndarray | None = None) -> None:
    """The policy's features and the reward table fit the MDP's ``(S, A)``."""
    sa = (mdp.n_states, mdp.n_actions)
    if policy.Psi.shape[:2] != sa:
        raise UserError(f"policy features are for {policy.Psi.shape[:2]} (states, actions); the MDP has {sa}")
    if reward is not None:
        r = np.asarray(reward)
        if r.shape != sa or not np.all(np.isfinite(r)):
            raise UserError(f"reward table must be {sa} finite numbers, got shape {r.shape}")


def regularised_reward(mdp: MDP, policy: SoftmaxPolicy, theta: np.ndarray, psi: np.ndarray | None,
                       tau: float) -> np.ndarray:
    """The reward table ``R + psi . B - tau log pi_theta(a|s)`` ``(S, A)``."""
    _check_pair(mdp, policy)
    table = mdp.reward(psi)
    if tau:
        table = table - tau * np.log(policy.probs(theta))
    return table


def stationary(P_pi: np.ndarray) -> np.ndarray:
    """The stationary distribution of an irreducible chain ``(S, S)``."""
    S = P_pi.shape[0]
    A = np.vstack([P_pi.T - np.eye(S), np.ones((1, S))])
    b = np.zeros(S + 1)
    b[-1] = 1.0
    d = np.linalg.lstsq(A, b, rcond=None)[0]
    d = np.clip(d, 0.0, None)
    return d / d.sum()


def average_reward(mdp: MDP, policy: SoftmaxPolicy, theta: np.ndarray, reward: np.ndarray) -> float:
    """``J(theta) = sum_s d(s) sum_a pi(a|s) r(s, a)`` for the reward table ``(S, A)``."""
    _check_pair(mdp, policy, reward)
    pi = policy.probs(theta)
    d = stationary(np.einsum("sa,sat->st", pi, mdp.P))
    return float(d @ (pi * reward).sum(1))


def differential_values(mdp: MDP, policy: SoftmaxPolicy, theta: np.ndarray,
                        reward: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """Stationary law ``d``, average reward ``J`` and differential values ``V`` (with ``d . V = 0``)."""
    _check_pair(mdp, policy, reward)
    pi = policy.probs(theta)
    P_pi = np.einsum("sa,sat->st", pi, mdp.P)
    d = stationary(P_pi)
    r_pi = (pi * reward).sum(1)
    J = float(d @ r_pi)
    S = mdp.n_states
    V = np.linalg.solve(np.eye(S) - P_pi + np.outer(np.ones(S), d), r_pi - J)
    return d, J, V


def exact_gradient(mdp: MDP, policy: SoftmaxPolicy, theta: np.ndarray, reward: np.ndarray) -> np.ndarray:
    """``grad_theta J`` by the policy-gradient theorem (exact: stationary law and Poisson equation), for a
    reward table fixed at this ``theta`` (see :func:`regularised_reward` for why that covers entropy)."""
    d, J, V = differential_values(mdp, policy, theta, reward)
    pi = policy.probs(theta)
    Q = reward - J + mdp.P @ V
    return np.einsum("s,sa,sak,sa->k", d, pi, policy.score(theta), Q)
