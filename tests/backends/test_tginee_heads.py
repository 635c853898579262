"""T-GINEE heads and data: AUC, adjusted Rand index, k-means/spectral communities, the network generator."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.tginee.data import NetworkConfig, make_network
from paperworks.backends.tginee.heads import adjusted_rand, auc, communities, kmeans
from paperworks.backends.tginee.inference import wald_coverage
from paperworks.core.errors import UserError


def test_auc_by_hand() -> None:
    # positives 0.9, 0.4; negatives 0.8, 0.1, 0.4: pairs won 0.9>{0.8,0.1,0.4}=3, 0.4>0.1 = 1, tie 0.4=0.4: 0.5
    assert auc(np.array([0.9, 0.4, 0.8, 0.1, 0.4]), np.array([1, 1, 0, 0, 0])) == pytest.approx(4.5 / 6)
    assert auc(np.arange(4.0), np.array([0, 0, 1, 1])) == 1.0
    assert np.isnan(auc(np.arange(3.0), np.ones(3)))


def test_adjusted_rand_by_hand() -> None:
    a = np.array([0, 0, 0, 1, 1, 1])
    assert adjusted_rand(a, np.array([5, 5, 5, 2, 2, 2])) == 1.0  # relabelled: perfect
    # contingency [[2,1],[0,3]]: sum C(n_ij,2)=1+0+0+3=4; rows 3,3 -> 6; cols 2,4 -> 7; C(6,2)=15
    # expected = 6*7/15 = 2.8; max = 6.5; ARI = (4-2.8)/(6.5-2.8)
    assert adjusted_rand(a, np.array([0, 0, 1, 1, 1, 1])) == pytest.approx(1.2 / 3.7)


def test_kmeans_and_communities_find_planted_groups() -> None:
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 0.1, (20, 2)) for c in ((0, 0), (3, 0), (0, 3))])
    truth = np.repeat([0, 1, 2], 20)
    assert adjusted_rand(truth, kmeans(X, 3, seed=1)) == 1.0
    net = make_network(NetworkConfig(nodes=30, signal=1.5), 0)
    assert adjusted_rand(net.labels, communities(net.theta, 3, 3)) == 1.0


def test_network_has_the_stated_means_correlation_and_split() -> None:
    cfg = NetworkConfig(nodes=60, layers=3, rho=0.8, link_scale=0.8)
    net = make_network(cfg, 1)
    off = ~np.eye(60, dtype=bool)
    assert not (net.train & net.test).any() and ((net.train | net.test) == off).all()
    assert abs(net.test.sum() / off.sum() - cfg.holdout) < 0.03
    assert net.mu.max() < cfg.link_scale  # the scaled link caps the probabilities
    # every edge is Bernoulli(mu): standardised residuals have mean ~0 and variance ~1
    r = ((net.y - net.mu) / np.sqrt(net.mu * (1 - net.mu)))[off]
    assert abs(r.mean()) < 0.05 and abs(r.var() - 1) < 0.08
    rc = np.corrcoef(r.T)[np.triu_indices(3, 1)]
    r0 = make_network(NetworkConfig(nodes=60, layers=3, rho=0.0, link_scale=0.8), 1)
    r0r = ((r0.y - r0.mu) / np.sqrt(r0.mu * (1 - r0.mu)))[off]
    assert rc.min() > 0.3 and np.abs(np.corrcoef(r0r.T)[np.triu_indices(3, 1)]).max() < 0.06
    with pytest.raises(UserError, match="rho"):
        make_network(NetworkConfig(rho=1.0), 0)


def test_wald_coverage_counts_hits() -> None:
    hat = np.array([0.0, 1.0, 2.0, 3.0])
    se = np.array([1.0, 0.1, 1.0, 1.0])
    true = np.array([1.9, 1.0, 2.0, 6.0])
    assert wald_coverage(hat, se, true, np.ones(4, bool)) == 0.75  # 1.9 <= 1.96, 0, 0 hit; 3 > 1.96 misses
    assert wald_coverage(hat, se, true, np.array([False, False, False, True])) == 0.0
