"""Adversarial disentanglement of speaker and emotion: two encoders over acoustic features, gradient reversal
and a cross-covariance penalty, and the leakage probes that measure what is left.

**Reconstructed** (the paper: "an adversarial disentanglement module mitigates speaker-emotion leakage
through gradient reversal and cross-covariance regularization"). Both encoders read the same standardised
input (the 18 measured features and the 24-band spectral envelope, ``acoustics.ENCODER_NAMES``):

    z_s = E_s(x)   speaker embedding,  trained to identify the speaker  (head C_s)
    z_e = E_e(x)   emotion embedding,  trained to identify the emotion  (head C_e)
    gradient reversal (Ganin & Lempitsky 2015): adversary A_s reads GRL(z_e) to identify the speaker,
        A_e reads GRL(z_s) to identify the emotion; the reversed gradient pushes each encoder to make
        its adversary fail. The reversal strength ramps 0 -> lambda as 2 / (1 + exp(-10 p)) - 1.
    cross-covariance penalty: ||corr(z_s, z_e)||_F^2 over the batch (squared cross-correlations; the
        ``normalise=False`` form is the squared Frobenius norm of the cross-covariance).

Leakage (``leakage``) is measured after training by *fresh* probes (MLPs trained on frozen embeddings of
the training split, scored on the held-out split): speaker accuracy from z_e, emotion accuracy from z_s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from paperworks.backends.steertts._threads import one_thread


class _GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, lambd: float) -> torch.Tensor:
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        return -ctx.lambd * grad, None


def grad_reverse(x: torch.Tensor, lambd: float = 1.0) -> torch.Tensor:
    """Identity forward; multiplies the gradient by ``-lambd`` backward."""
    out: torch.Tensor = _GradReverse.apply(x, lambd)
    return out


def cross_covariance_penalty(a: torch.Tensor, b: torch.Tensor, normalise: bool = True,
                             eps: float = 1e-6) -> torch.Tensor:
    """Squared Frobenius norm of the batch cross-covariance of ``a`` (N, p) and ``b`` (N, q); with
    ``normalise`` each column is standardised first (squared cross-correlations, scale-free)."""
    a = a - a.mean(0, keepdim=True)
    b = b - b.mean(0, keepdim=True)
    if normalise:
        a = a / (a.std(0, keepdim=True) + eps)
        b = b / (b.std(0, keepdim=True) + eps)
    cov = a.T @ b / max(a.shape[0] - 1, 1)
    return (cov**2).sum()


def _mlp(n_in: int, hidden: int, n_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                         nn.Linear(hidden, n_out))


class Disentangler(nn.Module):
    """Speaker and emotion encoders with their heads and adversaries (module docstring)."""

    def __init__(self, n_in: int, n_speakers: int, n_emotions: int, dim: int = 16, hidden: int = 64) -> None:
        super().__init__()
        self.mean: torch.Tensor
        self.std: torch.Tensor
        self.register_buffer("mean", torch.zeros(n_in))
        self.register_buffer("std", torch.ones(n_in))
        self.speaker_encoder = _mlp(n_in, hidden, dim)
        self.emotion_encoder = _mlp(n_in, hidden, dim)
        self.speaker_head = nn.Linear(dim, n_speakers)
        self.emotion_head = nn.Linear(dim, n_emotions)
        self.speaker_adversary = _mlp(dim, hidden, n_speakers)
        self.emotion_adversary = _mlp(dim, hidden, n_emotions)

    def fit_scaler(self, x: torch.Tensor) -> None:
        """Set the input standardisation from training rows (NaN ignored)."""
        mean = torch.nanmean(x, 0)
        filled = torch.where(torch.isnan(x), mean, x)
        self.mean = torch.nan_to_num(mean)
        self.std = filled.std(0).nan_to_num(1.0).clamp_min(1e-3)

    def embed(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(speaker embedding, emotion embedding) of raw input rows (NaN filled with the training mean)."""
        mean, std = self.mean, self.std
        x = (torch.where(torch.isnan(x), mean, x) - mean) / std
        return self.speaker_encoder(x), self.emotion_encoder(x)

    def speaker_posteriors(self, row: np.ndarray) -> tuple[list[float], list[float]]:
        """For one input row: the speaker head's probabilities from the speaker embedding, and the speaker
        adversary's from the emotion embedding (what leaks of the speaker into the emotion code)."""
        with torch.no_grad():
            zs, ze = self.embed(torch.from_numpy(row)[None])
            p = torch.softmax(self.speaker_head(zs), -1)[0]
            adv = torch.softmax(self.speaker_adversary(ze), -1)[0]
        return p.tolist(), adv.tolist()

    def forward(self, x: torch.Tensor, lambd: float = 1.0) -> dict[str, torch.Tensor]:
        zs, ze = self.embed(x)
        return {"zs": zs, "ze": ze, "speaker": self.speaker_head(zs), "emotion": self.emotion_head(ze),
                "adv_speaker": self.speaker_adversary(grad_reverse(ze, lambd)),
                "adv_emotion": self.emotion_adversary(grad_reverse(zs, lambd))}


@dataclass
class DisentangleConfig:
    """One training run; ``grl`` and ``xcov`` switch the two leakage terms (the repro's ablation)."""

    grl: bool = True
    """Train the adversaries through gradient reversal."""
    xcov: bool = True
    """Add the cross-covariance penalty."""
    adv_weight: float = 1.0
    """Weight of the adversaries' losses."""
    grl_lambda: float = 1.0
    """Final reversal strength."""
    xcov_weight: float = 1.0
    """Weight of the cross-covariance penalty."""
    dim: int = 16
    """Embedding size of each encoder."""
    steps: int = 1500
    """Adam steps."""
    batch: int = 256
    """Rows per step."""
    lr: float = 2e-3
    """Learning rate."""
    seed: int = 0
    """Seed."""


@one_thread()
def train_disentangler(x: np.ndarray, speaker: np.ndarray, emotion: np.ndarray, n_speakers: int, n_emotions: int,
                       cfg: DisentangleConfig | None = None) -> tuple[Disentangler, dict[str, float]]:
    """Train on rows ``x`` (N, D) with integer labels; returns the model and its final losses."""
    cfg = cfg or DisentangleConfig()
    torch.manual_seed(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    xt = torch.from_numpy(x.astype(np.float32))
    ys, ye = torch.from_numpy(speaker.astype(np.int64)), torch.from_numpy(emotion.astype(np.int64))
    model = Disentangler(x.shape[1], n_speakers, n_emotions, cfg.dim)
    model.fit_scaler(xt)
    params = [p for n, p in model.named_parameters() if cfg.grl or "adversary" not in n]
    opt = torch.optim.Adam(params, lr=cfg.lr)
    ce = nn.functional.cross_entropy
    last: dict[str, float] = {}
    for step in range(cfg.steps):
        b = torch.randint(len(xt), (min(cfg.batch, len(xt)),), generator=gen)
        lambd = cfg.grl_lambda * (2.0 / (1.0 + math.exp(-10.0 * step / max(cfg.steps - 1, 1))) - 1.0)
        out = model(xt[b], lambd)
        loss = ce(out["speaker"], ys[b]) + ce(out["emotion"], ye[b])
        terms = {"task": float(loss.detach())}
        if cfg.grl:
            adv = ce(out["adv_speaker"], ys[b]) + ce(out["adv_emotion"], ye[b])
            loss = loss + cfg.adv_weight * adv
            terms["adversary"] = float(adv.detach())
        if cfg.xcov:
            pen = cross_covariance_penalty(out["zs"], out["ze"])
            loss = loss + cfg.xcov_weight * pen
            terms["xcov"] = float(pen.detach())
        opt.zero_grad()
        loss.backward()
        opt.step()
        last = terms
    model.eval()
    return model, last


@one_thread()
def probe_accuracy(z_train: np.ndarray, y_train: np.ndarray, z_test: np.ndarray, y_test: np.ndarray,
                   n_classes: int, steps: int = 600, seed: int = 0) -> float:
    """Held-out accuracy of a fresh MLP probe (64 hidden units) trained on ``z_train`` to predict ``y_train``."""
    torch.manual_seed(seed)
    a, b = torch.from_numpy(z_train.astype(np.float32)), torch.from_numpy(z_test.astype(np.float32))
    mean, std = a.mean(0), a.std(0).clamp_min(1e-6)
    a, b = (a - mean) / std, (b - mean) / std
    ya = torch.from_numpy(y_train.astype(np.int64))
    probe = nn.Sequential(nn.Linear(a.shape[1], 64), nn.SiLU(), nn.Linear(64, n_classes))
    opt = torch.optim.Adam(probe.parameters(), lr=3e-3, weight_decay=1e-4)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(probe(a), ya)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        pred = probe(b).argmax(1).numpy()
    return float(np.mean(pred == y_test))


def leakage(model: Disentangler, x_train: np.ndarray, spk_train: np.ndarray, emo_train: np.ndarray,
            x_test: np.ndarray, spk_test: np.ndarray, emo_test: np.ndarray, n_speakers: int, n_emotions: int,
            probe_steps: int = 600, seed: int = 0) -> dict[str, float]:
    """Probe accuracies on held-out rows: leakage (speaker from z_e, emotion from z_s) and utility (speaker
    from z_s, emotion from z_e), with chance levels (the majority class share of the test split)."""
    with torch.no_grad():
        zs_a, ze_a = (t.numpy() for t in model.embed(torch.from_numpy(x_train.astype(np.float32))))
        zs_b, ze_b = (t.numpy() for t in model.embed(torch.from_numpy(x_test.astype(np.float32))))

    def probe(za: np.ndarray, ya: np.ndarray, zb: np.ndarray, yb: np.ndarray, n: int) -> float:
        return probe_accuracy(za, ya, zb, yb, n, probe_steps, seed)

    return {
        "speaker_from_emotion": probe(ze_a, spk_train, ze_b, spk_test, n_speakers),
        "emotion_from_speaker": probe(zs_a, emo_train, zs_b, emo_test, n_emotions),
        "speaker_from_speaker": probe(zs_a, spk_train, zs_b, spk_test, n_speakers),
        "emotion_from_emotion": probe(ze_a, emo_train, ze_b, emo_test, n_emotions),
        "speaker_chance": float(np.bincount(spk_test).max() / len(spk_test)),
        "emotion_chance": float(np.bincount(emo_test).max() / len(emo_test)),
    }
