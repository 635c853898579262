"""Task heads on a fitted mean tensor: link-prediction AUC and community detection (spectral + k-means,
scored by the adjusted Rand index). Plain numpy; no scikit-learn."""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from paperworks.backends._validate import BackendInputError as UserError  # a UserError and a ValueError


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney, ties counted half); nan when one class is absent."""
    s = np.asarray(scores, dtype=float).ravel()
    raw = np.asarray(labels).ravel()
    if s.shape != raw.shape:
        raise UserError(f"auc: {s.size} scores but {raw.size} labels")
    if not np.all(np.isfinite(s)):
        raise UserError("auc: scores contain NaN or infinity")
    if raw.size and not np.all((raw == 0) | (raw == 1)):
        raise UserError("auc: labels must be 0/1 or booleans (e.g. -1/1 labels would all count as positive)")
    y = raw.astype(bool)
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        return float("nan")
    ranks = rankdata(s)
    return float((ranks[y].sum() - pos * (pos + 1) / 2) / (pos * neg))


def kmeans(X: np.ndarray, k: int, restarts: int = 10, iters: int = 100, seed: int = 0) -> np.ndarray:
    """Lloyd's k-means with k-means++ starts; the labels of the restart with the least inertia."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or len(X) == 0 or not np.all(np.isfinite(X)):
        raise UserError(f"kmeans: X must be a non-empty finite (n, d) array, got shape {X.shape}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= len(X):
        raise UserError(f"kmeans: k must be an integer in [1, {len(X)}], got {k!r}")
    rng = np.random.default_rng(seed)
    best, best_inertia = np.zeros(len(X), dtype=int), np.inf
    for _ in range(restarts):
        centers = [X[rng.integers(len(X))]]
        for _ in range(1, k):
            d2 = np.min(((X[:, None, :] - np.array(centers)[None]) ** 2).sum(-1), axis=1)
            p = d2 / d2.sum() if d2.sum() > 0 else np.full(len(X), 1 / len(X))
            centers.append(X[rng.choice(len(X), p=p)])
        C = np.array(centers)
        lab = np.zeros(len(X), dtype=int)
        for _ in range(iters):
            lab = ((X[:, None, :] - C[None]) ** 2).sum(-1).argmin(1)
            newC = np.array([X[lab == c].mean(0) if (lab == c).any() else C[c] for c in range(k)])
            if np.allclose(newC, C):
                break
            C = newC
        inertia = float(((X - C[lab]) ** 2).sum())
        if inertia < best_inertia:
            best, best_inertia = lab, inertia
    return best


def adjusted_rand(a: np.ndarray, b: np.ndarray) -> float:
    """Adjusted Rand index of two labelings (Hubert and Arabie); 1.0 for fewer than two items (nothing to
    disagree on, as scikit-learn)."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.shape != b.shape:
        raise UserError(f"adjusted_rand: labelings have {a.size} and {b.size} items")
    if a.size < 2:
        return 1.0
    _, ia = np.unique(a, return_inverse=True)
    _, ib = np.unique(b, return_inverse=True)
    table = np.zeros((ia.max() + 1, ib.max() + 1))
    np.add.at(table, (ia, ib), 1)

    def c2(x: np.ndarray | float) -> np.ndarray | float:
        return x * (x - 1) / 2

    sum_ij = float(np.sum(c2(table)))
    sa, sb = float(np.sum(c2(table.sum(1)))), float(np.sum(c2(table.sum(0))))
    expected = sa * sb / float(c2(len(a)))
    top = (sa + sb) / 2
    return 1.0 if top == expected else (sum_ij - expected) / (top - expected)


def communities(theta: np.ndarray, k: int, dims: int, seed: int = 0) -> np.ndarray:
    """Spectral communities from an estimated ``Theta`` (n x n x L): the top ``dims`` left singular vectors
    of the sender and receiver unfoldings side by side (scaled by their singular values), then k-means."""
    n = theta.shape[0]
    T = theta.copy()
    T[np.arange(n), np.arange(n)] = 0.0
    M = np.concatenate([T.reshape(n, -1), T.transpose(1, 0, 2).reshape(n, -1)], axis=1)
    M = M - M.mean(axis=0, keepdims=True)  # drop the common sparsity level
    Uu, s, _ = np.linalg.svd(M, full_matrices=False)
    return kmeans(Uu[:, :dims] * s[:dims], k, seed=seed)
