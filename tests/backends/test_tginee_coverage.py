"""T-GINEE sandwich variance against independent computations (statsmodels' GEE robust covariance for the
sender and receiver factor blocks; an explicit per-cluster sum with finite-difference derivatives for all
three blocks together), its invariance to the CP scale gauge, and the coverage diagnostic's statistics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperworks.backends.tginee.coverage import (
    ENV_NODES,
    ENV_REPS,
    CoverageConfig,
    from_env,
    summarise,
    wilson,
)
from paperworks.backends.tginee.data import NetworkConfig, make_network
from paperworks.backends.tginee.inference import sandwich, theta_se
from paperworks.backends.tginee.model import TGineeConfig, TGineeFit, cp_als, cp_tensor, fit, mean_fn, working_inverse
from paperworks.core.errors import UserError


def _scaled_logit(s: float):  # type: ignore[no-untyped-def]
    from statsmodels.genmod.families import links

    class ScaledLogit(links.Link):  # mu = s * sigmoid(eta)
        def __call__(self, p):  # type: ignore[no-untyped-def]
            q = p / s
            return np.log(q / (1 - q))

        def inverse(self, z):  # type: ignore[no-untyped-def]
            return s / (1 + np.exp(-z))

        def deriv(self, p):  # type: ignore[no-untyped-def]
            q = p / s
            return 1 / (s * q * (1 - q))

        def inverse_deriv(self, z):  # type: ignore[no-untyped-def]
            e = 1 / (1 + np.exp(-z))
            return s * e * (1 - e)

        def deriv2(self, p):  # type: ignore[no-untyped-def]
            q = p / s
            return (2 * q - 1) / (s * s * q * q * (1 - q) ** 2)

    return ScaledLogit()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*does not respect the domain")
@pytest.mark.parametrize("block", ["u", "v"])
def test_sender_and_receiver_blocks_sandwich_matches_statsmodels_robust_cov(block: str) -> None:
    """With the other two blocks fixed, the free node-factor block is an ordinary GEE whose design row for
    pair (i, j), layer l holds ``V_j * W_l`` (sender block, at sender i's columns) or ``U_i * W_l`` (receiver
    block, at receiver j's columns). statsmodels fits that GEE and gives its robust (sandwich) covariance."""
    sm = pytest.importorskip("statsmodels.api")
    s, n, L, R = 0.8, 20, 3, 2
    net = make_network(NetworkConfig(nodes=n, layers=L, rank=R, communities=2, rho=0.5, link_scale=s), 0)
    U, V, W = cp_als(net.theta, R, iters=3000, seed=0)
    fixed = tuple(b for b in ("u", "v", "w") if b != block)
    cfg = TGineeConfig(rank=R, corr="exchangeable", link_scale=s, fixed=fixed, ridge=0.0, var_floor=0.0,
                       tol=1e-13, score_tol=1e-12, max_sweeps=300)
    f = fit(net.y, net.train, cfg, init=(U, V, W))
    assert f.converged and f.score_norm < 1e-9
    rows, exog, groups = [], [], []
    for g, (i, j) in enumerate(np.argwhere(net.train)):
        for layer in range(L):
            x = np.zeros(n * R)
            k = i if block == "u" else j
            x[k * R:(k + 1) * R] = (V[j] if block == "u" else U[i]) * W[layer]
            exog.append(x)
            rows.append(net.y[i, j, layer])
            groups.append(g)
    model = sm.GEE(np.array(rows), np.array(exog), groups=np.array(groups), cov_struct=sm.cov_struct.Exchangeable(),
                   family=sm.families.Binomial(link=_scaled_logit(s), check_link=False))
    res = model.fit(maxiter=300, ctol=1e-13, start_params=(U if block == "u" else V).reshape(-1))
    got = f.U if block == "u" else f.V
    np.testing.assert_allclose(got.reshape(-1), res.params, rtol=1e-5, atol=1e-6)
    assert f.alpha == pytest.approx(float(res.cov_struct.dep_params), rel=1e-4)
    cov, _, _ = sandwich(f, net.y, net.train, blocks=(block,))
    np.testing.assert_allclose(cov, res.cov_robust, rtol=1e-4, atol=1e-9)


def _random_fit(n: int = 6, L: int = 3, R: int = 2, seed: int = 0) -> tuple[TGineeFit, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    U, V, W = rng.normal(0.6, 0.5, (n, R)), rng.normal(0.6, 0.5, (n, R)), rng.normal(0.0, 0.7, (L, R))
    Rm = 0.7 * np.eye(L) + 0.3
    f = TGineeFit(U=U, V=V, W=W, R=Rm, alpha=0.3, link_scale=0.8, var_floor=0.0, sweeps=0, converged=True)
    y = (rng.random((n, n, L)) < 0.4).astype(float)
    mask = ~np.eye(n, dtype=bool)
    mask[0, 3] = mask[2, 1] = False
    return f, y, mask


def test_full_sandwich_matches_a_per_cluster_sum_with_finite_difference_derivatives() -> None:
    """All three blocks together (cross terms included): ``D_ij`` by central differences of ``mu`` in each
    parameter, then ``B = sum D^T V^-1 D`` and ``M = sum D^T V^-1 e e^T V^-1 D`` one cluster at a time."""
    f, y, mask = _random_fit()
    n, R = f.U.shape
    L = f.W.shape[0]
    par = np.concatenate([f.U.ravel(), f.V.ravel(), f.W.ravel()])

    def mu_of(p: np.ndarray) -> np.ndarray:
        U, V, W = p[:n * R].reshape(n, R), p[n * R:2 * n * R].reshape(n, R), p[2 * n * R:].reshape(L, R)
        return mean_fn(cp_tensor(U, V, W), f.link_scale)[0]

    h = 1e-6
    grads = np.stack([(mu_of(par + h * e) - mu_of(par - h * e)) / (2 * h) for e in np.eye(par.size)], -1)
    Vi = working_inverse(f.mean(), f.R)
    bread, meat = np.zeros((par.size, par.size)), np.zeros((par.size, par.size))
    for i, j in np.argwhere(mask):
        D = grads[i, j]  # (L, p)
        u = D.T @ Vi[i, j] @ (y[i, j] - f.mean()[i, j])
        bread += D.T @ Vi[i, j] @ D
        meat += np.outer(u, u)
    cov, b, m = sandwich(f, y, mask)
    np.testing.assert_allclose(b, bread, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(m, meat, rtol=1e-6, atol=1e-9)
    pinv = np.linalg.pinv(bread, rcond=1e-9, hermitian=True)
    np.testing.assert_allclose(cov, pinv @ meat @ pinv, rtol=1e-5, atol=1e-8)


def test_theta_se_is_invariant_to_the_cp_scale_gauge() -> None:
    """Rescaling a component (U_r * c, V_r / c) leaves Theta unchanged and must leave its standard errors
    unchanged (the pseudo-inverse handles the 2R gauge directions)."""
    f, y, mask = _random_fit()
    se = theta_se(f, sandwich(f, y, mask)[0])
    c = np.array([2.5, 0.4])
    g = TGineeFit(U=f.U * c, V=f.V / c, W=f.W, R=f.R, alpha=f.alpha, link_scale=f.link_scale, var_floor=0.0,
                  sweeps=0, converged=True)
    np.testing.assert_allclose(g.theta, f.theta, rtol=1e-12)
    np.testing.assert_allclose(theta_se(g, sandwich(g, y, mask)[0]), se, rtol=1e-6)
    assert se[~np.eye(6, dtype=bool)].min() > 0


def test_wilson_matches_statsmodels() -> None:
    prop = pytest.importorskip("statsmodels.stats.proportion")
    for hits, n in ((0, 10), (7, 10), (190, 200), (200, 200)):
        lo, hi = wilson(hits, n)
        ref = prop.proportion_confint(hits, n, alpha=0.05, method="wilson")
        assert (float(lo), float(hi)) == pytest.approx(ref, abs=1e-9)
    with pytest.raises(UserError):
        wilson(1, 0)


def test_summarise_separates_bias_from_variance() -> None:
    """Normal estimates with bias ``b`` sd and a sandwich at half the true sd: each coverage matches its
    closed form (Phi(1.96 k - b) - Phi(-1.96 k - b))."""
    from scipy.stats import norm

    rng = np.random.default_rng(0)
    reps, entries, b = 4000, 50, 0.5
    theta = rng.normal(size=entries)
    sd = rng.uniform(0.5, 2.0, entries)
    th = theta + b * sd + sd * rng.standard_normal((reps, entries))
    out = summarise(th, np.broadcast_to(0.5 * sd, th.shape).copy(), theta)

    def cover(k: float, bias: float) -> float:
        return float(norm.cdf(1.96 * k - bias) - norm.cdf(-1.96 * k - bias))

    assert out["coverage_sandwich"]["mean"] == pytest.approx(cover(0.5, b), abs=0.01)
    assert out["coverage_empirical_sd"]["mean"] == pytest.approx(cover(1.0, b), abs=0.01)
    assert out["coverage_sandwich_centred"]["mean"] == pytest.approx(cover(0.5, 0.0), abs=0.01)
    assert out["coverage_empirical_centred"]["mean"] == pytest.approx(0.95, abs=0.01)
    assert out["se_over_sd"]["median"] == pytest.approx(0.5, abs=0.02)
    assert out["abs_bias_over_sd"]["median"] == pytest.approx(b, abs=0.05)
    assert out["normal_coverage_implied_by_bias"] == pytest.approx(cover(1.0, b), abs=0.01)
    c = out["coverage_sandwich"]
    assert c["mc_low"] < c["mean"] < c["mc_high"] and c["mc_high"] - c["mc_low"] < 0.01
    assert out["entries_wilson_below_0.95"] == 1.0


def test_edge_seed_redraws_only_the_edges() -> None:
    cfg = NetworkConfig(nodes=12, layers=3)
    a, b = make_network(cfg, 5, edge_seed=1), make_network(cfg, 5, edge_seed=2)
    assert np.array_equal(a.theta, b.theta) and np.array_equal(a.train, b.train)
    assert not np.array_equal(a.y, b.y)
    assert np.array_equal(make_network(cfg, 5, edge_seed=1).y, a.y)


def test_sizes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    base = CoverageConfig()
    monkeypatch.setenv(ENV_REPS, "300")
    monkeypatch.setenv(ENV_NODES, "40, 120")
    assert (from_env(base).replications, from_env(base).nodes) == ((300,), (40, 120))
    monkeypatch.setenv(ENV_REPS, "300,100")
    assert (from_env(base).reps(0), from_env(base).reps(1)) == (300, 100)
    monkeypatch.setenv(ENV_REPS, "300,100,50")
    with pytest.raises(UserError, match="one per size"):
        from_env(base)
    monkeypatch.setenv(ENV_REPS, "1")
    with pytest.raises(UserError, match=ENV_REPS):
        from_env(base)
    monkeypatch.setenv(ENV_REPS, "200")
    monkeypatch.setenv(ENV_NODES, "40,x")
    with pytest.raises(UserError, match=ENV_NODES):
        from_env(base)


@pytest.mark.slow
def test_cached_replications_give_the_same_summary(tmp_path: Path) -> None:
    from dataclasses import replace

    from paperworks.backends.tginee.coverage import replicate

    cfg = CoverageConfig(nodes=(12,), replications=(3,), cache=str(tmp_path))
    net = NetworkConfig(layers=2, rank=2, communities=2)
    fc = TGineeConfig(rank=2, link_scale=0.8, max_sweeps=15, warm_sweeps=15)
    a, b = replicate(net, fc, cfg, 0), replicate(net, fc, cfg, 0)
    assert (a.pop("read_from_cache"), b.pop("read_from_cache")) == (0, 3)
    assert a == b and a["replications"] == 3
    assert replicate(net, replace(fc, ridge=2.0), cfg, 0)["read_from_cache"] == 0  # other settings: refitted
