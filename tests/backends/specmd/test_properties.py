"""Properties on random traces: Belady is the optimum of demand misses under the pinning rule (exhaustive
search) and bounds every online policy, rows wider than the cache included; fast paths equal the generic scan;
Least-Stale never loses to LRU on layer-cyclic traces."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from paperworks.backends.specmd.policies import POLICIES
from paperworks.backends.specmd.prefetch import PrefetchConfig, speculative_hints
from paperworks.backends.specmd.simulator import simulate
from paperworks.backends.specmd.synthetic import layer_cyclic_trace
from paperworks.backends.specmd.trace import Stream, Trace, to_stream


def random_trace(seed: int, n_layers: int, n_experts: int, top_k: int, n_tokens: int) -> Trace:
    rng = np.random.default_rng(seed)
    k = min(top_k, n_experts)
    ex = np.stack([rng.permutation(n_experts)[:k] for _ in range(n_layers * n_tokens)])
    return Trace(token=np.repeat(np.arange(n_tokens), n_layers), layer=np.tile(np.arange(n_layers), n_tokens),
                 experts=ex, n_layers=n_layers, n_experts=n_experts)


traces = st.builds(random_trace, seed=st.integers(0, 10**6), n_layers=st.integers(1, 4),
                   n_experts=st.integers(1, 6), top_k=st.integers(1, 3), n_tokens=st.integers(1, 12))


def optimal_misses(stream: Stream, cap: int) -> int:
    """The fewest demand misses any cache of ``cap`` experts can have on ``stream`` under the pinning rule, by
    exhaustive search over cache contents (written from the rule, not from the simulator). At a row R from
    contents C the misses are |R - C|; R's cached experts are pinned, so afterwards the cache holds R ∩ C plus
    any other experts of C ∪ R (loaded, or kept), at most ``cap`` in all; the rest were streamed through."""
    states: dict[frozenset[int], int] = {frozenset(): 0}
    for r in range(stream.n_rows):
        row = set(stream.keys[stream.row_ptr[r]:stream.row_ptr[r + 1]].tolist())
        nxt: dict[frozenset[int], int] = {}
        for c, cost in states.items():
            pinned = row & c
            pool = sorted((c | row) - pinned)
            for k in range(min(cap - len(pinned), len(pool)) + 1):
                for keep in itertools.combinations(pool, k):
                    state = frozenset(pinned.union(keep))
                    total = cost + len(row - c)
                    if total < nxt.get(state, 1 << 30):
                        nxt[state] = total
        states = nxt
    return min(states.values())


small_traces = st.builds(random_trace, seed=st.integers(0, 10**6), n_layers=st.integers(1, 2),
                         n_experts=st.integers(1, 4), top_k=st.integers(1, 3), n_tokens=st.integers(1, 25))


@settings(max_examples=120, deadline=None)
@given(trace=small_traces, cap=st.integers(1, 4), prompt=st.integers(0, 4), chunk=st.integers(1, 3))
def test_belady_is_the_optimum_under_pinning(trace: Trace, cap: int, prompt: int, chunk: int) -> None:
    # prefill chunks merge up to 3 tokens' experts into one row: rows wider than the cache are common here
    stream = to_stream(trace, prompt, chunk)
    cap = min(cap, trace.n_keys)
    assert simulate(stream, "belady", cap, use_hints=False).misses == optimal_misses(stream, cap)


def test_belady_optimum_on_a_row_wider_than_the_cache() -> None:
    # one layer, 4 experts, 2 slots. Prefill row {0, 1, 2} (wider than the cache), then 2, 1, 2, 1: the optimum
    # keeps 1 and 2 out of the wide row (whatever order it lists them in) and streams 0 through: 3 misses in all.
    tr = Trace(token=[0, 1, 2, 3, 4], layer=[0] * 5, experts=[[0, 1, 2], [2, -1, -1], [1, -1, -1], [2, -1, -1],
                                                            [1, -1, -1]], n_layers=1, n_experts=4)
    stream = to_stream(tr, 1, 1)
    assert optimal_misses(stream, 2) == 3
    assert simulate(stream, "belady", 2, use_hints=False).misses == 3
    assert simulate(stream, "lru", 2, use_hints=False).misses == 4  # keeps 0 and 1 (first come), misses 2 once


def test_belady_breaks_ties_by_later_uses() -> None:
    # one slot; experts 0 and 1 are both next needed in the second row, then only 1 in the third. The one kept
    # through the second row stays pinned there, so keeping 0 (listed first) costs a miss in the third row.
    tr = Trace(token=[0, 1, 2], layer=[0, 0, 0], experts=[[0, 1], [0, 1], [1, -1]], n_layers=1, n_experts=2)
    stream = to_stream(tr)
    assert optimal_misses(stream, 1) == 3
    assert simulate(stream, "belady", 1, use_hints=False).misses == 3


@settings(max_examples=150, deadline=None)
@given(trace=traces, cap=st.integers(1, 24), prompt=st.integers(0, 3), chunk=st.integers(1, 3))
def test_no_online_policy_beats_belady(trace: Trace, cap: int, prompt: int, chunk: int) -> None:
    stream = to_stream(trace, prompt, chunk)  # capacities from 1: rows wider than the cache included
    cap = min(cap, trace.n_keys)
    best = simulate(stream, "belady", cap, use_hints=False).misses
    for name, pol in POLICIES.items():
        if pol.online:
            assert simulate(stream, pol, cap, use_hints=False).misses >= best, name


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
