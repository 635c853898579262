"""Real traces from a dense model: "MoEfy" SmolLM2-135M and record which expert groups each token uses.

Each MLP's intermediate neurons (1536 in SmolLM2-135M) are clustered into ``n_experts`` equal-size
groups by balanced k-means on their normalised ``gate_proj`` weight rows (numpy only). Running the
model on real text, a group's score at a token is the summed magnitude of its neurons' activations
(the input of ``down_proj``); the ``top_k`` highest groups are the token's "experts" at that layer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.specmd.trace import Trace

DEFAULT_TEXTS = ("/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0")
"""Real text available on every Debian machine (license texts): the default corpus."""


@dataclass
class MoefyConfig:
    """Settings of :func:`moefy_trace`."""

    n_experts: int = 64
    """Expert groups per MLP."""
    top_k: int = 8
    """Groups activated per token and layer."""
    n_tokens: int = 1024
    """Tokens of text to run (taken from the start of the corpus)."""
    kmeans_iters: int = 15
    """Iterations of k-means before the balanced assignment."""
    window: int = 512
    """Tokens per forward pass (the text is cut into independent windows)."""
    seed: int = 0
    """Seed of the k-means initialisation."""


def balanced_kmeans(x: np.ndarray, n_groups: int, iters: int = 15, seed: int = 0) -> np.ndarray:
    """Group labels [n] for the rows of ``x`` [n, d]: k-means centroids, then a greedy assignment of
    (row, centroid) pairs by distance that gives every group exactly ``n // n_groups`` rows
    (the first ``n % n_groups`` groups get one more)."""
    n = len(x)
    rng = np.random.default_rng(seed)
    c = x[rng.choice(n, n_groups, replace=False)].copy()
    for _ in range(iters):
        d = (x * x).sum(1)[:, None] - 2 * x @ c.T + (c * c).sum(1)[None]
        lab = d.argmin(1)
        for g in range(n_groups):
            m = lab == g
            c[g] = x[m].mean(0) if m.any() else x[rng.integers(n)]
    d = (x * x).sum(1)[:, None] - 2 * x @ c.T + (c * c).sum(1)[None]
    size = np.full(n_groups, n // n_groups)
    size[: n % n_groups] += 1
    labels = np.full(n, -1)
    for flat in np.argsort(d, axis=None):
        i, g = divmod(int(flat), n_groups)
        if labels[i] < 0 and size[g] > 0:
            labels[i] = g
            size[g] -= 1
    return labels


def read_corpus(paths: tuple[str, ...] = DEFAULT_TEXTS) -> str:
    """Concatenated text of the files in ``paths`` that exist (a ``ValueError`` if none does)."""
    texts = [Path(p).read_text(encoding="utf-8", errors="replace") for p in paths if Path(p).is_file()]
    if not texts:
        raise ValueError(f"no text found at {', '.join(paths)}")
    return "\n\n".join(texts)


def moefy_trace(model: Any, tokenizer: Any, text: str, cfg: MoefyConfig | None = None) -> Trace:
    """Cluster ``model``'s MLPs (a Llama-style ``nn.Module``) and record the top-k groups per token on ``text``."""
    import torch

    cfg = cfg or MoefyConfig()
    layers = model.model.layers
    ids = tokenizer(text, return_tensors="pt").input_ids[0][: cfg.n_tokens]
    onehots = []
    for layer in layers:
        w = layer.mlp.gate_proj.weight.detach().float().numpy()
        w = w / np.linalg.norm(w, axis=1, keepdims=True)
        lab = balanced_kmeans(w, cfg.n_experts, cfg.kmeans_iters, cfg.seed)
        onehots.append(torch.from_numpy(np.eye(cfg.n_experts, dtype=np.float32)[lab]))
    picks: list[list[np.ndarray]] = [[] for _ in layers]

    def hook(i: int) -> Any:
        def fn(_mod: Any, args: Any) -> None:
            score = args[0][0].abs().float() @ onehots[i]  # [T, n_experts]
            picks[i].append(torch.topk(score, cfg.top_k, dim=-1).indices.sort(-1).values.numpy())
        return fn

    handles = [layer.mlp.down_proj.register_forward_pre_hook(hook(i)) for i, layer in enumerate(layers)]
    try:
        with torch.inference_mode():
            for start in range(0, len(ids), cfg.window):
                model(input_ids=ids[None, start:start + cfg.window])
    finally:
        for h in handles:
            h.remove()
    per_layer = np.stack([np.concatenate(p) for p in picks])  # [L, T, k]
    L, T, k = per_layer.shape
    experts = per_layer.transpose(1, 0, 2).reshape(T * L, k)
    return Trace(token=np.repeat(np.arange(T), L), layer=np.tile(np.arange(L), T), experts=experts,
                 n_layers=L, n_experts=cfg.n_experts,
                 meta={"source": "moefied-smollm2-135m", "tokens": T, **asdict(cfg)})


def smollm2_trace(cfg: MoefyConfig | None = None, paths: tuple[str, ...] = DEFAULT_TEXTS) -> Trace:
    """:func:`moefy_trace` of the embedded SmolLM2-135M on the license texts at ``paths``."""
    from paperworks.models.local import get_local_model

    lm = get_local_model()
    trace = moefy_trace(lm.model, lm.tokenizer, read_corpus(paths), cfg)
    trace.meta["text"] = ", ".join(p for p in paths if Path(p).is_file())
    return trace
