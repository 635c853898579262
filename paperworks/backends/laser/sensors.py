"""Sensors on the periodic grid: bilinear observation (differentiable in the positions), position features,
bounded moves, and the offline-optimised layout — QR column pivoting on POD modes (scipy).

Positions are continuous grid coordinates ``p = (x, y) ∈ [0, N)²`` matching the field's index ``u[x, y]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperworks.core.errors import UserError

if TYPE_CHECKING:
    import torch


def observe(field: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """Periodic bilinear interpolation of ``field`` ``(..., N, N)`` at ``pos`` ``(..., K, 2)`` → ``(..., K)``.

    Exact at grid points; differentiable in ``pos`` (and in ``field``)."""
    import torch

    if field.dim() < 2 or field.shape[-1] != field.shape[-2] or field.shape[-1] == 0:
        raise UserError(f"observe: field must be (..., N, N), got {tuple(field.shape)}")
    if pos.dim() < 2 or pos.shape[-1] != 2 or tuple(pos.shape[:-2]) != tuple(field.shape[:-2]):
        raise UserError(f"observe: pos must be (..., K, 2) with the field's leading shape {tuple(field.shape[:-2])}, "
                        f"got {tuple(pos.shape)}")
    if pos.device.type != "meta" and not bool(torch.isfinite(pos).all()):
        raise UserError("observe: pos contains NaN or infinity")
    n = field.shape[-1]
    lead = field.shape[:-2]
    flat = field.reshape(-1, n * n)
    p = pos.reshape(flat.shape[0], -1, 2)
    base = torch.floor(p)
    frac = p - base
    i0 = base.long() % n
    i1 = (i0 + 1) % n
    fx, fy = frac[..., 0], frac[..., 1]

    def at(ix: torch.Tensor, iy: torch.Tensor) -> torch.Tensor:
        return torch.gather(flat, 1, ix * n + iy)

    val = ((1 - fx) * (1 - fy) * at(i0[..., 0], i0[..., 1]) + fx * (1 - fy) * at(i1[..., 0], i0[..., 1])
           + (1 - fx) * fy * at(i0[..., 0], i1[..., 1]) + fx * fy * at(i1[..., 0], i1[..., 1]))
    return val.reshape(*lead, p.shape[1])


def position_features(pos: torch.Tensor, n: int, harmonics: int) -> torch.Tensor:
    """Fourier features of positions on the torus: ``sin/cos(2π m x / N)``, same for ``y``, m = 1..harmonics
    → ``(..., 4 · harmonics)``."""
    import torch

    m = torch.arange(1, harmonics + 1, dtype=pos.dtype, device=pos.device)
    ang = 2 * torch.pi * pos[..., None] / n * m  # (..., 2, H)
    return torch.cat([torch.sin(ang), torch.cos(ang)], -1).flatten(-2)


def bounded_move(raw: torch.Tensor, max_step: float) -> torch.Tensor:
    """Map an unbounded action ``(..., 2)`` to a move of length < ``max_step`` (tanh on the norm, direction kept)."""
    import torch

    norm = raw.norm(dim=-1, keepdim=True).clamp_min(1e-8)
    return raw / norm * max_step * torch.tanh(norm)


def random_layout(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` positions uniform on the grid's domain, ``(k, 2)``."""
    return rng.uniform(0, n, size=(k, 2))


def random_walk(n: int, k: int, steps: int, max_step: float, rng: np.random.Generator) -> np.ndarray:
    """Sensor paths ``(steps, k, 2)``: uniform start, then correlated random moves of length ≤ ``max_step``."""
    p = np.empty((steps, k, 2))
    p[0] = random_layout(n, k, rng)
    vel = rng.normal(size=(k, 2))
    for t in range(1, steps):
        vel = 0.7 * vel + 0.7 * rng.normal(size=(k, 2))
        norm = np.linalg.norm(vel, axis=1, keepdims=True).clip(1e-8)
        move = vel / norm * max_step * np.tanh(norm)
        p[t] = (p[t - 1] + move) % n
    return p


def pod_basis(snapshots: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """POD of ``snapshots`` ``(m, N²)``: the mean ``(N²,)`` and the leading ``rank`` modes ``(N², rank)`` (SVD of the
    centred snapshots)."""
    if not 1 <= rank <= min(snapshots.shape):
        raise UserError(f"POD rank must be in 1..{min(snapshots.shape)}, got {rank}")
    mean = snapshots.mean(0)
    _, _, vt = np.linalg.svd(snapshots - mean, full_matrices=False)
    return mean, vt[:rank].T


def qr_sensors(modes: np.ndarray, k: int) -> np.ndarray:
    """QR column pivoting on ``modes.T`` (Manohar et al.'s QR-DEIM placement): the ``k`` pixel indices it picks
    first. With more sensors than modes, the rest follow the pivot order of the same factorisation."""
    from scipy.linalg import qr

    if not 1 <= k <= modes.shape[0]:
        raise UserError(f"sensor count must be in 1..{modes.shape[0]}, got {k}")
    if k > modes.shape[1]:
        # oversampling: pivot on Φ Φᵀ so that the ordering covers more than rank(Φ) pixels
        _, _, piv = qr(modes @ modes.T, pivoting=True, mode="economic")
    else:
        _, _, piv = qr(modes.T, pivoting=True, mode="economic")
    return np.asarray(piv[:k])


def pixel_positions(idx: np.ndarray, n: int) -> np.ndarray:
    """Flat pixel indices (row-major over [x, y]) → grid positions ``(k, 2)``."""
    return np.stack([idx // n, idx % n], 1).astype(float)


def pod_reconstruct(values: np.ndarray, idx: np.ndarray, mean: np.ndarray, modes: np.ndarray) -> np.ndarray:
    """Least-squares POD reconstruction from point values ``values`` ``(..., k)`` at pixels ``idx``:
    ``u = mean + Φ a``, ``a = argmin ‖Φ[idx] a − (values − mean[idx])‖`` → ``(..., N²)``."""
    rows = modes[idx]
    rhs = (values - mean[idx]).reshape(-1, len(idx)).T
    coef, *_ = np.linalg.lstsq(rows, rhs, rcond=None)
    out = mean + (modes @ coef).T
    return out.reshape(*values.shape[:-1], modes.shape[0])
