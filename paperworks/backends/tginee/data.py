"""Synthetic multilayer networks with a known CP mean tensor, communities and cross-layer correlation.

Nodes fall into ``K`` communities. Component 0 of the CP tensor sets the sparsity (``U_i0, V_j0 ~ 1.2``,
``W_l0 ~ -1.5``: a negative baseline), components ``1..R-1`` carry assortative community structure (node
factors near their community's centroid, the same centroids for senders and receivers) with layer
loadings that differ by layer (layers trade one community axis for the other, so the CP is well
identified). Edges are drawn through a Gaussian copula: for each pair the latent vector
``z_ij ~ N(0, (1 - rho) I + rho 11^T)`` across layers and ``y_ijl = 1[Phi(z_ijl) < mu_ijl]``, so every
edge has exactly the mean ``mu_ijl = s sigmoid(Theta_ijl)`` and the layers of a pair are positively
correlated, increasingly with ``rho`` (0: independent layers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from paperworks.backends.tginee.model import cp_tensor, mean_fn
from paperworks.core.errors import UserError


@dataclass
class NetworkConfig:
    """One synthetic multilayer network."""

    nodes: int = 40
    """Number of nodes ``n``."""
    layers: int = 4
    """Number of layers ``L``."""
    rank: int = 3
    """CP rank ``R`` (>= 2: one sparsity component and ``R - 1`` community components)."""
    communities: int = 3
    """Communities ``K``."""
    rho: float = 0.5
    """Latent exchangeable correlation of a pair's layers (Gaussian copula), in [0, 1)."""
    link_scale: float = 0.8
    """``s`` of the scaled logistic link."""
    signal: float = 1.2
    """Radius of the community centroids in the community components."""
    holdout: float = 0.2
    """Share of node pairs (all their layers) held out for link prediction."""


@dataclass
class Network:
    """A drawn network with its truth."""

    y: np.ndarray
    """Edges (n x n x L, 0/1; the diagonal is 0 and unused)."""
    theta: np.ndarray
    """True ``Theta``."""
    mu: np.ndarray
    """True edge probabilities."""
    labels: np.ndarray
    """True community of each node."""
    train: np.ndarray
    """Pairs used for fitting (n x n bool)."""
    test: np.ndarray
    """Held-out pairs."""


def make_network(cfg: NetworkConfig, seed: int, edge_seed: int | None = None) -> Network:
    """Draw one network (see the module docstring).

    ``seed`` draws everything by default. With ``edge_seed``, ``seed`` draws the truth (factors, labels) and
    the held-out pairs, and ``edge_seed`` only the edges: networks sharing ``seed`` then share ``Theta`` and
    the design and differ only in ``y`` (the replications of the coverage diagnostic)."""
    if cfg.nodes < 4 or cfg.layers < 1 or cfg.rank < 2 or cfg.communities < 1:
        raise UserError("tginee data: need nodes >= 4, layers >= 1, rank >= 2, communities >= 1")
    if not 0.0 <= cfg.rho < 1.0 or not 0.0 < cfg.holdout < 1.0:
        raise UserError(f"tginee data: rho must be in [0, 1) and holdout in (0, 1), got {cfg.rho}, {cfg.holdout}")
    rng = np.random.default_rng(seed)
    n, L, R, K = cfg.nodes, cfg.layers, cfg.rank, cfg.communities
    labels = rng.permutation(np.arange(n) % K)
    ang = 2 * np.pi * np.arange(K) / K
    cent = np.zeros((K, R - 1))
    cent[:, 0] = np.cos(ang)
    if R > 2:
        cent[:, 1] = np.sin(ang)
    cent *= cfg.signal
    U = np.empty((n, R))
    V = np.empty((n, R))
    U[:, 0] = 1.2 + 0.15 * rng.standard_normal(n)
    V[:, 0] = 1.2 + 0.15 * rng.standard_normal(n)
    U[:, 1:] = cent[labels] + 0.3 * rng.standard_normal((n, R - 1))
    V[:, 1:] = cent[labels] + 0.3 * rng.standard_normal((n, R - 1))
    W = np.empty((L, R))
    W[:, 0] = -0.8 * (1 + 0.1 * rng.standard_normal(L))
    for r in range(1, R):  # each layer emphasises the community axes differently (an identifiable CP)
        phase = np.linspace(0.0, 1.0, L) if r % 2 else np.linspace(1.0, 0.0, L)
        W[:, r] = 0.3 + 1.2 * phase + 0.1 * rng.standard_normal(L)
    theta = cp_tensor(U, V, W)
    mu = mean_fn(theta, cfg.link_scale)[0]
    erng = rng if edge_seed is None else np.random.default_rng(edge_seed)
    z = np.sqrt(1 - cfg.rho) * erng.standard_normal((n, n, L)) + np.sqrt(cfg.rho) * erng.standard_normal((n, n, 1))
    y = (ndtr(z) < mu).astype(float)
    off = ~np.eye(n, dtype=bool)
    y[~off] = 0.0
    test = off & (rng.random((n, n)) < cfg.holdout)
    return Network(y=y, theta=theta, mu=mu, labels=labels, train=off & ~test, test=test)
