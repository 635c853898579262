"""The T-GINEE estimator: a CP-factored mean tensor fitted by generalized estimating equations.

Reconstructed (the authors' code and full text were not available): the mean of edge ``y_ijl`` (sender
``i``, receiver ``j``, layer ``l``) is ``mu_ijl = s * sigmoid(Theta_ijl)`` with the asymmetric CP tensor
``Theta_ijl = sum_r U_ir V_jr W_lr`` and a known link scale ``s`` in (0, 1] (the "scaled logistic link" for
sparse graphs: edge probabilities never exceed ``s``). Each node pair ``(i, j)`` is a cluster whose ``L``
layers are repeated measures, with working covariance ``V_ij = A^{1/2} R(alpha) A^{1/2}``,
``A = diag(mu (1 - mu))`` (binary edges, dispersion 1). The factors solve the estimating equations
``sum_ij D_ij^T V_ij^{-1} (y_ij - mu_ij) = 0`` by alternating Fisher-scoring steps on the blocks ``U``, ``V``,
``W`` (each block's equations are those of a GEE whose design is fixed by the other two blocks); the
working correlation's parameters are updated by moments between sweeps (the exchangeable estimator is the
one statsmodels uses, so the two agree when the factors are held fixed).

Departures from plain GEE, made for sparse binary CP fits and all settable in :class:`TGineeConfig`: an L2
ridge on the factors (default 1; without it fits drift to degenerate CP solutions), a floor on the variance
inside the working covariance (default 0.01), a start from the independence solution for the correlated
structures, a cap on each scoring step and step damping while the equations' residual grows (there is no
objective to line-search on). With ``ridge=0, var_floor=0`` the equations are exactly the GEE above.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from paperworks.core.errors import UserError

CORRELATIONS = ("independence", "exchangeable", "unstructured")
BLOCKS = ("u", "v", "w")


@dataclass
class TGineeConfig:
    """Settings of one fit."""

    rank: int = 3
    """CP rank ``R``."""
    corr: str = "exchangeable"
    """Working correlation across layers: independence, exchangeable or unstructured."""
    link_scale: float = 1.0
    """``s`` of the scaled logistic link ``mu = s * sigmoid(theta)`` (known, in (0, 1])."""
    max_sweeps: int = 300
    """Alternating sweeps (one scoring step per block and a moment update of the correlation each)."""
    tol: float = 1e-9
    """Stop when the largest change of ``Theta`` in a sweep falls below this ..."""
    score_tol: float = 1e-6
    """... or the largest estimating function falls below this share of its value at the start."""
    max_step: float = 1.0
    """Cap on the 2-norm of one node's (or the layer block's) scoring step, for stability far from the root."""
    ridge: float = 1.0
    """Ridge ``lambda`` added to the equations (``- lambda * theta``, i.e. an L2 penalty on the factors); 0
    is plain GEE. Sparse binary CP fits without it drift to degenerate solutions (components growing without
    bound while nearly cancelling); ``1`` is about 1% of one node's information at the repro's sizes."""
    warm_sweeps: int = 300
    """For a non-independence structure, first solve the independence equations (at most this many
    sweeps), then switch on the working correlation (the usual GEE start)."""
    var_floor: float = 0.01
    """Floor on ``mu (1 - mu)`` inside the working covariance (about mu in [0.01, 0.99]). Without it a
    near-zero fitted probability gives its layer's residual a weight ``1/sqrt(a)`` in the other layers'
    equations and the non-independence fits diverge on sparse graphs; it changes nothing where every
    fitted probability is inside that range (as in the statsmodels check)."""
    fixed: tuple[str, ...] = ()
    """Blocks among ``u``, ``v``, ``w`` held at their initial values (used to check against statsmodels)."""
    seed: int = 0
    """Seed of the initial factors' random part."""

    def validate(self) -> None:
        """Raise :class:`UserError` on a bad setting."""
        if self.rank < 1:
            raise UserError(f"tginee: rank must be >= 1, got {self.rank}")
        if self.corr not in CORRELATIONS:
            raise UserError(f"tginee: corr must be one of {', '.join(CORRELATIONS)}, got '{self.corr}'")
        if not 0.0 < self.link_scale <= 1.0:
            raise UserError(f"tginee: link_scale must be in (0, 1], got {self.link_scale}")
        if self.max_sweeps < 1 or self.tol <= 0 or self.max_step <= 0 or self.ridge < 0:
            raise UserError("tginee: max_sweeps >= 1, tol > 0, max_step > 0 and ridge >= 0 are required")
        if not 0.0 <= self.var_floor < 0.25:
            raise UserError(f"tginee: var_floor must be in [0, 0.25), got {self.var_floor}")
        bad = [b for b in self.fixed if b not in BLOCKS]
        if bad:
            raise UserError(f"tginee: fixed blocks must be among u, v, w, got {bad}")


@dataclass
class TGineeFit:
    """A fitted model."""

    U: np.ndarray
    V: np.ndarray
    W: np.ndarray
    R: np.ndarray
    """The working correlation matrix (L x L) at the solution."""
    alpha: float | None
    """Exchangeable correlation parameter (None for the other structures)."""
    link_scale: float
    var_floor: float
    sweeps: int
    converged: bool
    score_norm: float = float("nan")
    """Max |estimating function| at the solution, relative to its value at the start."""
    history: list[float] = field(default_factory=list)
    """Largest change of Theta per sweep."""

    @property
    def theta(self) -> np.ndarray:
        """The linear predictor tensor ``Theta`` (n x n x L)."""
        return cp_tensor(self.U, self.V, self.W)

    def mean(self) -> np.ndarray:
        """Edge probabilities ``mu`` (n x n x L)."""
        return mean_fn(self.theta, self.link_scale)[0]


def cp_tensor(U: np.ndarray, V: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``Theta_ijl = sum_r U_ir V_jr W_lr``."""
    return np.einsum("ir,jr,lr->ijl", U, V, W)


def mean_fn(theta: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    """The scaled logistic inverse link: ``mu = s sigmoid(theta)`` and ``dmu/dtheta``."""
    sig = 1.0 / (1.0 + np.exp(-np.clip(theta, -35.0, 35.0)))
    return s * sig, s * sig * (1.0 - sig)


def variance(mu: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """Bernoulli variance function ``mu (1 - mu)``, floored at ``floor`` (and always away from 0)."""
    return np.clip(mu * (1.0 - mu), max(floor, 1e-10), None)


def cp_als(T: np.ndarray, rank: int, iters: int = 500, tol: float = 1e-12, seed: int = 0,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares CP decomposition of a 3-way tensor by alternating least squares (used as the start)."""
    rng = np.random.default_rng(seed)
    n1, n2, n3 = T.shape
    U, V, W = (rng.standard_normal((k, rank)) for k in (n1, n2, n3))
    prev = np.inf
    norm = float(np.linalg.norm(T)) or 1.0
    for _ in range(iters):
        U = np.einsum("ijl,jr,lr->ir", T, V, W) @ np.linalg.pinv((V.T @ V) * (W.T @ W))
        V = np.einsum("ijl,ir,lr->jr", T, U, W) @ np.linalg.pinv((U.T @ U) * (W.T @ W))
        W = np.einsum("ijl,ir,jr->lr", T, U, V) @ np.linalg.pinv((U.T @ U) * (V.T @ V))
        err = float(np.linalg.norm(T - cp_tensor(U, V, W))) / norm
        if abs(prev - err) < tol:
            break
        prev = err
    return balance(U, V, W)


def balance(U: np.ndarray, V: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rescale each component so that its three factor columns have equal norms (Theta is unchanged)."""
    nu, nv, nw = (np.linalg.norm(X, axis=0) + 1e-300 for X in (U, V, W))
    g = np.cbrt(nu * nv * nw)
    return U * (g / nu), V * (g / nv), W * (g / nw)


def working_inverse(mu: np.ndarray, R: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """``V_ij^{-1} = A^{-1/2} R^{-1} A^{-1/2}`` for every pair: shape (n, n, L, L)."""
    isd = 1.0 / np.sqrt(variance(mu, floor))
    return np.linalg.inv(R)[None, None] * isd[..., :, None] * isd[..., None, :]


def update_correlation(y: np.ndarray, mu: np.ndarray, mask: np.ndarray, corr: str, ddof: int,
                       floor: float = 0.0) -> tuple[np.ndarray, float | None]:
    """Moment estimate of the working correlation from Pearson residuals of the clusters in ``mask``.

    Exchangeable: statsmodels' estimator, ``alpha = sum_{l<m} r_l r_m / phi / (pairs - ddof)`` with the
    moment dispersion ``phi = sum r^2 / (N - ddof)``. Unstructured: the sample correlation matrix of the
    residual vectors."""
    L = y.shape[-1]
    if corr == "independence" or L == 1:
        return np.eye(L), (0.0 if corr == "exchangeable" else None)
    r = ((y - mu) / np.sqrt(variance(mu, floor)))[mask]  # (C, L)
    if corr == "exchangeable":
        nobs = r.size
        phi = float(np.sum(r * r)) / (nobs - ddof)
        cross = float(np.sum((r.sum(axis=1) ** 2 - (r * r).sum(axis=1)) / 2.0)) / phi
        pairs = r.shape[0] * L * (L - 1) / 2.0
        alpha = float(np.clip(cross / (pairs - ddof), -1.0 / (L - 1) + 1e-6, 1.0 - 1e-6))
        return (1.0 - alpha) * np.eye(L) + alpha * np.ones((L, L)), alpha
    S = r.T @ r
    d = np.sqrt(np.diag(S))
    Rm = S / d[:, None] / d[None, :]
    w, Q = np.linalg.eigh(Rm)  # keep it positive definite
    Rm = (Q * np.clip(w, 1e-4, None)) @ Q.T
    d = np.sqrt(np.diag(Rm))
    return Rm / d[:, None] / d[None, :], None


def _cap(step: np.ndarray, cap: float) -> np.ndarray:
    """Scale each row of ``step`` down to 2-norm ``cap`` at most."""
    nrm = np.linalg.norm(step, axis=-1, keepdims=True)
    return step * np.minimum(1.0, cap / np.maximum(nrm, 1e-300))


def _weights(y: np.ndarray, theta: np.ndarray, mask: np.ndarray, R: np.ndarray, s: float, floor: float,
             ) -> tuple[np.ndarray, np.ndarray]:
    """``q = V^{-1}(y - mu) dmu`` weights and ``G = dmu V^{-1} dmu`` (masked), the pieces of every block."""
    mu, dmu = mean_fn(theta, s)
    Vi = working_inverse(mu, R, floor)
    m = mask[..., None].astype(float)
    q = np.einsum("ijlm,ijm->ijl", Vi, y - mu) * dmu * m
    G = dmu[..., :, None] * Vi * dmu[..., None, :] * m[..., None]
    return q, G


def scores(y: np.ndarray, U: np.ndarray, V: np.ndarray, W: np.ndarray, mask: np.ndarray, R: np.ndarray,
           s: float, ridge: float = 0.0, floor: float = 0.0) -> dict[str, np.ndarray]:
    """The estimating functions of each block at ``(U, V, W)``, e.g. ``scores[u][i] = sum_j D_ij^T V^-1 e``."""
    q, _ = _weights(y, cp_tensor(U, V, W), mask, R, s, floor)
    return {"u": np.einsum("ijl,jr,lr->ir", q, V, W) - ridge * U,
            "v": np.einsum("ijl,ir,lr->jr", q, U, W) - ridge * V,
            "w": np.einsum("ijl,ir,jr->lr", q, U, V) - ridge * W}


def _step(block: str, y: np.ndarray, U: np.ndarray, V: np.ndarray, W: np.ndarray, mask: np.ndarray,
          R: np.ndarray, cfg: TGineeConfig, damp: float = 1.0) -> np.ndarray:
    """One Fisher-scoring step of one block (the other two held fixed); returns the updated block."""
    q, G = _weights(y, cp_tensor(U, V, W), mask, R, cfg.link_scale, cfg.var_floor)
    rank = U.shape[1]
    eye = cfg.ridge * np.eye(rank)
    if block == "u":
        Z = V[:, None, :] * W[None, :, :]  # (j, l, r)
        score = np.einsum("ijl,jlr->ir", q, Z) - cfg.ridge * U
        info = np.einsum("ijlm,jlr,jms->irs", G, Z, Z, optimize=True) + eye
        return U + damp * _cap(np.linalg.solve(info, score[..., None])[..., 0], cfg.max_step)
    if block == "v":
        Z = U[:, None, :] * W[None, :, :]  # (i, l, r)
        score = np.einsum("ijl,ilr->jr", q, Z) - cfg.ridge * V
        info = np.einsum("ijlm,ilr,ims->jrs", G, Z, Z, optimize=True) + eye
        return V + damp * _cap(np.linalg.solve(info, score[..., None])[..., 0], cfg.max_step)
    P = U[:, None, :] * V[None, :, :]  # (i, j, r)
    L = W.shape[0]
    score = np.einsum("ijl,ijr->lr", q, P) - cfg.ridge * W
    info = np.einsum("ijlm,ijr,ijs->lrms", G, P, P, optimize=True).reshape(L * rank, L * rank)
    info += cfg.ridge * np.eye(L * rank)
    delta = np.linalg.solve(info, score.reshape(-1))
    return W + damp * _cap(delta[None], cfg.max_step).reshape(L, rank)


def _start(y: np.ndarray, mask: np.ndarray, cfg: TGineeConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CP-ALS of a shrunken link-scale transform of the observed tensor (missing pairs at the mean)."""
    s = cfg.link_scale
    ybar = float(y[mask].mean()) if mask.any() else 0.5 * s
    p = np.where(mask[..., None], 0.5 * y + 0.5 * ybar, ybar)
    p = np.clip(p / s, 0.02, 0.98)
    return cp_als(np.log(p / (1 - p)), cfg.rank, iters=100, seed=cfg.seed)


def fit(y: np.ndarray, mask: np.ndarray, cfg: TGineeConfig | None = None,
        init: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> TGineeFit:
    """Solve the T-GINEE estimating equations for ``y`` (n x n x L binary) on the pairs where ``mask``.

    ``mask`` (n x n bool) marks the node pairs (clusters) used; the diagonal should be False."""
    cfg = cfg or TGineeConfig()
    cfg.validate()
    y = np.asarray(y, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    if y.ndim != 3 or y.shape[0] != y.shape[1] or mask.shape != y.shape[:2]:
        raise UserError(f"tginee: y must be n x n x L and mask n x n, got {y.shape} and {mask.shape}")
    if not np.isin(y[mask], (0.0, 1.0)).all():
        raise UserError("tginee: y must hold binary edges (0 or 1)")
    if init is not None:
        U, V, W = (np.array(a, dtype=float) for a in init)
    else:
        U, V, W = _start(y, mask, cfg)
    L = y.shape[2]
    free = [b for b in BLOCKS if b not in cfg.fixed]
    n_par = sum({"u": U.size, "v": V.size, "w": W.size}[b] for b in free)
    ddof = n_par - (2 * cfg.rank if len(free) == 3 else 0)  # the CP scale gauge removes 2R directions
    if cfg.corr != "independence" and cfg.warm_sweeps > 0 and init is None:
        warm = fit(y, mask, replace(cfg, corr="independence", max_sweeps=cfg.warm_sweeps))
        U, V, W = warm.U, warm.V, warm.W
    R = np.eye(L)
    alpha: float | None = 0.0 if cfg.corr == "exchangeable" else None
    if cfg.corr != "independence":
        R, alpha = update_correlation(y, mean_fn(cp_tensor(U, V, W), cfg.link_scale)[0], mask, cfg.corr, ddof,
                                      cfg.var_floor)
    s0 = scores(y, U, V, W, mask, R, cfg.link_scale, cfg.ridge, cfg.var_floor)
    ref = max(max(float(np.abs(s0[b]).max()) for b in free), 1e-12)
    theta = cp_tensor(U, V, W)
    history: list[float] = []
    converged = False
    sweeps, score_norm = 0, 1.0
    damp, last = 1.0, np.inf
    for sweep in range(1, cfg.max_sweeps + 1):
        sweeps = sweep
        for b in free:
            new = _step(b, y, U, V, W, mask, R, cfg, damp)
            U, V, W = (new if b == "u" else U), (new if b == "v" else V), (new if b == "w" else W)
        if len(free) == 3:
            U, V, W = balance(U, V, W)
        mu = mean_fn(cp_tensor(U, V, W), cfg.link_scale)[0]
        R, alpha = update_correlation(y, mu, mask, cfg.corr, ddof, cfg.var_floor)
        new_theta = cp_tensor(U, V, W)
        change = float(np.abs(new_theta - theta).max())
        theta = new_theta
        history.append(change)
        sf = scores(y, U, V, W, mask, R, cfg.link_scale, cfg.ridge, cfg.var_floor)
        score_norm = max(float(np.abs(sf[b]).max()) for b in free) / ref
        # no objective to line-search on: damp the steps while the equations' residual grows
        damp = max(damp / 2, 1 / 64) if score_norm > last else min(1.0, damp * 1.25)
        last = score_norm
        if change < cfg.tol or score_norm < cfg.score_tol:
            converged = True
            break
    return TGineeFit(U=U, V=V, W=W, R=R, alpha=alpha, link_scale=cfg.link_scale,
                     var_floor=cfg.var_floor, sweeps=sweeps,
                     converged=converged, score_norm=score_norm, history=history)
