"""The Synthesis Agent's module: gated-attention fusion of retrieved anchors into one control vector.

**Reconstructed** (the paper: "a Synthesis Agent fuses them into continuous control vectors via gated
attention"). For a target profile ``t`` and K anchors (measured profile ``p_j``, unit control ``c_j``,
component weight ``w_j``):

    a_j   = softmax_j( <Wq t, Wk [p_j, p_j - t, log w_j]> / sqrt(d) + log w_j )   attention over anchors
    mix   = sum_j a_j logit(c_j)                      the anchors' controls, blended in logit space
    off   = sum_j a_j (p_j - t)                       how far the attended anchors miss the target
    g     = sigmoid(G [t, off])                       per control dimension: how much to trust a correction
    delta = D [t, off, sigmoid(mix)]                  the correction
    out   = sigmoid(mix + g * delta)                  unit control vector (always inside the bounds)

*Dual stream* (our reading of "Dual-Stream Anchoring Controller"): the anchors are the retrieved acoustic
prototypes (measured profiles) plus one *rule* anchor, the control an ideal engine would need for the
target (``surrogate.rule_unit``; for an intent's own target, the keyword table's control vector) with the
surrogate's prediction of its profile, at weight 1. The attention decides how much each stream counts.

Trained (``train_fusion``) on the library itself: a prototype's measured profile is the target, its nearest
other prototypes the acoustic anchors (half the time two groups, around ``t + e`` and ``t - e``, at weight
1/2 each, as a composite intent's components would be), the rule anchor of the target first; the loss is
the frozen surrogate's predicted profile of ``out`` against the target (Huber, JND units) plus
``control_weight`` x the squared distance to the prototype's own control.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paperworks.backends.steertts._threads import one_thread
from paperworks.backends.steertts.index import PrototypeIndex, search_part
from paperworks.backends.steertts.library import PrototypeLibrary
from paperworks.backends.steertts.surrogate import N_CONTROL, Surrogate, masked_huber, rule_unit

N_SEARCH = 8
"""Profile dimensions the fusion reads (all but HNR)."""
_SCALE = 0.25
"""Profiles (JND units, up to about +-15) are scaled by this before the linear layers."""
_SEARCH = torch.tensor([True] * N_SEARCH + [False])


class GatedAttentionFusion(nn.Module):
    """``forward(target, anchor_profile, anchor_control, anchor_weight, mask) -> (unit control, attention, gate)``.

    Shapes: target (B, 8); anchor_profile (B, K, 8); anchor_control (B, K, 9) in [0, 1]; anchor_weight
    (B, K) > 0; mask (B, K) bool (False: padding). Returns (B, 9), (B, K), (B, 9)."""

    def __init__(self, d_model: int = 32, hidden: int = 64) -> None:
        super().__init__()
        self.d_model = d_model
        self.query = nn.Linear(N_SEARCH, d_model)
        self.key = nn.Linear(2 * N_SEARCH + 1, d_model)
        self.gate = nn.Sequential(nn.Linear(2 * N_SEARCH, hidden), nn.SiLU(), nn.Linear(hidden, N_CONTROL))
        self.delta = nn.Sequential(nn.Linear(2 * N_SEARCH + N_CONTROL, hidden), nn.SiLU(),
                                   nn.Linear(hidden, N_CONTROL))

    def forward(self, target: torch.Tensor, anchor_profile: torch.Tensor, anchor_control: torch.Tensor,
                anchor_weight: torch.Tensor, mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        t = target * _SCALE
        p = anchor_profile * _SCALE
        logw = torch.log(anchor_weight.clamp_min(1e-6))
        keys = self.key(torch.cat([p, p - t[:, None, :], logw[..., None]], dim=-1))
        scores = (keys @ self.query(t)[..., None]).squeeze(-1) / math.sqrt(self.d_model) + logw
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        logit_c = torch.logit(anchor_control.clamp(1e-3, 1.0 - 1e-3))
        mix = (attn[..., None] * logit_c).sum(1)
        off = (attn[..., None] * (p - t[:, None, :])).sum(1)
        gate = torch.sigmoid(self.gate(torch.cat([t, off], dim=-1)))
        delta = self.delta(torch.cat([t, off, torch.sigmoid(mix)], dim=-1))
        return torch.sigmoid(mix + gate * delta), attn, gate


@dataclass
class FusionConfig:
    """Training of the fusion module."""

    anchors: int = 6
    """K: anchors per example."""
    steps: int = 500
    """Adam steps."""
    batch: int = 128
    """Examples per step."""
    lr: float = 2e-3
    """Learning rate."""
    split_prob: float = 0.5
    """Chance an example's anchors come in two groups (a composite intent)."""
    split_jnd: float = 1.5
    """Standard deviation of the offset ``e`` of the two groups (JND)."""
    control_weight: float = 0.5
    """Weight of the squared distance to the prototype's own control (unit space)."""
    seed: int = 0
    """Seed."""


def _anchors_for(index: PrototypeIndex, lib: PrototypeLibrary, rows: torch.Tensor, k: int, split: torch.Tensor,
                 spread: float, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Anchor rows (B, K) and weights (B, K) for training rows, plus their targets (B, 8)."""
    target = index.profiles[rows]
    idx, _ = index.neighbours(target, k, exclude=rows)
    half = k // 2
    if half and bool(split.any()):
        e = torch.randn(target.shape, generator=gen) * spread
        up, _ = index.neighbours(target + e, half, exclude=rows)
        down, _ = index.neighbours(target - e, k - half, exclude=rows)
        idx = torch.where(split[:, None], torch.cat([up, down], 1), idx)
    weight = torch.where(split[:, None], torch.full(idx.shape, 0.5), torch.ones(idx.shape))
    return idx, weight, target


@one_thread()
def train_fusion(lib: PrototypeLibrary, surrogate: Surrogate, index: PrototypeIndex,
                 cfg: FusionConfig | None = None) -> tuple[GatedAttentionFusion, dict[str, float]]:
    """Train on the library (module docstring); returns the model and final-batch losses."""
    cfg = cfg or FusionConfig()
    gen = torch.Generator().manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    k = min(cfg.anchors, len(lib) - 1)
    model = GatedAttentionFusion()
    for p in surrogate.parameters():
        p.requires_grad_(False)
    controls = torch.from_numpy(lib.control_unit.astype(np.float32))
    context = torch.from_numpy(lib.context.astype(np.float32))
    profile = torch.from_numpy(np.clip(lib.profile, -20, 20).astype(np.float32))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    first = last = math.nan
    for step in range(cfg.steps):
        rows = torch.randint(len(lib), (min(cfg.batch, len(lib)),), generator=gen)
        split = torch.rand(len(rows), generator=gen) < cfg.split_prob
        idx, weight, target = _anchors_for(index, lib, rows, k, split, cfg.split_jnd, gen)
        with torch.no_grad():
            r_unit = rule_unit(target)
            r_prof = surrogate(r_unit, context[rows])[:, _SEARCH]
        out, _, _ = model(target, torch.cat([r_prof[:, None], index.profiles[idx]], 1),
                          torch.cat([r_unit[:, None], controls[idx]], 1),
                          torch.cat([torch.ones(len(rows), 1), weight], 1))
        pred = surrogate(out, context[rows])[:, _SEARCH]
        loss = masked_huber(pred, profile[rows][:, _SEARCH]) + cfg.control_weight * ((out - controls[rows]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 0:
            first = float(loss.detach())
        last = float(loss.detach())
    model.eval()
    return model, {"first_loss": first, "final_loss": last, "anchors": float(k)}


@one_thread()
def fuse(model: GatedAttentionFusion, target: np.ndarray, lib: PrototypeLibrary, anchor_rows: list[int],
         weights: list[float], rule: tuple[np.ndarray, np.ndarray] | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One fusion at inference: a full target profile, anchors (library rows with component weights) and the
    rule anchor ``(unit control, predicted profile)`` first when given -> (unit control (9,), attention (K,)
    with the rule anchor first, gate (9,))."""
    t = torch.from_numpy(search_part(target))[None]
    rows = np.asarray(anchor_rows, dtype=np.int64)
    prof_np, ctrl_np, w_list = search_part(lib.profile[rows]), lib.control_unit[rows].astype(np.float32), list(weights)
    if rule is not None:
        prof_np = np.concatenate([search_part(rule[1])[None], prof_np.reshape(-1, N_SEARCH)])
        ctrl_np = np.concatenate([np.asarray(rule[0], dtype=np.float32)[None], ctrl_np.reshape(-1, N_CONTROL)])
        w_list = [1.0, *w_list]
    prof, ctrl = torch.from_numpy(prof_np)[None], torch.from_numpy(ctrl_np)[None]
    w = torch.tensor(w_list, dtype=torch.float32)[None]
    with torch.no_grad():
        out, attn, gate = model(t, prof, ctrl, w)
    return out[0].numpy(), attn[0].numpy(), gate[0].numpy()
