"""The three networks: a masked-diffusion LM (bidirectional transformer, absorbing-state noise), the AR
baseline (the same transformer, causal), and CoDiLA's local AR head over the DLM's soft embeddings.

The head's parameterisation is reconstructed from the paper's description (its code is not public): for a
block of positions ``s … s+B-1`` the head reads, at block offset ``j``, the soft embedding
``Σ_v p_{s+j}(v)·E[v]`` of the DLM's marginal, the embedding of the token before it (``x_{s+j-1}``: the
committed token left of the block for ``j = 0``, the head's own previous choice after that) and an offset
embedding; a small causal transformer runs over the block; its logits are *added* to the DLM's
log-marginals (a product of experts), so an untrained head decodes like the DLM and training teaches the
corrections that make the block coherent.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from paperworks.core.errors import UserError


@dataclass
class NetConfig:
    """Size of a transformer."""

    vocab: int
    """Token ids (including ``PAD`` and ``MASK``)."""
    seq_len: int
    """Maximum positions."""
    dim: int = 96
    """Width."""
    layers: int = 3
    """Transformer layers."""
    heads: int = 4
    """Attention heads."""
    ff: int = 256
    """Feed-forward width."""
    causal: bool = False
    """Causal attention (the AR baseline, the head) instead of bidirectional (the DLM)."""


class TinyTransformer(nn.Module):
    """Token + position embeddings, pre-norm transformer layers, a linear read-out."""

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab, cfg.dim)
        self.pos = nn.Embedding(cfg.seq_len, cfg.dim)
        layer = nn.TransformerEncoderLayer(cfg.dim, cfg.heads, cfg.ff, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.body = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(cfg.dim)
        self.out = nn.Linear(cfg.dim, cfg.vocab)

    def embed(self, h: torch.Tensor) -> torch.Tensor:
        """Add position embeddings to ``h`` [B, L, D] and run the layers; returns logits [B, L, V]."""
        n = h.shape[1]
        h = h + self.pos(torch.arange(n, device=h.device))
        mask = nn.Transformer.generate_square_subsequent_mask(n, device=h.device) if self.cfg.causal else None
        return self.out(self.norm(self.body(h, mask=mask, is_causal=self.cfg.causal)))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Logits [B, L, V] for token ids [B, L]."""
        return self.embed(self.tok(ids))


def n_params(model: nn.Module) -> int:
    """Trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def diffusion_loss(dlm: TinyTransformer, ids: torch.Tensor, gen: torch.Tensor, mask_id: int,
                   gen_rng: torch.Generator, causal_share: float = 0.25) -> torch.Tensor:
    """Absorbing-state masked-diffusion loss on a batch: each sequence draws a noise level ``t ~ U(0, 1]``
    and each generated position (``gen`` [B, L] bool) is replaced by ``MASK`` with probability ``t``; the loss
    is the cross-entropy on the masked positions, averaged over them (the MDLM/LLaDA objective without the
    ``1/t`` weight, which was noisier at this size). A share ``causal_share`` of the sequences instead keep a
    random prefix of their region clean and mask everything after it — the state block-wise (and CoDiLA)
    decoding meets."""
    b, n = ids.shape
    t = torch.rand(b, 1, generator=gen_rng).clamp_min(1e-3)
    noise = torch.rand(b, n, generator=gen_rng) < t
    pos = torch.arange(n).expand(b, n)
    first = gen.float().argmax(1, keepdim=True)
    width = gen.sum(1, keepdim=True)
    cut = first + (torch.rand(b, 1, generator=gen_rng) * width).long()
    blockwise = torch.rand(b, 1, generator=gen_rng) < causal_share
    masked = torch.where(blockwise, pos >= cut, noise) & gen
    noisy = torch.where(masked, torch.full_like(ids, mask_id), ids)
    logits = dlm(noisy)
    if not masked.any():
        return logits.sum() * 0.0
    return nn.functional.cross_entropy(logits[masked], ids[masked])


def ar_loss(ar: TinyTransformer, ids: torch.Tensor, gen: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy on the generated positions (position ``i`` predicted from ``< i``)."""
    logits = ar(ids)[:, :-1]
    target, keep = ids[:, 1:], gen[:, 1:]
    return nn.functional.cross_entropy(logits[keep], target[keep])


@dataclass
class HeadConfig:
    """Size of the local AR head."""

    vocab: int
    """Token ids."""
    block: int = 8
    """Longest block it decodes (offsets ``0 … block-1``)."""
    dim: int = 64
    """Width."""
    layers: int = 2
    """Causal transformer layers."""
    heads: int = 4
    """Attention heads."""
    ff: int = 128
    """Feed-forward width."""


class LocalARHead(nn.Module):
    """CoDiLA's head: decodes a block left to right from the DLM's marginals over it (see module docstring)."""

    def __init__(self, cfg: HeadConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.soft = nn.Embedding(cfg.vocab, cfg.dim)
        self.prev = nn.Embedding(cfg.vocab, cfg.dim)
        self.net = TinyTransformer(NetConfig(cfg.vocab, cfg.block, cfg.dim, cfg.layers, cfg.heads, cfg.ff,
                                             causal=True))
        nn.init.zeros_(self.net.out.weight)  # start as the DLM (product of experts with a flat head)
        nn.init.zeros_(self.net.out.bias)

    def forward(self, dlm_logits: torch.Tensor, prev: torch.Tensor) -> torch.Tensor:
        """Logits [B, b, V] for a block: ``dlm_logits`` [B, b, V] the DLM's logits over the block, ``prev``
        [B, b] the token before each offset (teacher-forced in training, the head's choices in decoding)."""
        if dlm_logits.shape[1] > self.cfg.block:
            raise UserError(f"block of {dlm_logits.shape[1]} exceeds the head's {self.cfg.block}")
        logp = torch.log_softmax(dlm_logits, -1)
        soft = logp.exp() @ self.soft.weight  # Σ_v p(v)·E[v]
        return logp + self.net.embed(soft + self.prev(prev))
