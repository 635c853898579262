"""Sandwich (robust) variance of the T-GINEE factors and Wald intervals for the entries of ``Theta``.

With ``theta = (vec U, vec V, vec W)`` and the cluster derivative ``D_ij = d mu_ij / d theta`` (L x p), the
bread is ``B = sum_ij D_ij^T V_ij^-1 D_ij`` and the meat ``M = sum_ij D_ij^T V_ij^-1 e_ij e_ij^T V_ij^-1 D_ij``;
``Cov(theta) = B^+ M B^+``. The CP factors are only defined up to rescaling each component across the three
modes (2R directions along which ``Theta`` does not move), so ``B`` is singular; its pseudo-inverse gives
the right variance for every function of ``Theta``, which is invariant along those directions (the
gradients of ``Theta_ijl`` are orthogonal to them). Reconstructed, as the rest of the model.
"""

from __future__ import annotations

import numpy as np

from paperworks.backends.tginee.model import BLOCKS, TGineeFit, mean_fn, working_inverse


def _design(fit: TGineeFit, blocks: tuple[str, ...]) -> np.ndarray:
    """``d Theta_ijl / d theta`` for every entry: shape (n, n, L, p), blocks in ``blocks`` order."""
    U, V, W = fit.U, fit.V, fit.W
    n, R = U.shape
    L = W.shape[0]
    parts = []
    eye_n = np.eye(n)
    for b in blocks:
        if b == "u":  # d/dU_kr = [i == k] V_jr W_lr
            parts.append(np.einsum("ik,jr,lr->ijlkr", eye_n, V, W).reshape(n, n, L, n * R))
        elif b == "v":
            parts.append(np.einsum("jk,ir,lr->ijlkr", eye_n, U, W).reshape(n, n, L, n * R))
        else:
            parts.append(np.einsum("lk,ir,jr->ijlkr", np.eye(L), U, V).reshape(n, n, L, L * R))
    return np.concatenate(parts, axis=-1)


def sandwich(fit: TGineeFit, y: np.ndarray, mask: np.ndarray, blocks: tuple[str, ...] = BLOCKS,
             rcond: float = 1e-9) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cov, bread, meat)`` of the parameters in ``blocks`` (vec of each block, row-major), from the
    clusters in ``mask`` at the fitted working correlation."""
    theta = fit.theta
    mu, dmu = mean_fn(theta, fit.link_scale)
    Vi = working_inverse(mu, fit.R, fit.var_floor)[mask]  # (C, L, L)
    X = _design(fit, blocks)[mask]  # (C, L, p)
    D = X * dmu[mask][..., None]
    e = (np.asarray(y, dtype=float) - mu)[mask]
    ViD = np.einsum("clm,cmp->clp", Vi, D)
    C, L, p = D.shape
    bread = D.reshape(C * L, p).T @ ViD.reshape(C * L, p)
    u = np.einsum("clp,cl->cp", ViD, e)  # each cluster's estimating function
    meat = u.T @ u
    binv = np.linalg.pinv(bread, rcond=rcond, hermitian=True)
    return binv @ meat @ binv, bread, meat


def theta_se(fit: TGineeFit, cov: np.ndarray, blocks: tuple[str, ...] = BLOCKS) -> np.ndarray:
    """Delta-method standard errors of every ``Theta_ijl`` (n x n x L) from the factors' covariance."""
    X = _design(fit, blocks)
    n, _, L, p = X.shape
    flat = X.reshape(-1, p)
    var = np.einsum("ep,pq,eq->e", flat, cov, flat, optimize=True)
    return np.sqrt(np.clip(var, 0.0, None)).reshape(n, n, L)


def wald_coverage(theta_hat: np.ndarray, se: np.ndarray, theta_true: np.ndarray, where: np.ndarray,
                  z: float = 1.959963984540054) -> float:
    """Share of the entries in ``where`` whose true value lies in ``theta_hat +- z se``."""
    hit = np.abs(theta_hat - theta_true) <= z * se
    return float(hit[where].mean())
