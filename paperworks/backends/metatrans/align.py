"""The alignment terms: multi-bandwidth Gaussian MMD, and the gradient-reversal layer of adversarial (DANN)
alignment."""

from __future__ import annotations

from typing import Any

import torch

from paperworks.backends._validate import BackendInputError


def gaussian_mmd2(a: torch.Tensor, b: torch.Tensor,
                  bandwidths: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)) -> torch.Tensor:
    """Biased (V-statistic) squared MMD between samples ``a`` (n, d) and ``b`` (m, d) under the sum of Gaussian
    kernels ``exp(-|x - y|^2 / (2 s^2 * mean_sq))``, each ``s`` in ``bandwidths`` scaled by the pooled mean
    squared distance (detached), so the term is scale-free."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[1] or a.shape[0] == 0 or b.shape[0] == 0:
        raise BackendInputError(f"gaussian_mmd2: a and b must be non-empty (n, d) and (m, d) samples, got "
                                f"{tuple(a.shape)} and {tuple(b.shape)}")
    if not bandwidths or not all(s > 0 for s in bandwidths):
        raise BackendInputError(f"gaussian_mmd2: bandwidths must be positive, got {bandwidths}")
    if a.device.type != "meta" and not bool(torch.isfinite(a.detach()).all() and torch.isfinite(b.detach()).all()):
        raise BackendInputError("gaussian_mmd2: samples contain NaN or infinity")
    x = torch.cat([a, b], dim=0)
    d2 = torch.cdist(x, x).pow(2)
    scale = d2.detach().mean().clamp_min(1e-8)
    k = sum(torch.exp(-d2 / (2.0 * s * s * scale)) for s in bandwidths)
    assert isinstance(k, torch.Tensor)
    n = a.shape[0]
    return k[:n, :n].mean() + k[n:, n:].mean() - 2.0 * k[:n, n:].mean()


class _Reverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        return -ctx.lam * grad, None


def grad_reverse(x: torch.Tensor, lam: float = 1.0) -> torch.Tensor:
    """Identity forward; multiplies the gradient by ``-lam`` backward (Ganin & Lempitsky's GRL)."""
    out: torch.Tensor = _Reverse.apply(x, lam)
    return out
