"""Memory savers of the LoRA policy updates (:mod:`paperworks.backends.otb.agent_rl`): activation
checkpointing of the decoder layers that keeps the shared-prefix KV cache, and frozen linear weights stored
in bf16 under bf16 autocast. Both give the same values and gradients as the plain pass (tested)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn

__all__ = ["_layer_checkpointing", "_store_frozen_linears_bf16", "chunked_token_logprobs"]


def chunked_token_logprobs(head: Any, rows: torch.Tensor, targets: torch.Tensor, temperature: float = 1.0,
                           chunk: int = 0) -> torch.Tensor:
    """``log_softmax(head(rows) / temperature)`` at ``targets``, one value per row.

    The vocabulary projection is the largest activation of a long completion (rows x vocabulary floats, kept
    for its backward pass together with its exponentials). With ``chunk > 0`` the rows are taken ``chunk`` at
    a time: without gradients, plainly; with gradients, each chunk under non-reentrant checkpointing, so only
    one chunk's logits are alive at once and they are recomputed in the backward pass. The values and
    gradients are those of the whole pass (tested). The logits are computed under the caller's autocast and
    the softmax in float32 outside it."""

    def part(r: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        logits = head(r).float()
        with torch.autocast("cpu", enabled=False):
            if temperature and temperature != 1.0:
                logits = logits / temperature
            return logits.gather(-1, t.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)

    if chunk <= 0 or rows.shape[0] <= chunk:
        return part(rows, targets)
    if not torch.is_grad_enabled():
        return torch.cat([part(rows[i: i + chunk], targets[i: i + chunk]) for i in range(0, rows.shape[0], chunk)])
    from torch.utils.checkpoint import checkpoint

    return torch.cat([checkpoint(part, rows[i: i + chunk], targets[i: i + chunk], use_reentrant=False)
                      for i in range(0, rows.shape[0], chunk)])


@contextmanager
def _layer_checkpointing(body: Any, on: bool) -> Iterator[None]:
    """Within the block, each decoder layer of ``body`` runs under ``torch.utils.checkpoint`` (non-reentrant):
    its activations are dropped after the forward pass and recomputed in the backward pass.

    transformers' own gradient checkpointing drops the KV cache, which the shared-prefix pass needs. Here the
    cache stays: a layer appends its new keys and values to the cache in place, so each run of the layer
    (the forward pass and its recomputation) first puts back the cache entry it found, and the recomputation
    sees exactly the inputs the forward pass saw. The layer's forward is replaced on the instance only, so
    module names (and the adapter's keys) do not change."""
    if not on:
        yield
        return
    from torch.utils.checkpoint import checkpoint

    layers = list(getattr(body, "layers", []))
    for layer in layers:
        def wrapped(*args: Any, _inner: Any = layer.forward, _idx: int = layer.self_attn.layer_idx,
                    **kwargs: Any) -> Any:
            cache = kwargs.get("cache")
            entry: Any = cache.layers[_idx] if cache is not None and _idx < len(getattr(cache, "layers", [])) else None
            found = (entry.keys, entry.values) if entry is not None and entry.is_initialized else None

            def run(*a: Any, **k: Any) -> Any:
                if found is not None:
                    entry.keys, entry.values = found
                return _inner(*a, **k)

            return checkpoint(run, *args, use_reentrant=False, **kwargs)

        layer.forward = wrapped
    try:
        yield
    finally:
        for layer in layers:
            layer.__dict__.pop("forward", None)


def _store_frozen_linears_bf16(model: nn.Module) -> None:
    """Keep the frozen weights of the decoder's linear layers in bf16 (the LoRA factors, embeddings, norms and
    LM head stay fp32). Under bf16 autocast each of those weights is cast to bf16 at every call anyway, and
    the cast copy is saved for the backward pass; stored in bf16 they need no copy, which halves their memory
    and saves about 1 GB of activations per micro-batch on SmolLM2-135M, with the same values in every matmul
    (the residual stream stays fp32, as under autocast)."""
    body: Any = getattr(model, "model", None)
    layers = getattr(body, "layers", None)
    if layers is None:
        return
    for module in layers.modules():
        if isinstance(module, nn.Linear) and not module.weight.requires_grad and module.weight.dtype == torch.float32:
            module.weight.data = module.weight.data.to(torch.bfloat16)
            if module.bias is not None and not module.bias.requires_grad:
                module.bias.data = module.bias.data.to(torch.bfloat16)
