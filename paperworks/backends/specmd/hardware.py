"""A hardware model that turns a simulation's hits, misses and prefetches into modeled latency.

Model (one host-to-device link, transfers in issue order): each row waits for its missed experts
(loaded on demand, queued behind transfers already on the link) and for prefetched experts still in
flight, then computes; the prefetches a row issues start when its compute starts, so they overlap with
it. Time to first token is the end of the last prefill row; decode latency is the remaining time per
generated token. Presets are ASSUMPTIONS (rounded public figures), not measurements: OLMoE-1B-7B's
expert is 3 x 2048 x 1024 bf16 weights = 12.6 MB; decode compute per layer is the bytes one token
reads (about 160 MB: attention plus 8 active experts) over the GPU's memory bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from paperworks.backends.specmd._jit import njit
from paperworks.backends.specmd.result import SimResult
from paperworks.backends.specmd.trace import Stream

OLMOE_EXPERT_BYTES = 3 * 2048 * 1024 * 2


@dataclass(frozen=True)
class Hardware:
    """An accelerator attached to host memory that holds the experts."""

    name: str
    """Preset name."""
    expert_bytes: float = OLMOE_EXPERT_BYTES
    """Bytes moved per expert load (OLMoE-1B-7B, bf16: 12.6 MB)."""
    link_gbs: float = 25.0
    """Effective host-to-device bandwidth, GB/s."""
    decode_layer_ms: float = 0.1
    """Compute time of one layer for one decode token, ms."""
    prefill_token_layer_ms: float = 0.004
    """Extra compute per token of a prefill chunk at one layer, ms (a chunk costs at least decode_layer_ms)."""

    @property
    def load_ms(self) -> float:
        """Time to move one expert over the link, ms."""
        return self.expert_bytes / (self.link_gbs * 1e9) * 1e3


PRESETS: dict[str, Hardware] = {
    "a100-pcie4": Hardware("a100-pcie4", link_gbs=25.0, decode_layer_ms=0.10, prefill_token_layer_ms=0.004),
    "h100-pcie5": Hardware("h100-pcie5", link_gbs=50.0, decode_layer_ms=0.07, prefill_token_layer_ms=0.002),
    "rtx4090-pcie4": Hardware("rtx4090-pcie4", link_gbs=22.0, decode_layer_ms=0.16, prefill_token_layer_ms=0.006),
    "l4-pcie4": Hardware("l4-pcie4", link_gbs=20.0, decode_layer_ms=0.55, prefill_token_layer_ms=0.02),
}
"""Assumed figures: A100 (1.6 TB/s HBM, PCIe 4), H100 PCIe (2 TB/s, PCIe 5), RTX 4090 (1 TB/s, PCIe 4),
L4 (0.3 TB/s, PCIe 4); effective PCIe rates about 80% of the nominal x16 link."""


@njit
def _timeline(row_ptr: Any, hint_ptr: Any, row_ntok: Any, prefill_rows: int, outcome: Any, acc_pf: Any,
              hint_loaded: Any, load: float, layer_ms: float, tok_ms: float) -> Any:
    now = 0.0
    link = 0.0
    ttft = 0.0
    pf_ready = np.zeros(len(hint_loaded))
    for r in range(len(row_ntok)):
        ready = now
        for a in range(row_ptr[r], row_ptr[r + 1]):
            if outcome[a] == 1:
                link = max(link, now) + load
                ready = max(ready, link)
            elif outcome[a] == 2:
                ready = max(ready, pf_ready[acc_pf[a]])
        comp = layer_ms
        if r < prefill_rows:
            comp = max(layer_ms, row_ntok[r] * tok_ms)
        for h in range(hint_ptr[r], hint_ptr[r + 1]):
            if hint_loaded[h]:
                link = max(link, ready) + load
                pf_ready[h] = link
        now = ready + comp
        if r == prefill_rows - 1:
            ttft = now
    return ttft, now


@dataclass
class Latency:
    """Modeled times of one simulated request."""

    ttft_ms: float
    """Time to first token (end of prefill), ms."""
    decode_ms_per_token: float
    """Mean time per generated token after the prompt, ms."""
    total_ms: float
    """End of the last row, ms."""


def model_latency(stream: Stream, sim: SimResult, hw: Hardware | str, use_hints: bool = True) -> Latency:
    """Modeled TTFT and per-token decode latency of ``sim`` (a simulation of ``stream``) on ``hw``."""
    if isinstance(hw, str) and hw not in PRESETS:
        raise ValueError(f"unknown hardware preset {hw!r}; known: {', '.join(PRESETS)}")
    hw = PRESETS[hw] if isinstance(hw, str) else hw
    stream.validate()
    if len(sim.outcome) != len(stream.keys) or len(sim.acc_pf) != len(stream.keys) \
            or len(sim.hint_loaded) != len(stream.hint_keys):
        raise ValueError("sim is not a simulation of this stream (its per-access arrays have other lengths)")
    hptr = stream.hint_ptr if use_hints else np.zeros_like(stream.hint_ptr)
    ttft, total = _timeline(stream.row_ptr, hptr, stream.row_ntok, stream.prefill_rows, sim.outcome, sim.acc_pf,
                            sim.hint_loaded, hw.load_ms, hw.decode_layer_ms, hw.prefill_token_layer_ms)
    decode_tokens = len(np.unique(stream.row_token[stream.prefill_rows:]))
    return Latency(ttft_ms=float(ttft), decode_ms_per_token=float(total - ttft) / max(decode_tokens, 1),
                   total_ms=float(total))
