"""T-GINEE: CP reconstruction, the estimating equations against statsmodels' GEE with the node factors held
fixed, and the sandwich variance on a case with a closed-form answer."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.tginee.data import NetworkConfig, make_network
from paperworks.backends.tginee.inference import sandwich, theta_se
from paperworks.backends.tginee.model import TGineeConfig, cp_als, cp_tensor, fit, mean_fn
from paperworks.core.errors import UserError


def test_cp_als_reconstructs_a_known_low_rank_tensor() -> None:
    rng = np.random.default_rng(3)
    U, V, W = rng.standard_normal((15, 3)), rng.standard_normal((12, 3)), rng.standard_normal((5, 3))
    T = cp_tensor(U, V, W)
    A, B, C = cp_als(T, 3, iters=2000, seed=1)
    assert np.linalg.norm(cp_tensor(A, B, C) - T) / np.linalg.norm(T) < 1e-8
    # rank 1 fits worse than the truth's rank: the error is not trivially zero
    A1, B1, C1 = cp_als(T, 1, seed=1)
    assert np.linalg.norm(cp_tensor(A1, B1, C1) - T) / np.linalg.norm(T) > 0.3


def _fixed_factor_problem(n: int = 25, L: int = 3, R: int = 2, s: float = 0.8, seed: int = 0):
    """Edges from known factors with correlated layers; U and V are held at their true values."""
    net = make_network(NetworkConfig(nodes=n, layers=L, rank=R, communities=2, rho=0.5, link_scale=s), seed)
    U, V, W = cp_als(net.theta, R, iters=3000, seed=0)
    assert np.linalg.norm(cp_tensor(U, V, W) - net.theta) < 1e-6 * np.linalg.norm(net.theta)
    return net, U, V, W


def _statsmodels_gee(net, U, V, s: float, corr: str):
    sm = pytest.importorskip("statsmodels.api")
    from statsmodels.genmod.families import links

    class ScaledLogit(links.Link):  # mu = s * sigmoid(eta)
        def __call__(self, p):
            q = p / s
            return np.log(q / (1 - q))

        def inverse(self, z):
            return s / (1 + np.exp(-z))

        def deriv(self, p):
            q = p / s
            return 1 / (s * q * (1 - q))

        def inverse_deriv(self, z):
            e = 1 / (1 + np.exp(-z))
            return s * e * (1 - e)

        def deriv2(self, p):
            q = p / s
            return (2 * q - 1) / (s * s * q * q * (1 - q) ** 2)

    n, _, L = net.y.shape
    R = U.shape[1]
    rows, exog, groups = [], [], []
    pairs = np.argwhere(net.train)
    for g, (i, j) in enumerate(pairs):
        for layer in range(L):
            x = np.zeros(L * R)
            x[layer * R:(layer + 1) * R] = U[i] * V[j]
            exog.append(x)
            rows.append(net.y[i, j, layer])
            groups.append(g)
    cov = sm.cov_struct.Exchangeable() if corr == "exchangeable" else sm.cov_struct.Independence()
    model = sm.GEE(np.array(rows), np.array(exog), groups=np.array(groups),
                   family=sm.families.Binomial(link=ScaledLogit(), check_link=False), cov_struct=cov)
    return model.fit(maxiter=200, ctol=1e-12)


@pytest.mark.filterwarnings("ignore:.*does not respect the domain")
@pytest.mark.parametrize("corr", ["exchangeable", "independence"])
def test_equations_solved_and_agree_with_statsmodels_with_fixed_factors(corr: str) -> None:
    s = 0.8
    net, U, V, W = _fixed_factor_problem(s=s)
    cfg = TGineeConfig(rank=2, corr=corr, link_scale=s, fixed=("u", "v"), ridge=0.0, var_floor=0.0,
                       tol=1e-12, score_tol=1e-12, max_sweeps=200)
    f = fit(net.y, net.train, cfg, init=(U, V, np.zeros_like(W)))
    assert f.converged and f.score_norm < 1e-9  # the estimating equations are solved
    res = _statsmodels_gee(net, U, V, s, corr)
    np.testing.assert_allclose(f.W.reshape(-1), res.params, rtol=1e-5, atol=1e-6)
    if corr == "exchangeable":
        assert f.alpha == pytest.approx(float(res.cov_struct.dep_params), rel=1e-5)
        assert f.alpha > 0.05  # the layers really are correlated
    cov, _, _ = sandwich(f, net.y, net.train, blocks=("w",))
    np.testing.assert_allclose(cov, res.cov_robust, rtol=1e-4, atol=1e-10)


def test_sandwich_matches_the_closed_form_of_a_saturated_layer_model() -> None:
    """``Theta_ijl = w_l`` (U = V = 1, R = 1): whatever the working correlation, mu_l-hat is layer l's edge
    rate and the sandwich is ``Cov(w_l, w_m) = sum_c e_cl e_cm / (C^2 mu'_l mu'_m)``, computed here by hand."""
    net = make_network(NetworkConfig(nodes=20, layers=3, rho=0.6, link_scale=1.0), 4)
    n, _, L = net.y.shape
    ones = np.ones((n, 1))
    yc = net.y[net.train]  # (C, L)
    C = yc.shape[0]
    rate = yc.mean(axis=0)
    e = yc - rate
    dmu = rate * (1 - rate)  # logistic: mu' = mu (1 - mu)
    expected = (e.T @ e) / C**2 / np.outer(dmu, dmu)
    for corr in ("independence", "exchangeable", "unstructured"):
        cfg = TGineeConfig(rank=1, corr=corr, link_scale=1.0, fixed=("u", "v"), ridge=0.0, var_floor=0.0,
                           tol=1e-13, score_tol=1e-13)
        f = fit(net.y, net.train, cfg, init=(ones, ones, np.zeros((L, 1))))
        np.testing.assert_allclose(mean_fn(f.W[:, 0], 1.0)[0], rate, rtol=1e-9)
        cov, _, _ = sandwich(f, net.y, net.train, blocks=("w",))
        np.testing.assert_allclose(cov, expected, rtol=1e-7)
        se = theta_se(f, cov, blocks=("w",))
        np.testing.assert_allclose(se[0, 1], np.sqrt(np.diag(expected)), rtol=1e-7)


def test_full_fit_recovers_theta_and_solves_the_equations() -> None:
    net = make_network(NetworkConfig(nodes=30, layers=4, rank=2, communities=2, rho=0.3, link_scale=1.0), 2)
    off = net.train | net.test
    f = fit(net.y, net.train, TGineeConfig(rank=2, corr="exchangeable", link_scale=1.0))
    assert f.converged and f.score_norm < 1e-6
    rel = np.linalg.norm((f.theta - net.theta)[off]) / np.linalg.norm(net.theta[off])
    zero = np.linalg.norm(net.theta[off] - net.theta[off].mean()) / np.linalg.norm(net.theta[off])
    assert rel < 0.8 * zero  # much better than the best constant tensor
    assert 0.0 < f.alpha < 0.6


def test_bad_settings_raise_user_errors() -> None:
    y = np.zeros((4, 4, 2))
    mask = ~np.eye(4, dtype=bool)
    for bad in (TGineeConfig(rank=0), TGineeConfig(corr="ar1"), TGineeConfig(link_scale=1.5),
                TGineeConfig(fixed=("x",))):
        with pytest.raises(UserError):
            fit(y, mask, bad)
    with pytest.raises(UserError, match="binary"):
        fit(y + 0.5, mask)
    with pytest.raises(UserError, match="n x n x L"):
        fit(np.zeros((4, 3, 2)), mask)


def test_theta_gradients_of_the_delta_method_match_finite_differences() -> None:
    from paperworks.backends.tginee.inference import _design
    from paperworks.backends.tginee.model import TGineeFit

    rng = np.random.default_rng(5)
    U, V, W = rng.standard_normal((5, 2)), rng.standard_normal((5, 2)), rng.standard_normal((3, 2))
    f = TGineeFit(U=U, V=V, W=W, R=np.eye(3), alpha=None, link_scale=1.0, var_floor=0.0, sweeps=0,
                  converged=True)
    X = _design(f, ("u", "v", "w"))
    theta = np.concatenate([U.ravel(), V.ravel(), W.ravel()])
    h = 1e-6
    for k in (0, 7, 13, 21, 24):  # entries of U, V and W
        t = theta.copy()
        t[k] += h
        Up, Vp, Wp = t[:10].reshape(5, 2), t[10:20].reshape(5, 2), t[20:].reshape(3, 2)
        np.testing.assert_allclose((cp_tensor(Up, Vp, Wp) - cp_tensor(U, V, W)) / h, X[..., k], atol=1e-5)
    # a covariance on one U entry gives Var(Theta_ijl) = (V_j W_l)^2 var on that sender's entries only
    cov = np.zeros((26, 26))
    cov[0, 0] = 4.0
    se = theta_se(f, cov)
    np.testing.assert_allclose(se[0], 2.0 * np.abs(V[:, None, 0] * W[None, :, 0]))
    assert np.all(se[1:] == 0)
