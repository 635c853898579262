"""Expert-access traces: one row per (token, layer) with the experts it activates and prefetch hints.

A :class:`Trace` is stored as a compressed numpy archive (``.npz``, ``allow_pickle=False``) holding
``token`` (int32 [N]), ``layer`` (int16 [N]), ``experts`` (int16 [N, k], -1 pads), ``hints``
(int32 [N, h], global expert keys ``layer * n_experts + expert``, -1 pads; h may be 0), the model's
``n_layers``/``n_experts``, a ``format`` version and ``meta`` (JSON text). Rows are in execution order:
token-major, layers 0..L-1 within a token.

For simulation a trace becomes a :class:`Stream` (CSR arrays), optionally with the prompt's tokens
merged into chunked prefill rows (one row per chunk and layer, holding the union of their experts).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "specmd-trace-v1"
NEVER = np.int64(1 << 60)
"""Next-use value of a key that is never accessed again."""


@dataclass
class Trace:
    """Which experts each (token, layer) step activates, plus optional prefetch hints."""

    token: np.ndarray
    """int32 [N]: token index of each row (non-decreasing)."""
    layer: np.ndarray
    """int16 [N]: layer index of each row."""
    experts: np.ndarray
    """int16 [N, k]: local expert ids activated at the row, -1 for padding."""
    n_layers: int
    """Number of MoE layers of the model."""
    n_experts: int
    """Experts per layer."""
    hints: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int32))
    """int32 [N, h]: global keys (``layer * n_experts + expert``) a prefetcher requests at the row; -1 pads."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Free-form provenance (source, model, text, generator settings)."""

    def __post_init__(self) -> None:
        self.token = _int_array("token", self.token, np.int32)
        self.layer = _int_array("layer", self.layer, np.int16)
        self.experts = _int_array("experts", self.experts, np.int16)
        if self.experts.ndim == 1:
            self.experts = self.experts[:, None]
        n = len(self.token)
        hints = _int_array("hints", self.hints, np.int32)
        self.hints = hints if hints.size or hints.shape[0] == n else np.zeros((n, 0), np.int32)
        self.validate()

    def __len__(self) -> int:
        return len(self.token)

    @property
    def n_keys(self) -> int:
        """Total experts in the model (the cache's universe)."""
        return self.n_layers * self.n_experts

    @property
    def n_tokens(self) -> int:
        """Distinct tokens in the trace."""
        return int(len(np.unique(self.token)))

    def validate(self) -> None:
        """Raise ``ValueError`` naming the field when shapes or values are inconsistent."""
        for name in ("n_layers", "n_experts"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"trace: field '{name}' must be a positive integer; got {v!r}")
        if self.token.ndim != 1 or self.experts.ndim != 2 or self.hints.ndim != 2:
            raise ValueError(f"trace: token must be 1-D and experts, hints 2-D; got {self.token.shape}, "
                             f"{self.experts.shape}, {self.hints.shape}")
        n = len(self.token)
        if self.layer.shape != (n,) or self.experts.shape[0] != n or self.hints.shape[0] != n:
            raise ValueError(f"trace: token, layer, experts and hints need {n} rows; got {self.layer.shape}, "
                             f"{self.experts.shape}, {self.hints.shape}")
        if n and (self.layer.min() < 0 or self.layer.max() >= self.n_layers):
            raise ValueError(f"trace: field 'layer' must lie in [0, {self.n_layers})")
        if n and (self.experts.min() < -1 or self.experts.max() >= self.n_experts):
            raise ValueError(f"trace: field 'experts' must lie in [0, {self.n_experts}) or be -1")
        if self.hints.size and (self.hints.min() < -1 or self.hints.max() >= self.n_keys):
            raise ValueError(f"trace: field 'hints' must be global keys in [0, {self.n_keys}) or -1")
        if n > 1 and np.any(np.diff(self.token.astype(np.int64)) < 0):
            raise ValueError("trace: field 'token' must be non-decreasing (rows in execution order)")
        s = np.sort(self.experts, axis=1)
        if np.any((s[:, 1:] == s[:, :-1]) & (s[:, 1:] >= 0)):
            raise ValueError("trace: field 'experts' repeats an expert within a row")

    def save(self, path: str | Path) -> Path:
        """Write the trace as a compressed ``.npz``; returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez_compressed(fh, format=np.array(FORMAT), token=self.token, layer=self.layer,
                                experts=self.experts, hints=self.hints, n_layers=np.int64(self.n_layers),
                                n_experts=np.int64(self.n_experts), meta=np.array(json.dumps(self.meta)))
        return path

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """Read a trace written by :meth:`save`; errors name the file and the missing field."""
        with np.load(Path(path), allow_pickle=False) as z:
            if "format" not in z or str(z["format"]) != FORMAT:
                raise ValueError(f"{path}: not a {FORMAT} archive (field 'format')")
            return cls(token=z["token"], layer=z["layer"], experts=z["experts"], hints=z["hints"],
                       n_layers=int(z["n_layers"]), n_experts=int(z["n_experts"]), meta=json.loads(str(z["meta"])))

    def with_hints(self, hints: np.ndarray, **meta: Any) -> Trace:
        """A copy of this trace with ``hints`` replaced (and ``meta`` updated)."""
        return Trace(self.token, self.layer, self.experts, self.n_layers, self.n_experts, hints,
                     {**self.meta, **meta})


@dataclass
class Stream:
    """A trace in simulator form: rows in CSR layout, with keys ``layer * n_experts + expert``."""

    row_ptr: np.ndarray
    """int64 [R+1]: accesses of row r are ``keys[row_ptr[r]:row_ptr[r+1]]``."""
    keys: np.ndarray
    """int32 [A]: global expert keys accessed."""
    row_layer: np.ndarray
    """int32 [R]: layer of each row."""
    row_token: np.ndarray
    """int32 [R]: token of each row (a prefill chunk's first token)."""
    row_ntok: np.ndarray
    """int32 [R]: tokens merged into the row (1 for decode rows)."""
    hint_ptr: np.ndarray
    """int64 [R+1]: hints issued at row r are ``hint_keys[hint_ptr[r]:hint_ptr[r+1]]``."""
    hint_keys: np.ndarray
    """int32 [H]: global keys requested by the prefetcher."""
    n_layers: int
    """Layers of the model."""
    n_experts: int
    """Experts per layer."""
    prefill_rows: int = 0
    """The first ``prefill_rows`` rows are the prompt's prefill (time to first token ends there)."""

    @property
    def n_rows(self) -> int:
        """Rows (steps) in the stream."""
        return len(self.row_layer)

    def validate(self) -> None:
        """Raise ``ValueError`` naming the field when the CSR arrays are inconsistent (the compiled simulator
        does not bounds-check, so a bad hand-built Stream would read or write out of bounds)."""
        def arr(name: str, ndim: int = 1) -> np.ndarray:
            a = np.asarray(getattr(self, name))
            if a.ndim != ndim or not (np.issubdtype(a.dtype, np.integer) and a.dtype != np.bool_):
                raise ValueError(f"stream: field '{name}' must be a 1-D integer array; got {a.dtype} {a.shape}")
            return a
        for name in ("n_layers", "n_experts"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"stream: field '{name}' must be a positive integer; got {v!r}")
        r = len(arr("row_layer"))
        for ptr, vals in (("row_ptr", "keys"), ("hint_ptr", "hint_keys")):
            p, v = arr(ptr), arr(vals)
            if len(p) != r + 1 or p[0] != 0 or p[-1] != len(v) or np.any(np.diff(p) < 0):
                raise ValueError(f"stream: field '{ptr}' must be non-decreasing, from 0 to len({vals}) = {len(v)}, "
                                 f"with n_rows + 1 = {r + 1} entries")
            if len(v) and (v.min() < 0 or v.max() >= self.n_keys):
                raise ValueError(f"stream: field '{vals}' must be global keys in [0, {self.n_keys})")
        for name in ("row_token", "row_ntok"):
            if len(arr(name)) != r:
                raise ValueError(f"stream: field '{name}' needs {r} entries (one per row)")
        if r and (self.row_layer.min() < 0 or self.row_layer.max() >= self.n_layers):
            raise ValueError(f"stream: field 'row_layer' must lie in [0, {self.n_layers})")
        if r and self.row_ntok.min() < 1:
            raise ValueError("stream: field 'row_ntok' must be >= 1")
        if not 0 <= self.prefill_rows <= r:
            raise ValueError(f"stream: field 'prefill_rows' must lie in [0, {r}]")
        rows = np.repeat(np.arange(r, dtype=np.int64), np.diff(self.row_ptr))
        keys = self.keys.astype(np.int64)
        if np.any(keys // self.n_experts != self.row_layer[rows]):
            raise ValueError("stream: field 'keys' holds an expert of another layer than its row's 'row_layer'")
        comb = np.sort(rows * self.n_keys + keys)
        if np.any(comb[1:] == comb[:-1]):
            raise ValueError("stream: field 'keys' repeats an expert within a row")

    @property
    def n_keys(self) -> int:
        """Total experts in the model."""
        return self.n_layers * self.n_experts

    def next_uses(self) -> tuple[np.ndarray, np.ndarray]:
        """For each access and each hint, the next row strictly after it that accesses the same key
        (``NEVER`` if none): what Belady needs."""
        rows = np.repeat(np.arange(self.n_rows, dtype=np.int64), np.diff(self.row_ptr))
        comb = self.keys.astype(np.int64) * (self.n_rows + 1) + rows
        order = np.sort(comb)

        def nxt(keys: np.ndarray, at_rows: np.ndarray) -> np.ndarray:
            q = keys.astype(np.int64) * (self.n_rows + 1) + at_rows
            idx = np.searchsorted(order, q, side="right")
            idx_c = np.minimum(idx, len(order) - 1)
            found = (idx < len(order)) & (order[idx_c] // (self.n_rows + 1) == keys)
            return np.where(found, order[idx_c] % (self.n_rows + 1), NEVER).astype(np.int64)

        hint_rows = np.repeat(np.arange(self.n_rows, dtype=np.int64), np.diff(self.hint_ptr))
        if len(order) == 0:
            return np.full(len(self.keys), NEVER), np.full(len(self.hint_keys), NEVER)
        return nxt(self.keys, rows), nxt(self.hint_keys, hint_rows)


def _int_array(name: str, value: Any, dtype: Any) -> np.ndarray:
    """``value`` as an integer array of ``dtype``; a fractional, NaN or out-of-range value raises ``ValueError``
    naming the field (instead of being truncated or wrapped)."""
    a = np.asarray(value)
    if a.dtype == np.bool_ or not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
        if a.size or a.dtype == np.bool_:
            raise ValueError(f"trace: field '{name}' must hold integers; got dtype {a.dtype}")
        a = a.astype(np.int64)
    if np.issubdtype(a.dtype, np.floating) and a.size and not np.all(np.isfinite(a) & (a == np.round(a))):
        raise ValueError(f"trace: field '{name}' must hold integers; got a fractional, NaN or infinite value")
    info = np.iinfo(dtype)
    if a.size and (a.min() < info.min or a.max() > info.max):
        raise ValueError(f"trace: field '{name}' must lie in [{info.min}, {info.max}] ({np.dtype(dtype).name})")
    return a.astype(dtype)


def _csr(mat: np.ndarray, offset: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    mask = mat >= 0
    ptr = np.zeros(len(mat) + 1, np.int64)
    np.cumsum(mask.sum(axis=1), out=ptr[1:])
    vals = mat.astype(np.int64) + (0 if offset is None else offset[:, None])
    return ptr, vals[mask].astype(np.int32)


def to_stream(trace: Trace, prompt_tokens: int = 0, chunk: int = 1) -> Stream:
    """Turn ``trace`` into a :class:`Stream`; the first ``prompt_tokens`` tokens become prefill rows,
    ``chunk`` tokens per row per layer (their experts' union), the rest stay one row per token and layer."""
    for name, v, lo in (("prompt_tokens", prompt_tokens, 0), ("chunk", chunk, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    tokens = np.unique(trace.token)
    prompt = set(tokens[:prompt_tokens].tolist())
    is_pre = np.isin(trace.token, list(prompt)) if prompt else np.zeros(len(trace), bool)
    e = trace.n_experts
    offset = trace.layer.astype(np.int64) * e
    rows_keys: list[np.ndarray] = []
    rows_hints: list[np.ndarray] = []
    layer_l: list[int] = []
    tok_l: list[int] = []
    ntok_l: list[int] = []
    pre_idx = np.flatnonzero(is_pre)
    if len(pre_idx):
        rank = np.searchsorted(tokens, trace.token[pre_idx]) // max(chunk, 1)
        for c in np.unique(rank):
            sel = pre_idx[rank == c]
            for lay in range(trace.n_layers):
                r = sel[trace.layer[sel] == lay]
                if not len(r):
                    continue
                k = (trace.experts[r].astype(np.int64) + offset[r, None])[trace.experts[r] >= 0]
                rows_keys.append(np.unique(k).astype(np.int32))
                h = trace.hints[r].ravel()
                rows_hints.append(np.unique(h[h >= 0]).astype(np.int32))
                layer_l.append(lay)
                tok_l.append(int(trace.token[r[0]]))
                ntok_l.append(int(len(np.unique(trace.token[r]))))
    n_pre = len(layer_l)
    dec = np.flatnonzero(~is_pre)
    dptr, dkeys = _csr(trace.experts[dec], offset[dec])
    hptr, hkeys = _csr(trace.hints[dec] if trace.hints.shape[1] else np.zeros((len(dec), 0), np.int32), None)
    pre_counts = np.array([len(k) for k in rows_keys], np.int64)
    pre_hcounts = np.array([len(h) for h in rows_hints], np.int64)
    row_ptr = np.concatenate([[0], np.cumsum(pre_counts), pre_counts.sum() + dptr[1:]]).astype(np.int64)
    hint_ptr = np.concatenate([[0], np.cumsum(pre_hcounts), pre_hcounts.sum() + hptr[1:]]).astype(np.int64)
    keys = np.concatenate([*rows_keys, dkeys]).astype(np.int32)
    hint_keys = np.concatenate([*rows_hints, hkeys]).astype(np.int32)
    return Stream(row_ptr=row_ptr, keys=keys,
                  row_layer=np.concatenate([layer_l, trace.layer[dec]]).astype(np.int32),
                  row_token=np.concatenate([tok_l, trace.token[dec]]).astype(np.int32),
                  row_ntok=np.concatenate([ntok_l, np.ones(len(dec))]).astype(np.int32),
                  hint_ptr=hint_ptr, hint_keys=hint_keys, n_layers=trace.n_layers, n_experts=trace.n_experts,
                  prefill_rows=n_pre)
