"""READ: run a causal LM on ``[memory; prompt]`` through ``inputs_embeds`` — score a target or generate.

Shared by every memory writer (:class:`~.memory.GradMem`, :class:`~.forward.ForwardWriter`). ``memory``
may be ``None`` (the plain prompt, for ceilings with the context in the prompt and floors without it).
Prompts within a batch have one length (no padding); targets may be right-padded with a mask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn


@dataclass
class Score:
    """Teacher-forced scores of targets after ``[memory; prompt]``."""

    loss: Tensor
    """``(B,)`` mean cross-entropy over each target's real tokens."""
    exact: Tensor
    """``(B,)`` bool: every target token is the argmax (what greedy decoding would produce)."""
    predicted: Tensor
    """``(B, T)`` the argmax ids at the target positions."""


def full_precision(x: Tensor) -> Tensor:
    """``x`` in float32 when it is in a half type (float64 stays float64)."""
    return x if x.dtype in (torch.float32, torch.float64) else x.float()


def backbone(model: Any) -> Any:
    """The transformer under a causal LM head (``model.model`` for Llama): its output's
    ``last_hidden_state`` is what the LM head projects to the vocabulary."""
    prefix = getattr(model, "base_model_prefix", "model")
    inner = getattr(model, prefix, None)
    if isinstance(inner, nn.Module):
        return inner
    raise AttributeError(f"cannot find the backbone of {type(model).__name__} (no .{prefix})")


def with_memory(model: Any, memory: Tensor | None, embeds: Tensor,
                prefix_ids: Tensor | None = None) -> tuple[Tensor, int]:
    """``[prefix; memory; embeds]`` as input embeddings, and how many positions precede ``embeds``.

    ``prefix_ids (P,)`` or ``(B, P)``: fixed tokens before the memory (e.g. a chat template's opening)."""
    parts = [embeds]
    if memory is not None:
        parts.insert(0, memory.to(embeds.dtype))
    if prefix_ids is not None:
        pre = prefix_ids if prefix_ids.ndim == 2 else prefix_ids.unsqueeze(0)
        parts.insert(0, model.get_input_embeddings()(pre).expand(embeds.shape[0], -1, -1))
    x = torch.cat(parts, dim=1)
    return x, x.shape[1] - embeds.shape[1]


class MemoryReader:
    """Reading methods for a module with a ``model`` (a transformers causal LM)."""

    model: Any
    """A transformers causal LM."""

    def score(self, memory: Tensor | None, prompt_ids: Tensor, target_ids: Tensor,
              target_mask: Tensor | None = None, prefix_ids: Tensor | None = None) -> Score:
        """Score ``target_ids (B, T)`` after ``[prefix; memory; prompt_ids (B, P)]`` in one forward pass."""
        if target_mask is None:
            target_mask = torch.ones_like(target_ids)
        ids = torch.cat([prompt_ids, target_ids[:, :-1]], dim=1)
        emb = self.model.get_input_embeddings()(ids)
        x, m = with_memory(self.model, memory, emb, prefix_ids)
        pad = torch.cat([torch.ones_like(prompt_ids), target_mask[:, :-1]], dim=1)
        attn = torch.cat([torch.ones(x.shape[0], m, dtype=pad.dtype, device=pad.device), pad], dim=1)
        start = m + prompt_ids.shape[1] - 1
        logits = full_precision(self.model(inputs_embeds=x, attention_mask=attn).logits[:, start:])
        tok = nn.functional.cross_entropy(logits.transpose(1, 2), target_ids, reduction="none")
        maskf = target_mask.to(tok.dtype)
        pred = logits.argmax(-1)
        hit = (pred == target_ids) | (target_mask == 0)
        return Score(loss=(tok * maskf).sum(1) / maskf.sum(1).clamp(min=1.0), exact=hit.all(1), predicted=pred)

    @torch.no_grad()
    def generate(self, memory: Tensor | None, prompt_ids: Tensor, max_new_tokens: int,
                 eos_token_id: int | None = None, prefix_ids: Tensor | None = None) -> list[list[int]]:
        """Greedy continuation of ``[prefix; memory; prompt_ids (B, P)]``: up to ``max_new_tokens`` ids per
        row, each row cut after its first ``eos_token_id``."""
        embed = self.model.get_input_embeddings()
        x, _ = with_memory(self.model, memory, embed(prompt_ids), prefix_ids)
        out = self.model(inputs_embeds=x, use_cache=True)
        past = out.get("cache")
        rows: list[list[int]] = [[] for _ in range(prompt_ids.shape[0])]
        done = [False] * len(rows)
        for _ in range(max_new_tokens):
            nxt = out.logits[:, -1].argmax(-1)
            for i, t in enumerate(nxt.tolist()):
                if not done[i]:
                    rows[i].append(t)
                    done[i] = eos_token_id is not None and t == eos_token_id
            if all(done):
                break
            out = self.model(inputs_embeds=embed(nxt.unsqueeze(1)), cache=past, use_cache=True)
            past = out.get("cache")
        return rows
