"""KV-cache segments of a transformers causal LM with rotary positions (Llama family, e.g. SmolLM2):
prefill, re-position by re-rotating cached keys, and stitch segments into one cache.

A cached key at position p is ``R(p)·k`` (RoPE). Rotations compose, ``R(p + Δ) = R(Δ)·R(p)``, so a key
cached at p is moved to p + Δ by applying the rotation for Δ to it — exactly what the model would
have cached at p + Δ for the same hidden state. Values carry no position and are kept as they are.
Stitching segments that were prefilled apart cannot be exact (a segment never attended to the
segments now before it); ``recompute`` re-runs the first tokens of each later segment on the
stitched context to narrow the gap.

RoPE variants that scale cos/sin by an ``attention_scaling`` factor (YaRN, LongRoPE) are handled: the factor
is already in the cached key and is not applied again. Bad arguments (empty or non-integer token ids,
negative positions or recompute counts, segments whose tensors do not match their ids) raise
:class:`~paperworks.backends._validate.BackendInputError` (a ``ValueError``) naming the argument.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import torch
from torch import Tensor

from paperworks.backends._validate import BackendInputError


def _check_int(name: str, v: object, lo: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise BackendInputError(f"{name} must be an integer; got {v!r}")
    if lo is not None and int(v) < lo:
        raise BackendInputError(f"{name} must be >= {lo}; got {v}")
    return int(v)


def _check_ids(model: torch.nn.Module, ids: list[int]) -> list[int]:
    """``ids``: a non-empty list of integer token ids inside the model's vocabulary."""
    ids = list(ids)
    if not ids:
        raise BackendInputError("ids is empty: at least one token is needed")
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, numbers.Integral):
            raise BackendInputError(f"ids must be integer token ids; got {i!r}")
    vocab = getattr(getattr(model, "config", None), "vocab_size", None)
    if min(ids) < 0 or (vocab is not None and max(ids) >= vocab):
        top = "" if vocab is None else vocab - 1
        raise BackendInputError(f"ids hold {min(ids)}..{max(ids)}, outside the vocabulary 0..{top}")
    return [int(i) for i in ids]


@dataclass
class Segment:
    """A prefilled run of tokens: per layer ``(keys, values)``, each ``(1, kv_heads, T, head_dim)``,
    cached at positions ``start .. start + T - 1``."""

    ids: list[int]
    keys: list[Tensor]
    values: list[Tensor]
    start: int

    def __post_init__(self) -> None:
        _check_int("segment start", self.start, 0)
        if len(self.keys) != len(self.values):
            raise BackendInputError(f"segment has {len(self.keys)} key layers but {len(self.values)} value layers")
        t = len(self.ids)
        for i, (k, v) in enumerate(zip(self.keys, self.values, strict=True)):
            if k.dim() != 4 or v.dim() != 4 or k.shape[2] != t or v.shape[2] != t or k.shape[:2] != v.shape[:2]:
                raise BackendInputError(f"segment layer {i}: keys {tuple(k.shape)} and values {tuple(v.shape)} must "
                                        f"be (1, kv_heads, {t}, head_dim) for its {t} ids")

    @property
    def length(self) -> int:
        return len(self.ids)

    def to_dict(self) -> dict[str, object]:
        return {"ids": self.ids, "keys": self.keys, "values": self.values, "start": self.start}

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> Segment:
        return cls(list(d["ids"]), list(d["keys"]), list(d["values"]), int(d["start"]))  # type: ignore[call-overload]


def _cache_layers(cache: object) -> list[tuple[Tensor, Tensor]]:
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return [(lay.keys, lay.values) for lay in layers]
    return [(k, v) for k, v in zip(cache.key_cache, cache.value_cache, strict=True)]  # type: ignore[attr-defined]


def new_cache(model: torch.nn.Module, segments: list[Segment] | None = None) -> object:
    """A ``DynamicCache`` holding ``segments`` one after another (as they are, no re-positioning)."""
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)  # type: ignore[arg-type]
    for seg in segments or []:
        append(cache, seg)
    return cache


def append(cache: object, seg: Segment) -> None:
    """Append a segment's keys and values to ``cache``."""
    for i, (k, v) in enumerate(zip(seg.keys, seg.values, strict=True)):
        cache.update(k, v, i)  # type: ignore[attr-defined]


def cache_length(cache: object) -> int:
    return int(cache.get_seq_length())  # type: ignore[attr-defined]


@torch.no_grad()
def prefill(model: torch.nn.Module, ids: list[int], cache: object | None = None, start: int | None = None) -> Segment:
    """Run ``ids`` through the model after ``cache`` (None: alone) at positions from ``start`` (default:
    right after the cache); return the new tokens' segment. ``cache`` itself is left as it was."""
    import copy

    ids = _check_ids(model, ids)
    base = 0 if cache is None else cache_length(cache)
    pos0 = base if start is None else _check_int("start", start, 0)
    work = new_cache(model) if cache is None else copy.deepcopy(cache)
    x = torch.tensor([ids], dtype=torch.long)
    pos = torch.arange(pos0, pos0 + len(ids))[None]
    model(input_ids=x, position_ids=pos, cache=work, use_cache=True)
    layers = _cache_layers(work)
    return Segment(list(ids), [k[:, :, base:].clone() for k, _ in layers], [v[:, :, base:].clone() for _, v in layers],
                   pos0)


def rotate(model: torch.nn.Module, keys: Tensor, delta: int) -> Tensor:
    """Keys ``(1, kv_heads, T, head_dim)`` cached at positions p, re-rotated to p + ``delta``."""
    delta = _check_int("delta", delta)
    if delta == 0:
        return keys
    rope = model.model.rotary_emb  # type: ignore[union-attr]
    t = keys.shape[2]
    cos, sin = rope(keys, torch.full((1, t), delta, dtype=torch.long))  # type: ignore[operator]
    # YaRN/LongRoPE fold an attention scaling into cos and sin; the cached key already carries it once
    scale = float(getattr(rope, "attention_scaling", 1.0) or 1.0)
    cos, sin = (cos[:, None] / scale).to(keys.dtype), (sin[:, None] / scale).to(keys.dtype)
    half = keys.shape[-1] // 2
    rotated_half = torch.cat((-keys[..., half:], keys[..., :half]), dim=-1)
    return keys * cos + rotated_half * sin


def moved(model: torch.nn.Module, seg: Segment, start: int) -> Segment:
    """The segment as if cached from position ``start``: every layer's keys re-rotated."""
    delta = _check_int("start", start, 0) - seg.start
    return Segment(seg.ids, [rotate(model, k, delta) for k in seg.keys], seg.values, start)


@torch.no_grad()
def stitch(model: torch.nn.Module, head: Segment, parts: list[Segment], reposition: bool = True,
           recompute: int = 0) -> object:
    """A cache for ``head`` followed by ``parts``. ``head`` must start at 0. With ``reposition`` each part's
    keys are moved to where the part now sits; without, they keep the positions they were cached at.
    ``recompute`` > 0 re-runs that many first tokens of every part after the first on the stitched
    context before it (the first part directly follows the head it was prefilled after)."""
    recompute = _check_int("recompute", recompute, 0)
    if head.start != 0:
        raise BackendInputError(f"head must start at position 0; it starts at {head.start}")
    for i, seg in enumerate(parts):
        if len(seg.keys) != len(head.keys):
            raise BackendInputError(f"parts[{i}] has {len(seg.keys)} layers; the head has {len(head.keys)}")
    cache = new_cache(model, [head])
    for i, seg in enumerate(parts):
        at = cache_length(cache)
        r = min(recompute, seg.length) if i > 0 else 0
        if r:
            fresh = prefill(model, seg.ids[:r], cache)
            append(cache, fresh)
        if r < seg.length:
            rest = Segment(seg.ids[r:], [k[:, :, r:] for k in seg.keys], [v[:, :, r:] for v in seg.values],
                           seg.start + r)
            append(cache, moved(model, rest, at + r) if reposition else rest)
    return cache


@torch.no_grad()
def next_logprobs(model: torch.nn.Module, cache: object, ids: list[int]) -> Tensor:
    """Log-probabilities ``(len(ids), vocab)`` of the next token after each of ``ids`` fed after ``cache``
    (at positions right after it); the cache is left as it was."""
    import copy

    ids = _check_ids(model, ids)
    work = copy.deepcopy(cache)
    n = cache_length(work)
    pos = torch.arange(n, n + len(ids))[None]
    out = model(input_ids=torch.tensor([ids]), position_ids=pos, cache=work, use_cache=True)
    return torch.log_softmax(out.logits[0].float(), dim=-1)


def kl(p_log: Tensor, q_log: Tensor) -> float:
    """Mean over rows of KL(p ‖ q) from log-probabilities (nats); a token with p = 0 adds nothing (also where
    its log-probability is -inf), one with p > 0 and q = 0 makes it infinite."""
    if p_log.shape != q_log.shape or p_log.dim() != 2 or p_log.shape[0] == 0:
        raise BackendInputError(f"kl needs two non-empty (rows, vocab) tensors of one shape; got "
                                f"{tuple(p_log.shape)} and {tuple(q_log.shape)}")
    if bool(torch.isnan(p_log).any() or torch.isnan(q_log).any()):
        raise BackendInputError("kl: log-probabilities contain NaN")
    p_log, q_log = p_log.double(), q_log.double()
    p = p_log.exp()
    terms = torch.where(p > 0, p * (p_log - q_log), torch.zeros_like(p))
    return float(terms.sum(-1).mean())
