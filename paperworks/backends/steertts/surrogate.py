"""The differentiable surrogate: the measured JND-unit profile given a control vector and the neutral context.

``Surrogate(u, ctx) = prior(u, ctx) + MLP([2u - 1, ctx])``. The MLP, whose last layer starts at zero,
learns how the real engine (espeak-ng + PSOLA + shaping, then ``tools.speech.measure``) departs from the
prior, from the prototype library's own renders. **Reconstructed**: the paper says only that the fast loop
corrects intensity "through latent gradient correction".

The prior is what an ideal engine would measure - each commanded delta read back in JND units
(``cues.ideal_profile_of_control``) - except for two interactions of the measurement itself, which a
small library cannot teach and which otherwise sent corrections the wrong way:

- F0 slope: ``f0_range_scale`` k scales the neutral contour's own trend s0 too, and ``tempo_scale`` r
  compresses it in time, so the measured slope moves by ``s + s0 (k r - 1)``, not by the commanded s;
- F0 range: the 10-90 percentile span of (k x excursions + a trend spanning ``k s0 D + s D / r`` over the
  neutral duration D) is about ``sqrt((k R_d)^2 + (0.8 span)^2)``, with the detrended neutral range
  ``R_d^2 = R0^2 - (0.8 s0 D)^2`` (floored at R0 / 4): a commanded declination widens the measured range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paperworks.backends.steertts import cues
from paperworks.backends.steertts._threads import one_thread
from paperworks.backends.steertts.acoustics import CONTEXT_CENTRE, CONTEXT_NAMES, CONTEXT_SCALE
from paperworks.backends.steertts.library import PrototypeLibrary
from paperworks.tools.speech.control import CONTROL_NAMES, lower_bounds, upper_bounds

N_CONTROL = len(CONTROL_NAMES)
N_PROFILE = len(cues.PROFILE_DIMS)
_JND = torch.tensor([cues.JND[d] for d in cues.PROFILE_DIMS], dtype=torch.float32)
_IDX = {n: i for i, n in enumerate(CONTROL_NAMES)}


def _raw_context(context: torch.Tensor, name: str) -> torch.Tensor:
    i = CONTEXT_NAMES.index(name)
    return context[..., i] * float(CONTEXT_SCALE[i]) + float(CONTEXT_CENTRE[i])


def ideal_profile(unit: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
    """(B, 9) unit controls -> (B, 9) JND-unit prior profile (HNR 0): the ideal engine, with the slope and
    range interactions of the module docstring when the neutral ``context`` (B, C) is given."""
    lo, hi = torch.from_numpy(lower_bounds()), torch.from_numpy(upper_bounds())
    c = lo + unit * (hi - lo)

    def col(name: str) -> torch.Tensor:
        return c[..., _IDX[name]]

    k, s, r = col("f0_range_scale"), col("f0_slope_st_per_s"), col("tempo_scale")
    f0_range, slope = torch.log2(k.clamp_min(0.05)), s
    if context is not None:
        r0 = _raw_context(context, "f0_range_st").clamp_min(0.5)
        s0 = _raw_context(context, "f0_slope_st_per_s")
        dur = _raw_context(context, "duration_s").clamp_min(0.3)
        slope = s + s0 * (k * r - 1.0)
        detrended = torch.sqrt(torch.clamp(r0**2 - (0.8 * s0 * dur) ** 2, min=(r0 / 4) ** 2))
        span = 0.8 * (k * s0 * dur + s * dur / r)
        f0_range = torch.log2(torch.sqrt((k * detrended) ** 2 + span**2 + 1e-4) / r0)
    natural = torch.stack([
        col("f0_shift_st"), f0_range, slope, col("f0_final_st"), torch.log(r), torch.log(col("pause_scale")),
        col("intensity_db"), col("tilt_db_per_oct"), torch.zeros_like(col("breathiness")),
    ], dim=-1)
    return natural / _JND


def rule_unit(profile: torch.Tensor, breathiness: torch.Tensor | float = 0.0) -> torch.Tensor:
    """The inverse of the ideal engine: the unit control whose commanded deltas are ``profile`` (B, >= 8, JND
    units; NaN = neutral), clipped to the bounds, with ``breathiness`` (which no profile dimension sets).
    For an intent's target this is the keyword table's own control vector (the rule stream's anchor)."""
    p = torch.nan_to_num(profile[..., :8]) * _JND[:8]
    lo, hi = torch.from_numpy(lower_bounds()), torch.from_numpy(upper_bounds())
    b = torch.as_tensor(breathiness, dtype=torch.float32).expand(p.shape[:-1])
    c = torch.stack([p[..., 0], torch.exp2(p[..., 1]), p[..., 2], p[..., 3], torch.exp(p[..., 4]),
                     torch.exp(p[..., 5]), p[..., 6], p[..., 7], b], dim=-1)
    return ((c - lo) / (hi - lo)).clamp(0.0, 1.0)


class Surrogate(nn.Module):
    """Profile (JND units, ``cues.PROFILE_DIMS``) given unit controls (B, 9) and neutral context (B, C)."""

    def __init__(self, n_context: int = len(CONTEXT_NAMES), hidden: int = 64) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(N_CONTROL + n_context, hidden), nn.SiLU(), nn.Linear(hidden, hidden),
                                 nn.SiLU(), nn.Linear(hidden, N_PROFILE))
        last = self.net[-1]
        assert isinstance(last, nn.Linear)
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)

    def forward(self, unit: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        return ideal_profile(unit, context) + self.net(torch.cat([2.0 * unit - 1.0, context], dim=-1))


@dataclass
class SurrogateConfig:
    """Training of the surrogate."""

    hidden: int = 64
    """MLP width."""
    steps: int = 600
    """Adam steps."""
    batch: int = 256
    """Rows per step."""
    lr: float = 3e-3
    """Learning rate."""
    holdout: float = 0.15
    """Share of (text, voice) pairs held out for the reported error."""
    clip_jnd: float = 20.0
    """Targets are clipped to +-this many JNDs (a vanished pause is -15 JND of ln ratio)."""
    seed: int = 0
    """Seed of the split and the initialisation."""


def masked_huber(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Huber loss (delta 1 JND) over the finite entries of ``target``."""
    mask = torch.isfinite(target)
    diff = torch.where(mask, pred - torch.nan_to_num(target), torch.zeros_like(pred))
    loss = nn.functional.huber_loss(diff, torch.zeros_like(diff), reduction="none", delta=1.0)
    return (loss * mask).sum() / mask.sum().clamp_min(1)


def _tensors(lib: PrototypeLibrary, clip: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    y = np.clip(lib.profile, -clip, clip)
    return torch.from_numpy(lib.control_unit.astype(np.float32)), torch.from_numpy(lib.context.astype(np.float32)), \
        torch.from_numpy(y.astype(np.float32))


@one_thread()
def train_surrogate(lib: PrototypeLibrary, cfg: SurrogateConfig | None = None) -> tuple[Surrogate, dict[str, float]]:
    """Fit on the library's renders; returns the model and held-out errors (JND MAE, and the ideal engine's)."""
    cfg = cfg or SurrogateConfig()
    gen = torch.Generator().manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    u, ctx, y = _tensors(lib, cfg.clip_jnd)
    pair = lib.text.astype(np.int64) * 1000 + lib.voice.astype(np.int64)
    pairs = np.unique(pair)
    n_hold = int(round(cfg.holdout * len(pairs))) if len(pairs) > 2 else 0
    held = set(np.random.default_rng(cfg.seed).permutation(pairs)[:n_hold].tolist())
    test = torch.from_numpy(np.array([p in held for p in pair]))
    train_idx = torch.nonzero(~test).flatten()
    model = Surrogate(ctx.shape[1], cfg.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg.steps)
    for _ in range(cfg.steps):
        b = train_idx[torch.randint(len(train_idx), (min(cfg.batch, len(train_idx)),), generator=gen)]
        loss = masked_huber(model(u[b], ctx[b]), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    metrics: dict[str, float] = {"train_rows": float(len(train_idx)), "heldout_rows": float(int(test.sum()))}
    rows = test if bool(test.any()) else ~test
    with torch.no_grad():
        pred, ideal, target = model(u[rows], ctx[rows]), ideal_profile(u[rows]), y[rows]
        prior = ideal_profile(u[rows], ctx[rows])
    search = torch.tensor([d != "hnr" for d in cues.PROFILE_DIMS])
    mask = torch.isfinite(target) & search
    metrics["mae_jnd"] = float((pred - target).abs()[mask].mean())
    metrics["ideal_engine_mae_jnd"] = float((ideal - target).abs()[mask].mean())
    metrics["prior_mae_jnd"] = float((prior - target).abs()[mask].mean())
    for i, d in enumerate(cues.PROFILE_DIMS):
        m = torch.isfinite(target[:, i])
        metrics[f"mae_jnd[{d}]"] = float((pred[:, i] - target[:, i]).abs()[m].mean()) if bool(m.any()) else math.nan
    return model, metrics
