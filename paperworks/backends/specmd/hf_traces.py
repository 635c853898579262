"""Traces from real MoE checkpoints (OLMoE, Mixtral, Qwen-MoE, ...) through transformers' router outputs.

Recipe (on a machine that has the checkpoint; nothing here downloads one)::

    from transformers import AutoModelForCausalLM, AutoTokenizer
    from paperworks.backends.specmd.hf_traces import record_router_trace, save_router_file, load_router_trace

    tok = AutoTokenizer.from_pretrained("allenai/OLMoE-1B-7B-0924")
    model = AutoModelForCausalLM.from_pretrained("allenai/OLMoE-1B-7B-0924", torch_dtype="bfloat16")
    ids = tok(open("some_real_text.txt").read(), return_tensors="pt").input_ids[:, :2048]
    topk = record_router_trace(model, ids)            # int16 [layers, tokens, top_k]
    save_router_file("olmoe.router.npz", topk, n_experts=model.config.num_experts, model="OLMoE-1B-7B-0924")
    trace = load_router_trace("olmoe.router.npz")     # a specmd Trace

``record_router_trace`` runs ``model(ids, output_router_logits=True)``: MoE models in transformers then
return ``router_logits``, one ``[tokens, n_experts]`` tensor per MoE layer, and the experts a token
uses are the ``num_experts_per_tok`` largest logits (OLMoE: top-8 of 64; Mixtral: top-2 of 8). For
decoding traces, record one forward per generated token with the KV cache and concatenate.

Router file format (``.npz``): ``router_topk`` int16 [L, T, k] (expert ids, -1 pads), ``n_experts``
int, optional ``model`` (text) and ``router_logits`` float16 [L, T, E].
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.specmd.trace import Trace


def record_router_trace(model: Any, input_ids: Any, top_k: int | None = None) -> np.ndarray:
    """The top-k experts per layer and token of one forward pass: int16 [L, T, k]."""
    import torch

    k = top_k or int(getattr(model.config, "num_experts_per_tok", 0))
    if k <= 0:
        raise ValueError("record_router_trace: pass top_k (the model config has no num_experts_per_tok)")
    with torch.inference_mode():
        out = model(input_ids=input_ids, output_router_logits=True)
    logits = getattr(out, "router_logits", None)
    if not logits:
        raise ValueError("record_router_trace: the model returned no router_logits (is it a MoE model?)")
    return np.stack([torch.topk(lg.float(), k, dim=-1).indices.numpy() for lg in logits]).astype(np.int16)


def save_router_file(path: str | Path, router_topk: np.ndarray, n_experts: int, model: str = "",
                     router_logits: np.ndarray | None = None) -> Path:
    """Write a router file (see the module docstring) and return its path."""
    path = Path(path)
    extra: dict[str, Any] = {} if router_logits is None else {"router_logits": np.asarray(router_logits, np.float16)}
    with path.open("wb") as fh:
        np.savez_compressed(fh, router_topk=np.asarray(router_topk, np.int16), n_experts=np.int64(n_experts),
                            model=np.array(model), **extra)
    return path


def load_router_trace(path: str | Path) -> Trace:
    """Read a router file into a :class:`Trace` (rows token-major, layers in order)."""
    with np.load(Path(path), allow_pickle=False) as z:
        if "router_topk" not in z or "n_experts" not in z:
            raise ValueError(f"{path}: a router file needs fields 'router_topk' [L, T, k] and 'n_experts'")
        topk = z["router_topk"]
        n_experts = int(z["n_experts"])
        model = str(z["model"]) if "model" in z else ""
    if topk.ndim != 3:
        raise ValueError(f"{path}: field 'router_topk' must be [layers, tokens, k]; got shape {topk.shape}")
    L, T, k = topk.shape
    experts = np.sort(topk.transpose(1, 0, 2).reshape(T * L, k), axis=1)
    return Trace(token=np.repeat(np.arange(T), L), layer=np.tile(np.arange(L), T), experts=experts,
                 n_layers=L, n_experts=n_experts, meta={"source": "router", "model": model, "file": str(path)})
