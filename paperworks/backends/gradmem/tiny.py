"""A tiny Llama built from scratch (transformers ``LlamaConfig``) for the key–value experiments."""

from __future__ import annotations

from typing import Any

import torch


def tiny_llama(vocab_size: int, layers: int = 4, heads: int = 4, hidden: int = 128, seed: int = 0,
               max_positions: int = 1024) -> Any:
    """A randomly initialised ``LlamaForCausalLM`` (the authors' KV preset: 4 layers, 4 heads, d = 128) with
    eager attention, whose backward can itself be differentiated (MAML through the inner steps)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    opts: dict[str, Any] = {"attn_implementation": "eager"}
    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=4 * hidden,
                      num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
                      max_position_embeddings=max_positions, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                      tie_word_embeddings=True, **opts)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(cfg)
    model.config.use_cache = False
    return model
