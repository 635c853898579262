"""The latency model on hand-built timelines."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.specmd.hardware import PRESETS, Hardware, model_latency
from paperworks.backends.specmd.simulator import simulate
from paperworks.backends.specmd.trace import Trace, to_stream

HW = Hardware("test", expert_bytes=1e9, link_gbs=1.0, decode_layer_ms=100.0, prefill_token_layer_ms=10.0)  # 1000 ms


def test_demand_misses_then_hits() -> None:
    tr = Trace(token=[0, 1], layer=[0, 0], experts=[[0, 1], [0, 1]], n_layers=1, n_experts=2)
    s = to_stream(tr, prompt_tokens=1)
    lat = model_latency(s, simulate(s, "lru", 2), HW)
    assert HW.load_ms == pytest.approx(1000.0)
    assert lat.ttft_ms == pytest.approx(2000 + 100)  # two loads in series, then compute
    assert lat.decode_ms_per_token == pytest.approx(100)  # both hit
    assert lat.total_ms == pytest.approx(2200)


def test_prefetch_overlaps_compute() -> None:
    tr = Trace(token=[0, 0], layer=[0, 1], experts=[[0], [0]], n_layers=2, n_experts=2, hints=[[2], [-1]])
    s = to_stream(tr)
    with_pf = model_latency(s, simulate(s, "lru", 2), HW)
    no_pf = model_latency(s, simulate(s, "lru", 2, use_hints=False), HW, use_hints=False)
    assert no_pf.total_ms == pytest.approx(1000 + 100 + 1000 + 100)
    assert with_pf.total_ms == pytest.approx(2000 + 100)  # the prefetch started with row 0's compute


def test_prefill_chunk_compute() -> None:
    tr = Trace(token=np.arange(20), layer=np.zeros(20), experts=np.zeros((20, 1)), n_layers=1, n_experts=1)
    s = to_stream(tr, prompt_tokens=20, chunk=20)
    assert model_latency(s, simulate(s, "lru", 1), HW).ttft_ms == pytest.approx(1000 + 200)


def test_presets_are_plausible() -> None:
    for hw in PRESETS.values():
        assert 0.2 < hw.load_ms < 1.0 and hw.decode_layer_ms < hw.load_ms
