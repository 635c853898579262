"""The methods compared in the repro, each returning ``Theta``-hat, its Wald standard errors and the fit.

- ``T-GINEE (exchangeable)`` / ``T-GINEE (unstructured)``: shared CP factors, GEE with that working
  correlation across layers, sandwich variance;
- ``Pooled CP (independence)``: the same CP model with the independence working covariance (a pooled
  logistic CP fit; its sandwich still accounts for the correlation, only its weights ignore it);
- ``Per-layer LMF``: each layer's own rank-``R`` logistic matrix factorisation ``Theta_l = U_l diag(w_l)
  V_l^T`` (the same solver on one layer at a time, so nothing is shared across layers).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from paperworks.backends.tginee.inference import sandwich, theta_se
from paperworks.backends.tginee.model import TGineeConfig, TGineeFit, fit

METHODS = ("T-GINEE (exchangeable)", "T-GINEE (unstructured)", "Pooled CP (independence)", "Per-layer LMF")


@dataclass
class MethodResult:
    """One method on one network."""

    theta: np.ndarray
    se: np.ndarray
    mean: np.ndarray
    alpha: float | None
    converged: bool
    score_norm: float
    seconds: float


def _with_se(f: TGineeFit, y: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cov, _, _ = sandwich(f, y, mask)
    return f.theta, theta_se(f, cov)


def run_methods(y: np.ndarray, mask: np.ndarray, base: TGineeConfig) -> dict[str, MethodResult]:
    """Fit every method of :data:`METHODS` on ``y`` restricted to the pairs in ``mask``.

    The correlated T-GINEE fits start from the pooled independence solution (the usual GEE start), which
    is therefore fitted first."""
    out: dict[str, MethodResult] = {}
    t0 = time.process_time()
    pooled = fit(y, mask, replace(base, corr="independence"))
    th, se = _with_se(pooled, y, mask)
    t_pooled = time.process_time() - t0
    out["Pooled CP (independence)"] = MethodResult(th, se, pooled.mean(), None, pooled.converged,
                                                   pooled.score_norm, t_pooled)
    for corr in ("exchangeable", "unstructured"):
        t0 = time.process_time()
        f = fit(y, mask, replace(base, corr=corr), init=(pooled.U, pooled.V, pooled.W))
        th, se = _with_se(f, y, mask)
        out[f"T-GINEE ({corr})"] = MethodResult(th, se, f.mean(), f.alpha, f.converged, f.score_norm,
                                                time.process_time() - t0 + t_pooled)
    t0 = time.process_time()
    thetas, ses, means, conv, norms = [], [], [], [], []
    for layer in range(y.shape[2]):
        f = fit(y[:, :, layer:layer + 1], mask, replace(base, corr="independence"))
        th, se = _with_se(f, y[:, :, layer:layer + 1], mask)
        thetas.append(th[..., 0])
        ses.append(se[..., 0])
        means.append(f.mean()[..., 0])
        conv.append(f.converged)
        norms.append(f.score_norm)
    out["Per-layer LMF"] = MethodResult(np.stack(thetas, -1), np.stack(ses, -1), np.stack(means, -1), None,
                                        all(conv), max(norms), time.process_time() - t0)
    return {m: out[m] for m in METHODS}
