"""Properties on random traces: Belady bounds every online policy; fast paths equal the generic scan;
Least-Stale never loses to LRU on layer-cyclic traces."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from paperworks.backends.specmd.policies import POLICIES
from paperworks.backends.specmd.prefetch import PrefetchConfig, speculative_hints
from paperworks.backends.specmd.simulator import simulate
from paperworks.backends.specmd.synthetic import layer_cyclic_trace
from paperworks.backends.specmd.trace import Trace, to_stream


def random_trace(seed: int, n_layers: int, n_experts: int, top_k: int, n_tokens: int) -> Trace:
    rng = np.random.default_rng(seed)
    k = min(top_k, n_experts)
    ex = np.stack([rng.permutation(n_experts)[:k] for _ in range(n_layers * n_tokens)])
    return Trace(token=np.repeat(np.arange(n_tokens), n_layers), layer=np.tile(np.arange(n_layers), n_tokens),
                 experts=ex, n_layers=n_layers, n_experts=n_experts)


traces = st.builds(random_trace, seed=st.integers(0, 10**6), n_layers=st.integers(1, 4),
                   n_experts=st.integers(1, 6), top_k=st.integers(1, 3), n_tokens=st.integers(1, 12))


@settings(max_examples=150, deadline=None)
@given(trace=traces, extra=st.integers(0, 12), prompt=st.integers(0, 3), chunk=st.integers(1, 3))
def test_no_online_policy_beats_belady(trace: Trace, extra: int, prompt: int, chunk: int) -> None:
    stream = to_stream(trace, prompt, chunk)
    width = int(np.diff(stream.row_ptr).max())
    cap = min(width + extra, trace.n_keys)
    best = simulate(stream, "belady", cap).hits
    for name, pol in POLICIES.items():
        if pol.online:
            assert simulate(stream, pol, cap).hits <= best, name


@settings(max_examples=100, deadline=None)
@given(trace=traces, cap=st.integers(1, 20), ahead=st.integers(1, 3), acc=st.sampled_from([0.0, 0.5, 1.0]))
def test_fast_paths_equal_generic_scan(trace: Trace, cap: int, ahead: int, acc: float) -> None:
    stream = to_stream(speculative_hints(trace, PrefetchConfig(ahead=ahead, accuracy=acc)), 2, 2)
    for name in ("lru", "least-stale"):
        a = simulate(stream, name, cap, fast=True)
        b = simulate(stream, name, cap, fast=False)
        assert np.array_equal(a.outcome, b.outcome) and np.array_equal(a.hint_loaded, b.hint_loaded), name


@settings(max_examples=60, deadline=None)
@given(n_layers=st.integers(2, 8), n_experts=st.integers(1, 6), top_k=st.integers(1, 3),
       n_tokens=st.integers(2, 15), cap_frac=st.floats(0.05, 1.0), seed=st.integers(0, 1000))
def test_least_stale_at_least_lru_on_layer_cyclic(n_layers: int, n_experts: int, top_k: int, n_tokens: int,
                                                  cap_frac: float, seed: int) -> None:
    trace = layer_cyclic_trace(n_layers, n_experts, min(top_k, n_experts), n_tokens, seed)
    stream = to_stream(trace)
    cap = max(1, round(cap_frac * trace.n_keys))
    ls, lru = simulate(stream, "least-stale", cap), simulate(stream, "lru", cap)
    assert ls.hits >= lru.hits
    assert ls.collision_misses <= lru.collision_misses
