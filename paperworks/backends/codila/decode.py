"""Decoders over a batch whose rows share one generated span ``[start, end)``: the AR baseline, the DLM with
``k`` tokens per step (confidence-ordered or block-parallel unmasking), and CoDiLA (the DLM proposes a block
of ``k`` positions in one pass, the local AR head decodes it left to right from the DLM's soft embeddings).

Every decoder samples only through the ``torch.Generator`` it is given, so a seed fixes its output;
``temperature = 0`` is greedy. Each returns the decoded ids and the number of forward passes of the big
network (the AR model or the DLM) per sequence — the decoding steps.
"""

from __future__ import annotations

import torch

from paperworks.backends.codila.model import LocalARHead, TinyTransformer
from paperworks.core.errors import UserError


def _check(start: int, end: int, length: int, k: int = 1) -> None:
    if not 1 <= start < end <= length:
        raise UserError(f"bad span [{start}, {end}) for sequences of {length} tokens")
    if k < 1:
        raise UserError(f"tokens per step must be >= 1, got {k}")


def sample(logits: torch.Tensor, temperature: float, gen: torch.Generator, forbid: int | None = None) -> torch.Tensor:
    """One token per row of ``logits`` [..., V]: from ``softmax(logits / temperature)``, or the argmax at 0;
    token ``forbid`` (the ``MASK`` id) is never drawn."""
    if not 0 <= temperature < float("inf"):  # also rejects NaN, which made every probability NaN
        raise UserError(f"temperature must be finite and >= 0, got {temperature}")
    if logits.dim() < 1 or logits.shape[-1] == 0 or not logits.is_floating_point():
        raise UserError(f"logits must be a float tensor [..., V] with V >= 1, got {logits.dtype} {tuple(logits.shape)}")
    if forbid is not None and not 0 <= forbid < logits.shape[-1]:
        raise UserError(f"forbid must be a token id in [0, {logits.shape[-1]}), got {forbid}")
    if bool(torch.isnan(logits).any()):
        raise UserError("logits contain NaN")
    if forbid is not None:
        logits = logits.clone()
        logits[..., forbid] = float("-inf")
    if logits.numel() and not bool((logits > float("-inf")).any(-1).all()):
        raise UserError("every token of some row is ruled out (all logits -inf after forbidding the mask id)")
    if temperature == 0:
        return logits.argmax(-1)
    probs = torch.softmax(logits.float() / temperature, -1)
    flat = probs.reshape(-1, probs.shape[-1])
    return torch.multinomial(flat, 1, generator=gen).reshape(probs.shape[:-1])


@torch.no_grad()
def ar_decode(ar: TinyTransformer, ids: torch.Tensor, start: int, end: int, gen: torch.Generator,
              mask_id: int, temperature: float = 1.0) -> tuple[torch.Tensor, int]:
    """Left to right, one token per forward pass (the full prefix is re-read each pass; no KV cache)."""
    _check(start, end, ids.shape[1])
    x = ids.clone()
    for i in range(start, end):
        x[:, i] = sample(ar(x[:, :i])[:, -1], temperature, gen, mask_id)
    return x, end - start


@torch.no_grad()
def dlm_decode(dlm: TinyTransformer, ids: torch.Tensor, start: int, end: int, k: int, gen: torch.Generator,
               mask_id: int, temperature: float = 1.0, order: str = "confidence") -> tuple[torch.Tensor, int]:
    """Mask the span, then per forward pass commit ``k`` positions, each sampled independently from its
    marginal: ``order="confidence"`` picks the ``k`` masked positions whose sampled token is most probable
    (low-confidence remasking, as in LLaDA/Dream), ``order="blocks"`` the leftmost ``k`` still masked."""
    _check(start, end, ids.shape[1], k)
    if order not in ("confidence", "blocks"):
        raise UserError(f"order must be 'confidence' or 'blocks', got {order!r}")
    x = ids.clone()
    x[:, start:end] = mask_id
    steps = 0
    while True:
        masked = x == mask_id
        masked[:, :start] = False
        masked[:, end:] = False
        left = int(masked[0].sum())
        if left == 0:
            return x, steps
        logits = dlm(x)
        steps += 1
        cand = sample(logits, temperature, gen, mask_id)
        if order == "confidence":
            probs = torch.softmax(logits.float(), -1)
            score = probs.gather(-1, cand.unsqueeze(-1)).squeeze(-1)
        else:
            score = -torch.arange(x.shape[1], dtype=torch.float).expand_as(masked).clone()
        score = score.masked_fill(~masked, float("-inf"))
        pick = score.topk(min(k, left), dim=1).indices
        x.scatter_(1, pick, cand.gather(1, pick))


@torch.no_grad()
def codila_decode(dlm: TinyTransformer, head: LocalARHead, ids: torch.Tensor, start: int, end: int, k: int,
                  gen: torch.Generator, mask_id: int, temperature: float = 1.0) -> tuple[torch.Tensor, int]:
    """Blocks of ``k`` positions left to right: one DLM pass over the sequence (committed prefix, the rest
    masked) gives the marginals over the block; the head decodes the block token by token conditioned on
    their soft embeddings and on its own previous choices; the block is committed and the next one starts.
    Blocks see each other through the DLM (bidirectional attention over the whole sequence)."""
    _check(start, end, ids.shape[1], k)
    if k > head.cfg.block:
        raise UserError(f"block of {k} exceeds the head's {head.cfg.block}")
    x = ids.clone()
    x[:, start:end] = mask_id
    steps = 0
    for s in range(start, end, k):
        e = min(s + k, end)
        block_logits = dlm(x)[:, s:e]
        steps += 1
        prev = x[:, s - 1:s].clone()
        for j in range(e - s):
            tok = sample(head(block_logits[:, :j + 1], prev)[:, j], temperature, gen, mask_id)
            x[:, s + j] = tok
            prev = torch.cat([prev, tok.unsqueeze(1)], 1)
    return x, steps
