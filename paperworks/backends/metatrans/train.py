"""Training of MetaTrans, its two ablations and the two baselines, with the same recipe for all: Adam on
source cross-entropy plus ``align_weight`` × one alignment term between source and (unlabelled) target
features, and target accuracy.

Variants (:data:`VARIANTS`): ``source-only`` (order-aware stream, CE only); ``DANN`` (order-aware stream,
adversarial alignment through a gradient-reversal layer); ``MetaTrans`` (subtraction + MMD on the residual);
``MetaTrans w/o subtraction`` (order-aware stream + MMD); ``MetaTrans w/o alignment`` (subtraction, CE only).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch
from torch import nn

from paperworks.backends.metatrans.align import gaussian_mmd2, grad_reverse
from paperworks.backends.metatrans.model import Discriminator, MetaTrans, MetaTransConfig
from paperworks.core.errors import UserError
from paperworks.core.tracking import track

VARIANTS: dict[str, tuple[bool, str]] = {
    "source-only": (False, "none"),
    "DANN": (False, "adv"),
    "MetaTrans": (True, "mmd"),
    "MetaTrans w/o subtraction": (False, "mmd"),
    "MetaTrans w/o alignment": (True, "none"),
}
"""Variant → (subtract the static estimate, alignment: "none" | "mmd" | "adv")."""


@dataclass
class TrainConfig:
    """The training recipe, the same for every variant."""

    steps: int = 600
    """Optimiser steps."""
    batch: int = 64
    """Source clips (and as many target clips) per step."""
    lr: float = 2e-3
    """Adam learning rate."""
    align_weight: float = 1.0
    """Weight of the alignment term (MMD, or the discriminator's loss through the reversal layer)."""
    warmup: float = 0.3
    """The alignment weight ramps linearly from 0 over this share of the steps."""
    seed: int = 0
    """Seed of the network and the batches."""


def make_model(variant: str, cfg: MetaTransConfig) -> MetaTrans:
    """A fresh network for one of :data:`VARIANTS` (the config's ``subtract`` is overridden)."""
    if variant not in VARIANTS:
        raise UserError(f"metatrans: unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    return MetaTrans(replace(cfg, subtract=VARIANTS[variant][0]))


def train_variant(variant: str, xs: np.ndarray, ys: np.ndarray, xt: np.ndarray, model_cfg: MetaTransConfig,
                  cfg: TrainConfig) -> tuple[MetaTrans, list[dict[str, float]]]:
    """Train one variant on labelled source clips ``xs, ys`` and unlabelled target clips ``xt``; returns the
    network and the per-step losses."""
    if cfg.steps < 1 or cfg.batch < 2:
        raise UserError(f"metatrans: steps must be >= 1 and batch >= 2, got {cfg.steps}, {cfg.batch}")
    torch.manual_seed(cfg.seed)
    model = make_model(variant, model_cfg)
    align = VARIANTS[variant][1]
    disc = Discriminator(model_cfg.dim) if align == "adv" else None
    params = list(model.parameters()) + (list(disc.parameters()) if disc is not None else [])
    opt = torch.optim.Adam(params, lr=cfg.lr)
    rng = np.random.default_rng(cfg.seed)
    xs_t, ys_t, xt_t = torch.from_numpy(xs), torch.from_numpy(ys), torch.from_numpy(xt)
    ce = nn.CrossEntropyLoss()
    bce = nn.BCEWithLogitsLoss()
    hist: list[dict[str, float]] = []
    for step in range(cfg.steps):
        i = torch.from_numpy(rng.integers(len(xs), size=cfg.batch))
        j = torch.from_numpy(rng.integers(len(xt), size=cfg.batch))
        fs, ft = model.features(xs_t[i]), model.features(xt_t[j])
        loss_ce = ce(model.head(fs), ys_t[i])
        ramp = min(1.0, (step + 1) / max(1.0, cfg.warmup * cfg.steps)) * cfg.align_weight
        if align == "mmd":
            loss_al = gaussian_mmd2(fs, ft)
        elif align == "adv":
            assert disc is not None
            f = grad_reverse(torch.cat([fs, ft]), 1.0)
            dom = torch.cat([torch.ones(cfg.batch), torch.zeros(cfg.batch)])
            loss_al = bce(disc(f), dom)
        else:
            loss_al = torch.zeros(())
        loss = loss_ce + ramp * loss_al
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append({"ce": loss_ce.item(), "align": loss_al.item()})
        track("train/ce", hist[-1]["ce"], step)
        track("train/align", hist[-1]["align"], step)
    return model, hist


@torch.no_grad()
def accuracy(model: MetaTrans, x: np.ndarray, y: np.ndarray) -> float:
    """Share of clips whose arg-max class is the label."""
    model.eval()
    pred = model(torch.from_numpy(x)).argmax(dim=1).numpy()
    model.train()
    return float((pred == y).mean())
