"""Distances between two sample clouds, used per time step to compare generated and simulated ensembles.

- :func:`w2_1d` — the exact Wasserstein-2 distance between two empirical laws on the line (sorted samples;
  unequal sizes by the quantile coupling);
- :func:`sliced_w2` — sliced W2 in higher dimension: the root mean of squared 1-D W2 over random unit
  directions (128 by default, as in the authors' ``sl/metric.py``);
- :func:`energy_distance` — ``2 E|X-Y| - E|X-X'| - E|Y-Y'|`` (the V-statistic, Euclidean norm);
- :func:`per_time` — a metric applied at every time of two ensembles ``(samples, times, dim)``;
- :func:`trajectory_w2` — W2 per time (projection seed ``seed + t``) and its mean over all times, the initial
  time included, the authors' trajectory metric.

Not used here: the authors' field metrics (W2 of the mean absolute field, W2 of first boundary-crossing
times), which are for their wave-equation fields.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from paperworks.backends._validate import BackendInputError as UserError  # a UserError and a ValueError


def _as_samples(x: np.ndarray, name: str) -> np.ndarray:
    raw = np.asarray(x)
    if not (np.issubdtype(raw.dtype, np.integer) or np.issubdtype(raw.dtype, np.floating)) or raw.dtype == np.bool_:
        raise UserError(f"{name}: expected real numbers, got dtype {raw.dtype}")
    a = raw.astype(float)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] == 0:
        raise UserError(f"{name}: expected a non-empty array of shape (samples,) or (samples, dim), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise UserError(f"{name}: contains NaN or infinity")
    return a


def w2_1d(x: np.ndarray, y: np.ndarray) -> float:
    """Exact W2 between the empirical laws of 1-D samples ``x`` and ``y`` (any sizes).

    ``W2^2 = int_0^1 (F_x^-1(u) - F_y^-1(u))^2 du``, the monotone coupling of the sorted samples. Equal sizes:
    ``mean((sort x - sort y)^2)``. Unequal sizes ``n, m``: each ``x`` carries ``m`` units of mass and each ``y``
    carries ``n`` (total ``n m``, integers, so no rounding); the sorted lists are walked together, moving the
    smaller remaining mass of the current pair at a time (the north-west-corner plan, which is the monotone
    one)."""
    a, b = _as_samples(x, "x"), _as_samples(y, "y")
    if a.shape[1] != 1 or b.shape[1] != 1:
        raise UserError(f"w2_1d: expected 1-D samples, got shapes {np.shape(x)} and {np.shape(y)} (use sliced_w2)")
    xs, ys = np.sort(a.ravel()), np.sort(b.ravel())
    n, m = xs.size, ys.size
    if n == m:
        return float(np.sqrt(np.mean((xs - ys) ** 2)))
    cost, i, j, left_x, left_y = 0.0, 0, 0, m, n
    while i < n and j < m:
        moved = min(left_x, left_y)
        cost += moved * float(xs[i] - ys[j]) ** 2
        left_x, left_y = left_x - moved, left_y - moved
        if left_x == 0:
            i, left_x = i + 1, m
        if left_y == 0:
            j, left_y = j + 1, n
    return float(np.sqrt(cost / (n * m)))


def sliced_w2(x: np.ndarray, y: np.ndarray, n_projections: int = 128, seed: int = 0) -> float:
    """Sliced W2: ``sqrt(mean_k W2(<x, v_k>, <y, v_k>)^2)`` over ``n_projections`` uniform unit directions.

    In 1-D it equals :func:`w2_1d` (every direction is ±1)."""
    a, b = _as_samples(x, "x"), _as_samples(y, "y")
    if a.shape[1] != b.shape[1]:
        raise UserError(f"sliced_w2: dimensions differ ({a.shape[1]} vs {b.shape[1]})")
    if isinstance(n_projections, bool) or not isinstance(n_projections, (int, np.integer)) or n_projections < 1:
        raise UserError(f"sliced_w2: n_projections must be >= 1, got {n_projections}")
    if a.shape[1] == 1:
        return w2_1d(a, b)
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n_projections, a.shape[1]))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    pa, pb = a @ v.T, b @ v.T
    sq = [w2_1d(pa[:, k], pb[:, k]) ** 2 for k in range(n_projections)]
    return float(np.sqrt(np.mean(sq)))


def _mean_dist(a: np.ndarray, b: np.ndarray, chunk: int = 2048) -> float:
    total = 0.0
    for i in range(0, a.shape[0], chunk):
        d = a[i:i + chunk, None, :] - b[None, :, :]
        total += float(np.sqrt((d ** 2).sum(-1)).sum())
    return total / (a.shape[0] * b.shape[0])


def energy_distance(x: np.ndarray, y: np.ndarray) -> float:
    """Energy distance ``2 E|X-Y| - E|X-X'| - E|Y-Y'|`` between two empirical laws (V-statistic, >= 0).

    For 1-D laws it equals ``2 ∫ (F_x - F_y)^2``; it is zero only for equal laws."""
    a, b = _as_samples(x, "x"), _as_samples(y, "y")
    if a.shape[1] != b.shape[1]:
        raise UserError(f"energy_distance: dimensions differ ({a.shape[1]} vs {b.shape[1]})")
    return max(0.0, 2 * _mean_dist(a, b) - _mean_dist(a, a) - _mean_dist(b, b))


def trajectory_w2(gen: np.ndarray, ref: np.ndarray, n_projections: int = 128,
                  seed: int = 0) -> tuple[np.ndarray, float]:
    """W2 between two ensembles ``(samples, times, dim)`` at each time, and its mean over *all* times (the
    initial time included), as the authors' ``trajectory_sliced_wasserstein_2``: at time ``t`` the sliced W2
    uses the directions of seed ``seed + t`` (exact W2 in 1-D, where every direction is ±1)."""
    a, b = np.asarray(gen, dtype=float), np.asarray(ref, dtype=float)
    if a.ndim != 3 or b.ndim != 3 or a.shape[1:] != b.shape[1:]:
        raise UserError(f"trajectory_w2: expected ensembles (samples, times, dim) of equal times/dim, got {a.shape}, "
                        f"{b.shape}")
    per_t = np.array([sliced_w2(a[:, t], b[:, t], n_projections, seed + t) for t in range(a.shape[1])])
    return per_t, float(per_t.mean())


def per_time(metric: Callable[[np.ndarray, np.ndarray], float], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``metric`` at each time of two ensembles shaped ``(samples, times, dim)`` (sample counts may differ)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.ndim != 3 or b.ndim != 3 or a.shape[1:] != b.shape[1:]:
        raise UserError(f"per_time: expected ensembles (samples, times, dim) of equal times/dim, got {a.shape}, "
                        f"{b.shape}")
    return np.array([metric(a[:, t], b[:, t]) for t in range(a.shape[1])])
