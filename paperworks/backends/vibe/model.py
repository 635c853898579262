"""The VIBE network (reconstructed from the paper's summary; its rules are not readable here).

- Video: each person's joint velocities → a temporal convolution → a person token; one attention layer between
  the people (each attends to the others), whose weights are re-weighted by ``PLV_ij``, the pairwise
  synchrony of their raw motion (:mod:`.sync`), without renormalising — so a person's message is as strong as
  the group's synchrony with them (the synchrony modulation; without it the weights sum to 1); the scene's
  background vector enters the group token through its own linear map (so the shortcut is available to the
  model, as in real frames).
- Audio (per-frame features) and text (token ids) each get their own encoder.
- Each modality's encoding → a Gaussian latent (mean, log-variance; reparameterised when training), fused by
  a linear map.
- The fused latent is projected into the text space and scored by scaled cosine against class prototypes that
  are the text embeddings of each class's cue word (a learned linear map on top).
- Background-invariance constraint (:func:`background_penalty`): within each class, the squared cross-
  covariance between the fused latent mean and the background vector, driven to zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from paperworks.backends.vibe.data import FILLERS, VOCAB
from paperworks.backends.vibe.sync import group_synchrony


@dataclass
class VIBEConfig:
    """Sizes and switches of the network."""

    joints: int = 5
    """Joints per skeleton."""
    audio_dim: int = 3
    """Audio features per frame."""
    background_dim: int = 8
    """Size of the background vector."""
    classes: int = 4
    """Emotions."""
    dim: int = 32
    """Token and latent width."""
    sync_modulation: bool = True
    """Multiply the attention weights between people by their PLV (False: plain attention). The person tokens
    are pooled over time, so the modulation is the model's only route to relative phase."""
    temperature: float = 0.1
    """Cosine-similarity temperature of the prototype classifier."""


class VIBE(nn.Module):
    """``forward(skeletons, audio, text, background)`` → (logits, fused latent mean, KL)."""

    def __init__(self, cfg: VIBEConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d = cfg.dim
        self.person = nn.Sequential(nn.Conv1d(2 * cfg.joints, d, 5, padding=2), nn.ReLU(),
                                    nn.Conv1d(d, d, 5, padding=2), nn.ReLU())
        self.person_out = nn.Linear(2 * d, d)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.mix = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU())
        self.pool = nn.Linear(2 * d, d)
        self.scene = nn.Linear(cfg.background_dim, d)
        self.audio = nn.Sequential(nn.Conv1d(cfg.audio_dim, d, 5, padding=2), nn.ReLU())
        self.audio_out = nn.Linear(2 * d, d)
        self.words = nn.Embedding(VOCAB, d)
        self.heads = nn.ModuleDict({m: nn.Linear(d, 2 * d) for m in ("video", "audio", "text")})
        self.fuse = nn.Linear(3 * d, d)
        self.to_text = nn.Linear(d, d)

    def attention(self, tokens: torch.Tensor, plv: torch.Tensor) -> torch.Tensor:
        """(batch, people, people) attention weights of each person over the others (softmax, self masked),
        multiplied by the pairwise PLV if synchrony modulation is on."""
        logits = self.q(tokens) @ self.k(tokens).transpose(1, 2) / math.sqrt(self.cfg.dim)
        eye = torch.eye(tokens.shape[1], dtype=torch.bool, device=tokens.device)
        att = logits.masked_fill(eye, float("-inf")).softmax(dim=-1)
        return att * plv if self.cfg.sync_modulation else att

    def video_encoding(self, skeletons: torch.Tensor, background: torch.Tensor) -> torch.Tensor:
        """(batch, dim) group token from (batch, people, frames, joints, 2) skeletons and the background."""
        b, p, t, j, _ = skeletons.shape
        vel = skeletons.diff(dim=2).reshape(b * p, t - 1, 2 * j).transpose(1, 2)
        h = self.person(vel)
        tok = self.person_out(torch.cat([h.mean(-1), h.amax(-1)], dim=-1)).reshape(b, p, -1)
        with torch.no_grad():
            plv = group_synchrony(skeletons)
        msg = self.attention(tok, plv) @ self.v(tok)
        mixed = self.mix(torch.cat([tok, msg], dim=-1))
        return self.pool(torch.cat([mixed.mean(1), mixed.amax(1)], dim=-1)) + self.scene(background)

    def encodings(self, skeletons: torch.Tensor, audio: torch.Tensor, text: torch.Tensor,
                  background: torch.Tensor) -> dict[str, torch.Tensor]:
        """Each modality's (batch, dim) encoding."""
        a = self.audio(audio.transpose(1, 2))
        return {"video": self.video_encoding(skeletons, background),
                "audio": self.audio_out(torch.cat([a.mean(-1), a.amax(-1)], dim=-1)),
                "text": self.words(text).mean(1)}

    def prototypes(self) -> torch.Tensor:
        """(classes, dim) class prototypes: the text embeddings of the cue words."""
        idx = torch.arange(FILLERS, FILLERS + self.cfg.classes)
        return self.words(idx)

    def forward(self, skeletons: torch.Tensor, audio: torch.Tensor, text: torch.Tensor,
                background: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Logits (batch, classes), the fused latent mean (batch, dim) and the mean KL to N(0, I)."""
        zs, mus, kl = [], [], torch.zeros(())
        for name, e in self.encodings(skeletons, audio, text, background).items():
            mu, logvar = self.heads[name](e).chunk(2, dim=-1)
            logvar = logvar.clamp(-6, 4)
            kl = kl + 0.5 * (mu.pow(2) + logvar.exp() - 1 - logvar).sum(-1).mean()
            zs.append(mu + torch.randn_like(mu) * (0.5 * logvar).exp() if self.training else mu)
            mus.append(mu)
        z = self.fuse(torch.cat(zs, dim=-1))
        mu_fused = self.fuse(torch.cat(mus, dim=-1))
        proj = nn.functional.normalize(self.to_text(z), dim=-1)
        protos = nn.functional.normalize(self.prototypes(), dim=-1)
        return proj @ protos.T / self.cfg.temperature, mu_fused, kl


def background_penalty(z: torch.Tensor, background: torch.Tensor, y: torch.Tensor, classes: int) -> torch.Tensor:
    """The background-invariance constraint: ``||Cov_w(z, b)||_F^2 / V_between(z)`` — the pooled within-class
    cross-covariance between the latent ``z`` and the background ``b`` (each centred on its class mean, one
    covariance over the batch; ``b`` standardised per feature), relative to the between-class variance of
    ``z`` (the mean squared distance of each sample's class mean from the batch mean). The ratio does not
    change when ``z`` is scaled, so it can only be met by dropping the background or separating the classes;
    it is zero when ``z`` is linearly unrelated to the background given the emotion.

    Trial runs of other forms stalled training: per-class plug-in estimates with per-feature standardisation
    of ``z`` (they penalise sampling noise of size dim_z * dim_b / n), and normalising by the RMS of ``z``
    (met by inflating class-irrelevant directions, which the cosine classifier then follows)."""
    onehot = torch.nn.functional.one_hot(y, classes).to(z.dtype)
    counts = onehot.sum(0).clamp_min(1.0)
    bn = (background - background.mean(0)) / (background.std(0) + 1e-5)
    zmeans = onehot @ ((onehot.T @ z) / counts[:, None])
    zw = z - zmeans
    bw = bn - onehot @ ((onehot.T @ bn) / counts[:, None])
    cov = zw.T @ bw / len(z)
    between = (zmeans - z.mean(0)).pow(2).sum(1).mean()
    return cov.pow(2).sum() / (between + 1e-6)
