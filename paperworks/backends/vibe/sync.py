"""Raw physical synchrony: the instantaneous phase of each person's motion (analytic signal via the FFT
Hilbert transform) and the pairwise phase-locking value ``PLV_ij = |mean_t exp(i (phi_i(t) - phi_j(t)))|``,
1 for phase-locked people and near 0 for independent ones."""

from __future__ import annotations

import torch

from paperworks.backends._validate import BackendInputError


def _out_dtype(x: torch.Tensor) -> torch.dtype:
    """Phases and PLVs are real numbers: the input's float dtype, float32 for integer input."""
    return x.dtype if x.is_floating_point() else torch.float32


def _check_signals(x: torch.Tensor, name: str, ndim: int = 1) -> None:
    if x.dim() < ndim or x.shape[-1] == 0:
        raise BackendInputError(f"{name}: expected at least {ndim}-D input with frames on the last axis, got "
                                f"{tuple(x.shape)}")
    if x.is_complex() or x.dtype == torch.bool:
        raise BackendInputError(f"{name}: expected real signals, got {x.dtype}")
    if x.device.type != "meta" and x.is_floating_point() and not bool(torch.isfinite(x).all()):
        raise BackendInputError(f"{name}: signals contain NaN or infinity")


def motion_signal(skeletons: torch.Tensor) -> torch.Tensor:
    """(..., people, frames, joints, 2) → (..., people, frames): each person's mean vertical joint position,
    centred over time."""
    s = skeletons[..., 1].mean(dim=-1)
    return s - s.mean(dim=-1, keepdim=True)


def hilbert_phase(x: torch.Tensor) -> torch.Tensor:
    """Instantaneous phase (radians) of real signals ``x`` (..., frames), from the analytic signal (the FFT
    with negative frequencies zeroed and positive ones doubled, as in scipy.signal.hilbert)."""
    _check_signals(x, "hilbert_phase")
    n = x.shape[-1]
    spec = torch.fft.fft(x.to(torch.float64), dim=-1)
    h = torch.zeros(n, dtype=torch.float64, device=x.device)
    h[0] = 1.0
    if n % 2 == 0:
        h[n // 2] = 1.0
        h[1: n // 2] = 2.0
    else:
        h[1: (n + 1) // 2] = 2.0
    analytic = torch.fft.ifft(spec * h, dim=-1)
    return torch.angle(analytic).to(_out_dtype(x))


def phase_locking(signals: torch.Tensor) -> torch.Tensor:
    """(..., people, frames) → (..., people, people) pairwise phase-locking values (diagonal 1)."""
    _check_signals(signals, "phase_locking", ndim=2)
    work = signals if signals.dtype in (torch.float32, torch.float64) else signals.to(torch.float64)
    phi = hilbert_phase(work)  # polar has no half-precision (or integer) kernels
    z = torch.polar(torch.ones_like(phi), phi)
    plv = (z[..., :, None, :] * z[..., None, :, :].conj()).mean(dim=-1).abs()
    return plv.to(_out_dtype(signals))


def group_synchrony(skeletons: torch.Tensor) -> torch.Tensor:
    """(..., people, frames, joints, 2) → (..., people, people) PLV of the people's motion signals."""
    return phase_locking(motion_signal(skeletons))
