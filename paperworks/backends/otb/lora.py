"""A small hand-written LoRA adapter for ``nn.Linear`` layers (``peft`` is not a dependency).

``W x + (alpha / r)·B A x`` with ``A`` Kaiming-initialised and ``B`` zero, so an adapted model starts
identical to its base. :func:`lora_disabled` switches the adapters off, which gives the reference policy
for a KL penalty without a second copy of the weights.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch
from torch import Tensor, nn


class LoRALinear(nn.Module):
    """``base`` (frozen) plus a trainable low-rank update."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        self.rank = rank
        self.scaling = alpha / rank
        self.enabled = True
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features, dtype=base.weight.dtype,
                                               device=base.weight.device))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank, dtype=base.weight.dtype,
                                               device=base.weight.device))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))

    def forward(self, x: Tensor) -> Tensor:
        """Base output plus the scaled low-rank update (when enabled)."""
        out = self.base(x)
        if self.enabled:
            out = out + (x @ self.lora_a.t() @ self.lora_b.t()) * self.scaling
        return out


def apply_lora(model: nn.Module, rank: int = 8, alpha: float = 16.0,
               targets: Sequence[str] = ("q_proj", "v_proj")) -> list[nn.Parameter]:
    """Wrap every ``nn.Linear`` whose attribute name is in ``targets`` with :class:`LoRALinear`; freeze all
    other parameters. Returns the trainable parameters. Raises ``ValueError`` when nothing matched."""
    for p in model.parameters():
        p.requires_grad_(False)
    wrapped: list[LoRALinear] = []
    for _, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if child_name in targets and isinstance(child, nn.Linear):
                lora = LoRALinear(child, rank, alpha)
                setattr(module, child_name, lora)
                wrapped.append(lora)
    if not wrapped:
        raise ValueError(f"apply_lora: no nn.Linear named one of {list(targets)} in {type(model).__name__}")
    return [p for m in wrapped for p in (m.lora_a, m.lora_b)]


@contextmanager
def lora_disabled(model: nn.Module) -> Iterator[None]:
    """Run ``model`` as its base model (every :class:`LoRALinear` off) inside the block."""
    layers = [m for m in model.modules() if isinstance(m, LoRALinear)]
    for m in layers:
        m.enabled = False
    try:
        yield
    finally:
        for m in layers:
            m.enabled = True
