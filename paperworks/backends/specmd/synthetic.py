"""A synthetic trace generator shaped like OLMoE-1B-7B (16 layers, 64 experts, top-8 routing).

Each layer has its own expert popularity (Zipf weights with exponent ``skew``, randomly permuted per
layer). At every token and layer, each of the previous token's experts at that layer is reused with
probability ``reuse``; the remaining slots are drawn without replacement from the popularity.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from paperworks.backends.specmd.trace import Trace


@dataclass
class SyntheticConfig:
    """Settings of :func:`synthetic_trace` (defaults: OLMoE-1B-7B's shape)."""

    n_layers: int = 16
    """MoE layers (OLMoE: 16)."""
    n_experts: int = 64
    """Experts per layer (OLMoE: 64)."""
    top_k: int = 8
    """Experts activated per token and layer (OLMoE: 8)."""
    n_tokens: int = 1024
    """Tokens in the trace (prompt and generated)."""
    skew: float = 0.8
    """Zipf exponent of per-layer expert popularity (0 = uniform)."""
    reuse: float = 0.5
    """Probability that each of the previous token's experts at a layer is activated again."""
    seed: int = 0
    """Random seed."""


def synthetic_trace(cfg: SyntheticConfig | None = None) -> Trace:
    """Generate an OLMoE-shaped trace (rows token-major, layers 0..L-1 per token)."""
    cfg = cfg or SyntheticConfig()
    if not 0 < cfg.top_k <= cfg.n_experts:
        raise ValueError(f"SyntheticConfig.top_k must lie in [1, n_experts={cfg.n_experts}]; got {cfg.top_k}")
    rng = np.random.default_rng(cfg.seed)
    L, E, k = cfg.n_layers, cfg.n_experts, cfg.top_k
    base = 1.0 / np.arange(1, E + 1) ** cfg.skew
    logp = np.log(np.stack([rng.permutation(base) for _ in range(L)]) / base.sum())  # [L, E]
    experts = np.empty((cfg.n_tokens, L, k), np.int16)
    prev: np.ndarray | None = None
    rows = np.arange(L)[:, None]
    for t in range(cfg.n_tokens):
        score = logp + rng.gumbel(size=(L, E))  # Gumbel-top-k: sampling without replacement
        if prev is not None:
            keep = rng.random((L, k)) < cfg.reuse
            bonus = np.zeros((L, E))
            bonus[rows, prev] = np.where(keep, np.inf, 0.0)
            score = score + bonus
        cur = np.argpartition(-score, k - 1, axis=1)[:, :k]
        experts[t] = np.sort(cur, axis=1)
        prev = cur
    token = np.repeat(np.arange(cfg.n_tokens, dtype=np.int32), L)
    layer = np.tile(np.arange(L, dtype=np.int16), cfg.n_tokens)
    return Trace(token=token, layer=layer, experts=experts.reshape(-1, k), n_layers=L, n_experts=E,
                 meta={"source": "synthetic-olmoe", **asdict(cfg)})


def layer_cyclic_trace(n_layers: int = 4, n_experts: int = 4, top_k: int = 1, n_tokens: int = 20,
                       seed: int = 0) -> Trace:
    """Each token uses the same ``top_k`` experts at every layer, cycling through layers: the pattern
    where LRU evicts exactly what comes next."""
    rng = np.random.default_rng(seed)
    chosen = np.stack([np.sort(rng.choice(n_experts, top_k, replace=False)) for _ in range(n_layers)])
    experts = np.tile(chosen, (n_tokens, 1))
    return Trace(token=np.repeat(np.arange(n_tokens), n_layers), layer=np.tile(np.arange(n_layers), n_tokens),
                 experts=experts, n_layers=n_layers, n_experts=n_experts, meta={"source": "layer-cyclic"})
