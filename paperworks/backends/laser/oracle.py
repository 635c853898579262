"""The oracle reconstructor: the best linear estimate of the true field from the sensor readings, so that the
quality of a sensor placement can be measured apart from the learned world model.

For frame ``t`` the readings are the bilinear values (as :func:`~paperworks.backends.laser.sensors.observe`) of
the true field at the sensors' positions in frames ``t − window + 1 … t``. With the means of the window's frames
and their covariances (estimated jointly from the training episodes by :func:`field_stats`; below written for
a stationary field, mean ``m`` and ``C_j = Cov(u_t, u_{t−j})``), the estimate is the linear minimum-mean-square-error
one (the Gaussian conditional mean):

    û_t = m + Cov(u_t, y) (Cov(y, y) + ν I)⁻¹ (y − E y),

``Cov(y_{s,k}, y_{s',k'}) = w_{s,k}ᵀ C_{s−s'} w_{s',k'}`` and ``Cov(u_t, y_{s,k}) = C_{t−s} w_{s,k}`` (``w`` the
bilinear weights of a reading on the grid's pixels; ``C_{−j} = C_jᵀ``), ``ν`` a small nugget. ``window = 1`` is
the instantaneous estimate; a longer window lets sensors that moved be credited for what they saw before.

Worked examples (the tests use them; ``ν = 0``). On a 2 × 2 grid (flat index ``x·2 + y``) with ``m = 0`` and

    C_0 = [[1, .5, .5, 0], [.5, 1, 0, .5], [.5, 0, 1, .5], [0, .5, .5, 1]],

a sensor on pixel (0, 0) reading 2 gives ``û = C_0[:, 0] · 2 / 1 = (2, 1, 1, 0)``; a sensor at (0.5, 0), halfway
between pixels 0 and 2, reading 3 has ``Var y = ¼ (1 + 2·.5 + 1) = .75`` and ``Cov(u, y) = ½ (C_0[:, 0] + C_0[:, 2])
= (.75, .25, .75, .25)``, so ``û = (.75, .25, .75, .25) · 3 / .75 = (3, 1, 3, 1)``. Space–time: with ``C_0 = I`` and
``C_1`` the shift ``u_t[1] = u_{t−1}[0]`` (``C_1[1, 0] = 1``, else 0), a sensor on pixel 0 reading 5 at ``t − 1``
and one on pixel 3 reading 2 at ``t`` are uncorrelated (``C_1[3, 0] = 0``), so with ``window = 2``
``û_t = 5 e_1 + 2 e_3 = (0, 5, 0, 2)``; with ``window = 1`` only the reading 2 is used: ``(0, 0, 0, 2)``. If instead
``C_1[1, 0] = .8`` and ``C_1[3, 0] = .5``, the two readings correlate (``Cov = C_1[3, 0] = .5``, not ``C_1[0, 3] = 0``):
``Cov(y, y) = [[1, .5], [.5, 1]]``, its inverse times ``(5, 2)`` is ``(16/3, −2/3)``, and
``û_t = (16/3) (0, .8, 0, .5) + (−2/3) e_3 = (0, 64/15, 0, 2)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.core.errors import UserError


@dataclass
class FieldStats:
    """Window statistics: ``mean[a]`` ``(N²,)`` is the mean of ``u_{t−a}`` and ``blocks[a, b]`` ``(N², N²)`` the
    covariance ``Cov(u_{t−a}, u_{t−b})``, for ``a, b`` in ``0 … window − 1``."""

    mean: np.ndarray
    blocks: np.ndarray

    @property
    def window(self) -> int:
        """Longest window these statistics support."""
        return int(self.blocks.shape[0])

    @classmethod
    def from_lags(cls, mean: np.ndarray, covs: list[np.ndarray]) -> FieldStats:
        """Stationary statistics from one mean ``(N²,)`` and the lag covariances ``covs[j] = Cov(u_t, u_{t−j})``:
        ``blocks[a, b] = C_{b−a}`` for ``b ≥ a``, else ``C_{a−b}ᵀ``."""
        w = len(covs)
        blocks = np.stack([np.stack([covs[b - a] if b >= a else covs[a - b].T for b in range(w)]) for a in range(w)])
        return cls(np.stack([mean] * w), blocks)


def field_stats(fields: np.ndarray, window: int) -> FieldStats:
    """Window statistics of ``fields`` ``(E, T, N, N)``: every ``t ≥ window − 1`` of every episode is one sample of
    the stacked frames ``(u_t, u_{t−1}, …, u_{t−window+1})``, whose empirical mean and covariance (the blocks)
    are taken over those samples — one joint estimate, so that the covariance of any set of readings is
    positive semi-definite (lag covariances estimated apart need not be, and made the space–time estimate
    unstable)."""
    if fields.ndim != 4 or fields.shape[-1] != fields.shape[-2]:
        raise UserError(f"field_stats: fields must be (E, T, N, N), got {fields.shape}")
    e, t = fields.shape[:2]
    if not 1 <= window <= t:
        raise UserError(f"field_stats: window must be in 1..{t} (frames per episode), got {window}")
    x = fields.reshape(e, t, -1).astype(np.float64)
    lagged = [x[:, window - 1 - a: t - a].reshape(-1, x.shape[-1]) for a in range(window)]  # u_{t-a} per sample
    mean = np.stack([v.mean(0) for v in lagged])
    centred = [v - m for v, m in zip(lagged, mean, strict=True)]
    count = len(centred[0])
    p = x.shape[-1]
    blocks = np.empty((window, window, p, p))
    for a in range(window):
        for b in range(a, window):
            blocks[a, b] = centred[a].T @ centred[b] / count
            blocks[b, a] = blocks[a, b].T
    return FieldStats(mean, blocks)


def bilinear_weights(pos: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat pixel indices ``(..., 4)`` and weights ``(..., 4)`` of periodic bilinear interpolation at ``pos``
    ``(..., 2)`` on an ``n × n`` grid (the same corners and weights as ``observe``)."""
    base = np.floor(pos)
    fx, fy = (pos - base)[..., 0], (pos - base)[..., 1]
    i0 = base.astype(np.int64) % n
    i1 = (i0 + 1) % n
    idx = np.stack([i0[..., 0] * n + i0[..., 1], i1[..., 0] * n + i0[..., 1],
                    i0[..., 0] * n + i1[..., 1], i1[..., 0] * n + i1[..., 1]], -1)
    w = np.stack([(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy], -1)
    return idx, w


def oracle_reconstruct(fields: np.ndarray, tracks: np.ndarray, stats: FieldStats, window: int = 1,
                       nugget: float = 0.0) -> np.ndarray:
    """The linear MMSE reconstruction (module docstring) of every frame of ``fields`` ``(E, T, N, N)`` from the
    readings of the true field at ``tracks`` ``(E, T, K, 2)`` → ``(E, T, N, N)``; ``nugget`` is ``ν``."""
    if fields.ndim != 4 or tracks.ndim != 4 or tracks.shape[:2] != fields.shape[:2] or tracks.shape[-1] != 2:
        raise UserError(f"oracle_reconstruct: fields (E, T, N, N) and tracks (E, T, K, 2) must share E and T, got "
                        f"{fields.shape} and {tracks.shape}")
    if not 1 <= window <= stats.window:
        raise UserError(f"oracle_reconstruct: window must be in 1..{stats.window}, got {window}")
    if not nugget >= 0:
        raise UserError(f"oracle_reconstruct: nugget must be >= 0, got {nugget}")
    e, t_len, n, _ = fields.shape
    flat = fields.reshape(e, t_len, n * n).astype(np.float64)
    idx, w = bilinear_weights(tracks.astype(np.float64), n)  # (E, T, K, 4)
    k = idx.shape[2]
    vals = np.take_along_axis(flat, idx.reshape(e, t_len, -1), 2).reshape(idx.shape)
    lags = range(min(window, t_len))
    # readings minus their expected values, per lag a of the frame they come from: (lag, E, T, K)
    resid_all = np.stack([((vals - stats.mean[a][idx]) * w).sum(-1) for a in lags])
    out = np.empty_like(flat)
    for t in range(t_len):
        frames = list(range(max(0, t - window + 1), t + 1))
        # Cov(u_t, y_s) for every episode: (E, N², K) per frame s
        cuy = np.concatenate([np.einsum("pekc,ekc->epk", stats.blocks[0, t - s][:, idx[:, s]], w[:, s])
                              for s in frames], 2)
        blocks = [[np.einsum("ekc,ekcld,eld->ekl", w[:, s], stats.blocks[t - s, t - r][
            idx[:, s][:, :, :, None, None], idx[:, r][:, None, None]], w[:, r]) for r in frames] for s in frames]
        cyy = np.concatenate([np.concatenate(row, 2) for row in blocks], 1)  # (E, R, R)
        cyy = cyy + nugget * np.eye(len(frames) * k)
        resid = np.concatenate([resid_all[t - s][:, s] for s in frames], 1)  # (E, R)
        alpha = np.einsum("ers,es->er", np.linalg.pinv(cyy, hermitian=True), resid)
        out[:, t] = stats.mean[0] + np.einsum("epr,er->ep", cuy, alpha)
    return out.reshape(fields.shape)
