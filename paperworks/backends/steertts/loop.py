"""The fast loop: render, measure, and correct the control latent by gradient steps through the surrogate.

One correction (``correct``), **reconstructed** from "refines output intensity through latent gradient
correction": the control latent is ``z = logit(u)`` (so every step stays inside the control bounds); the
surrogate's error at the current control is measured, ``b = measured - S(u)``, and held fixed; then
``steps`` Adam steps minimise

    sum_d w_d rho(S(sigmoid(z)) + b - aim)_d / sum_d w_d  +  trust * ||z - z_0||^2

with ``rho(x) = sqrt(x^2 + 0.01)`` (a smooth absolute value, matching the mean-absolute control error;
a squared loss let one unreachable feature drag all the others), ``w_d`` = 1 on the dimensions the
target moves, ``off_target_weight`` on the others, 0 on HNR. With an exact surrogate this is feedback on
the measured residual; with an inexact one the measured bias keeps it honest.

``propose`` makes the next control from a render history, trust-region style: it corrects from the best
render so far (against the current target), and multiplies ``trust`` by 4 for every render since that
best (they did not improve on it), so a correction that overshot is followed by a smaller one.
``run_fast_loop`` repeats render -> measure -> propose until the measured expression is within tolerance
(control error <= ``tolerance_jnd`` and intensity ratio within ``intensity_tolerance`` of 1) or
``budget`` renders are spent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from paperworks.backends.steertts import cues
from paperworks.backends.steertts._threads import one_thread
from paperworks.backends.steertts.surrogate import Surrogate


@dataclass
class FastLoopConfig:
    """Settings of the fast loop."""

    budget: int = 4
    """Renders per plan (the first render included)."""
    steps: int = 40
    """Gradient steps per correction."""
    lr: float = 0.15
    """Adam learning rate on the control latent."""
    trust: float = 0.03
    """Penalty on moving the latent (keeps a step near where the measurement was taken)."""
    off_target_weight: float = 0.3
    """Weight of the dimensions the target leaves at neutral."""
    tolerance_jnd: float = 0.3
    """Stop when the control error is at most this (JND, targeted dimensions) ..."""
    intensity_tolerance: float = 0.15
    """... and the intensity ratio is within this of 1."""


@dataclass
class Step:
    """One render of a loop."""

    unit: np.ndarray
    """The unit control rendered."""
    measured: np.ndarray
    """Its measured profile (JND units)."""
    error: float
    """Control error against the target (JND, targeted dimensions)."""
    ratio: float
    """Intensity ratio against the target."""
    info: dict[str, float] = field(default_factory=dict)
    """The correction that produced this control (predicted error, losses), empty for a start."""


def loop_weights(target: np.ndarray, off_target_weight: float) -> np.ndarray:
    """Per-dimension weights of the correction objective (module docstring)."""
    t = np.asarray(target, dtype=np.float64)
    w = np.where(cues.targeted(t), 1.0, off_target_weight)
    w[~np.isfinite(t)] = 0.0
    w[cues.PROFILE_DIMS.index("hnr")] = 0.0
    return w.astype(np.float32)


def within_tolerance(measured: np.ndarray, target: np.ndarray, cfg: FastLoopConfig) -> bool:
    """True when the measurement meets the target (module docstring); a target that moves nothing is met
    when every finite dimension stays within the tolerance of neutral."""
    err = cues.control_error(measured, target)
    if math.isnan(err):
        return bool(cues.control_error(measured, target, dims="all") <= cfg.tolerance_jnd)
    ratio = cues.intensity_ratio(measured, target)
    return err <= cfg.tolerance_jnd and abs(ratio - 1.0) <= cfg.intensity_tolerance


@one_thread()
def correct(surrogate: Surrogate, unit: np.ndarray, context: np.ndarray, measured: np.ndarray, aim: np.ndarray,
            cfg: FastLoopConfig, target: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, float]]:
    """One correction (module docstring) -> (new unit control, info). ``target`` sets the weights
    (default: ``aim``)."""
    u0 = torch.from_numpy(np.clip(np.asarray(unit, dtype=np.float32), 1e-3, 1.0 - 1e-3))[None]
    ctx = torch.from_numpy(np.asarray(context, dtype=np.float32))[None]
    m = torch.from_numpy(np.asarray(measured, dtype=np.float32))[None]
    a = torch.from_numpy(np.nan_to_num(np.asarray(aim, dtype=np.float32)))[None]
    w = torch.from_numpy(loop_weights(target if target is not None else aim, cfg.off_target_weight))[None]
    w = w * torch.isfinite(m)
    for p in surrogate.parameters():
        p.requires_grad_(False)
    with torch.no_grad():
        bias = torch.nan_to_num(m - surrogate(u0, ctx))
    z0 = torch.logit(u0)
    z = z0.clone().requires_grad_(True)
    opt = torch.optim.Adam([z], lr=cfg.lr)
    norm = w.sum().clamp_min(1e-6)

    def objective() -> tuple[torch.Tensor, torch.Tensor]:
        pred = surrogate(torch.sigmoid(z), ctx) + bias
        fit = (w * torch.sqrt((pred - a) ** 2 + 0.01)).sum() / norm
        return fit + cfg.trust * ((z - z0) ** 2).sum(), fit

    start = float(objective()[1].detach())
    for _ in range(cfg.steps):
        loss, _ = objective()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        _, fit = objective()
        new = torch.sigmoid(z)[0].numpy().astype(np.float32)
    return new, {"predicted_fit_start": start, "predicted_fit_end": float(fit)}


def propose(surrogate: Surrogate, context: np.ndarray, steps: list[Step], target: np.ndarray, cfg: FastLoopConfig,
            aim: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, float]]:
    """The next control after ``steps`` (all renders so far, any plan): a correction from the best of them
    against ``target``, aiming at ``aim`` (default the target), its trust scaled by 4 per render since."""
    errors = [cues.control_error(s.measured, target) for s in steps]
    if all(math.isnan(e) for e in errors):
        errors = [cues.control_error(s.measured, target, dims="all") for s in steps]
    order = [e if math.isfinite(e) else math.inf for e in errors]
    best = int(np.argmin(order))
    fails = len(steps) - 1 - best
    cfg_k = replace(cfg, trust=cfg.trust * 4.0**fails)
    unit, info = correct(surrogate, steps[best].unit, context, steps[best].measured,
                         aim if aim is not None else target, cfg_k, target)
    return unit, {**info, "from_step": float(best), "trust": cfg_k.trust}


def run_fast_loop(evaluate: Callable[[np.ndarray], np.ndarray], surrogate: Surrogate, context: np.ndarray,
                  target: np.ndarray, start: np.ndarray, cfg: FastLoopConfig, aim: np.ndarray | None = None,
                  prior: list[Step] | None = None) -> list[Step]:
    """Render (``evaluate(unit) -> measured profile``) ``start``, check, propose, until within tolerance or the
    budget is spent; errors are against ``target``. ``prior``: renders of earlier plans, which ``propose``
    may correct from. Returns this loop's renders."""
    history: list[Step] = []
    unit = np.asarray(start, dtype=np.float32)
    info: dict[str, float] = {}
    for k in range(max(1, cfg.budget)):
        measured = evaluate(unit)
        history.append(Step(unit, measured, cues.control_error(measured, target),
                            cues.intensity_ratio(measured, target), info))
        if within_tolerance(measured, target, cfg) or k == cfg.budget - 1:
            break
        unit, info = propose(surrogate, context, [*(prior or []), *history], target, cfg, aim)
    return history


def best_step(history: list[Step]) -> Step:
    """The step with the smallest control error (NaN errors last)."""
    return min(history, key=lambda s: s.error if math.isfinite(s.error) else math.inf)
