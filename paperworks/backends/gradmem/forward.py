"""The forward-only baseline: an RMT-style memory writer with the same memory size as GradMem.

WRITE: the current memory ``M`` (first the learned initial memory ``M0``, ``m × d``) is put both before and
after the context, ``[M; context; M]``; after one forward pass the final hidden states of the ``m`` slots
after the context become the new memory ``(B, m, d)``. ``passes > 1`` repeats the write with the new memory
(the forward analogue of more gradient steps). With ``recon_loss`` the write also returns the context's
reconstruction loss given ``[new M; context]`` (the authors' optional auxiliary loss for their RMT).
READ is the same ``[M; query]`` as GradMem's. Its only parameters besides the model's are ``M0`` — the
same count as GradMem's. Slots sit right after each context's real tokens, so right padding only ever
follows them (with a causal model the padding then cannot reach the memory).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from paperworks.backends.gradmem.memory import WriteResult, reconstruction_loss
from paperworks.backends.gradmem.read import MemoryReader
from paperworks.backends.gradmem.read import backbone as _backbone


@dataclass
class ForwardWriterConfig:
    """Settings of the forward write."""

    n_mem: int = 8
    """``m``: memory vectors (match GradMem's for a same-size comparison)."""
    passes: int = 1
    """Forward writes per context (each reads the previous memory as its prefix)."""
    init_std: float = 0.02
    """Standard deviation of a freshly drawn ``M0``."""
    recon_loss: bool = False
    """Also compute the reconstruction loss of the context from the written memory (one more forward pass),
    returned as ``WriteResult.last_loss`` for an auxiliary training loss."""


class ForwardWriter(MemoryReader, nn.Module):
    """RMT-style writer: the memory slots' output states after ``[M; context; M]`` are the memory."""

    def __init__(self, model: Any, cfg: ForwardWriterConfig | None = None, init: Tensor | None = None) -> None:
        super().__init__()
        self.model: Any = model
        self.cfg = cfg or ForwardWriterConfig()
        w = model.get_input_embeddings().weight
        d = w.shape[1]
        if init is None:
            init = torch.randn(self.cfg.n_mem, d) * self.cfg.init_std
        if tuple(init.shape) != (self.cfg.n_mem, d):
            raise ValueError(f"initial memory must be ({self.cfg.n_mem}, {d}), got {tuple(init.shape)}")
        self.mem0 = nn.Parameter(init.detach().clone().to(device=w.device, dtype=w.dtype))

    def write(self, ctx_ids: Tensor, ctx_mask: Tensor | None = None, *, passes: int | None = None,
              create_graph: bool = False, first_order_graph: bool = False, memory: Tensor | None = None,
              **_: object) -> WriteResult:
        """Write right-padded contexts ``ctx_ids (B, S)``; differentiable when ``create_graph`` (training),
        else computed without a graph. ``memory`` starts from this ``(B, m, d)`` instead of ``M0``."""
        if ctx_mask is None:
            ctx_mask = torch.ones_like(ctx_ids)
        b, s = ctx_ids.shape
        m = self.cfg.n_mem
        lengths = ctx_mask.sum(1)
        # Put each sample's slots right after its real tokens: [M; ctx_real; slots; pads].
        slot_pos = m + lengths.unsqueeze(1) + torch.arange(m, device=ctx_ids.device).unsqueeze(0)  # (B, m)
        keep = create_graph or first_order_graph
        with torch.set_grad_enabled(keep):
            mem = memory if memory is not None else self.mem0.unsqueeze(0).expand(b, -1, -1)
            emb = self.model.get_input_embeddings()(ctx_ids)
            total = m + s + m
            idx = torch.arange(total, device=ctx_ids.device).unsqueeze(0)
            real = (idx < m + lengths.unsqueeze(1)) | ((idx >= slot_pos[:, :1]) & (idx < slot_pos[:, -1:] + 1))
            for _pass in range(self.cfg.passes if passes is None else passes):
                x = torch.cat([mem.to(emb.dtype), emb, torch.zeros_like(mem, dtype=emb.dtype)], dim=1)
                # scatter the slot vectors (the current memory) to their per-sample positions
                x = x.scatter(1, slot_pos.unsqueeze(-1).expand(-1, -1, x.shape[-1]), mem.to(emb.dtype))
                # the rows between the real context and the slots were the zero block: pads, masked out
                h = _backbone(self.model)(inputs_embeds=x, attention_mask=real.long()).last_hidden_state
                mem = h.gather(1, slot_pos.unsqueeze(-1).expand(-1, -1, h.shape[-1]))
            last = reconstruction_loss(self.model, mem, emb, ctx_ids, ctx_mask) if self.cfg.recon_loss else None
        return WriteResult(memory=mem if keep else mem.detach(), last_loss=last)

    def memory_parameters(self) -> int:
        """Trainable numbers that hold memory state: ``m × d`` (the initial memory)."""
        return self.mem0.numel()
