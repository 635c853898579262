"""Audit: the SpecMD cache simulator against an independent pure-Python cache (LRU, FIFO, LFU, Least-Stale with
prefetch protection; hits, prefetch hits, collision misses, wasted prefetches), and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.specmd.hardware import model_latency
from paperworks.backends.specmd.metrics import SweepConfig, capacity_slots, sweep
from paperworks.backends.specmd.simulator import simulate
from paperworks.backends.specmd.trace import Stream, Trace, to_stream


def reference(stream: Stream, policy: str, cap: int, use_hints: bool) -> dict[str, int]:
    """The rules of the simulator's docstrings, written as a dictionary-backed cache."""
    e, n_layers = stream.n_experts, stream.n_layers
    cache: dict[int, dict[str, int | None]] = {}
    count: dict[int, int] = {}
    evicted_tok: dict[int, int] = {}
    layer_ran: dict[int, int] = {}
    tick = 0
    c = dict(hits=0, misses=0, prefetch_hits=0, collision_misses=0, prefetches=0, wasted_prefetches=0, evictions=0)

    def victim(cur: int, pinned: set[int]) -> int | None:
        best: tuple[tuple[int, ...], int] | None = None
        for k, ent in cache.items():
            lay = k // e
            if k in pinned or (policy == "least-stale" and ent["pf"] is not None
                               and layer_ran.get(lay, -1) <= ent["pf"]):  # type: ignore[operator]
                continue
            last = int(ent["last"])  # type: ignore[arg-type]
            score = {"lru": (-last,), "fifo": (-int(ent["ins"]),), "lfu": (-count.get(k, 0), -last),  # type: ignore[arg-type]
                     "least-stale": ((lay - cur - 1) % n_layers, -last)}[policy]
            if best is None or score > best[0]:
                best = (score, k)
        return None if best is None else best[1]

    def load(k: int, cur: int, tok: int, pinned: set[int], pf: int | None) -> bool:
        nonlocal tick
        if len(cache) >= cap:
            v = victim(cur, pinned)
            if v is None:
                return False
            c["wasted_prefetches"] += cache[v]["pf"] is not None
            del cache[v]
            evicted_tok[v] = tok
            c["evictions"] += 1
        cache[k] = {"last": tick, "ins": tick, "pf": pf}
        tick += 1
        return True

    for r in range(stream.n_rows):
        cur, tok = int(stream.row_layer[r]), int(stream.row_token[r])
        row = stream.keys[stream.row_ptr[r]:stream.row_ptr[r + 1]].tolist()
        pinned = set(row)
        for k in row:
            count[k] = count.get(k, 0) + 1
            if k in cache:
                c["hits"] += 1
                if cache[k]["pf"] is not None:
                    c["prefetch_hits"] += 1
                    cache[k]["pf"] = None
                cache[k]["last"] = tick
                tick += 1
                continue
            c["misses"] += 1
            c["collision_misses"] += evicted_tok.get(k) == tok
            load(k, cur, tok, pinned, None)
        if use_hints:
            for k in stream.hint_keys[stream.hint_ptr[r]:stream.hint_ptr[r + 1]].tolist():
                if k not in cache and load(k, cur, tok, pinned, r):
                    c["prefetches"] += 1
        layer_ran[cur] = r
    return c


def _trace(seed: int) -> tuple[Trace, int, int]:
    rng = np.random.default_rng(seed)
    n_layers, n_experts = int(rng.integers(1, 5)), int(rng.integers(1, 7))
    k, n_tok, h = int(rng.integers(1, min(3, n_experts) + 1)), int(rng.integers(1, 13)), int(rng.integers(0, 3))
    ex = np.stack([rng.permutation(n_experts)[:k] for _ in range(n_layers * n_tok)])
    hints = rng.integers(-1, n_layers * n_experts, (n_layers * n_tok, h))
    tr = Trace(token=np.repeat(np.arange(n_tok), n_layers), layer=np.tile(np.arange(n_layers), n_tok), experts=ex,
               n_layers=n_layers, n_experts=n_experts, hints=hints)
    return tr, int(rng.integers(0, 3)), int(rng.integers(1, 3))


@pytest.mark.parametrize("seed", range(40))
def test_simulator_matches_reference_cache(seed: int) -> None:
    tr, prompt, chunk = _trace(seed)
    st = to_stream(tr, prompt, chunk)
    for cap in range(0, st.n_keys + 2):
        for pol in ("lru", "fifo", "lfu", "least-stale"):
            for hints in (False, True):
                res = simulate(st, pol, cap, use_hints=hints)
                got = {k: res.summary()[k] for k in reference(st, pol, cap, hints)}
                assert got == reference(st, pol, cap, hints), (seed, pol, cap, hints)
                assert res.hit_rate == pytest.approx(got["hits"] / max(len(st.keys), 1))


def test_cache_larger_than_the_model_equals_one_that_holds_every_expert() -> None:
    st = to_stream(_trace(3)[0])
    assert simulate(st, "lru", 10**12).hits == simulate(st, "lru", st.n_keys).hits  # was a MemoryError


def _stream(**kw: object) -> Stream:
    base: dict[str, object] = dict(row_ptr=np.array([0, 1]), keys=np.array([0], np.int32),
                                   row_layer=np.array([0], np.int32), row_token=np.array([0], np.int32),
                                   row_ntok=np.array([1], np.int32), hint_ptr=np.array([0, 0]),
                                   hint_keys=np.zeros(0, np.int32), n_layers=2, n_experts=2)
    return Stream(**{**base, **kw})  # type: ignore[arg-type]


TR = Trace(token=[0, 0, 1, 1], layer=[0, 1, 0, 1], experts=[[0], [1], [1], [0]], n_layers=2, n_experts=2)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: simulate(to_stream(TR), "lru", 1.7), "capacity must be an integer"),  # was silently 1
    (lambda: simulate(to_stream(TR), "lru", True), "capacity must be an integer"),
    (lambda: simulate(to_stream(TR), "lru", -1), "capacity must be >= 0"),
    (lambda: simulate(to_stream(TR), "belady", 1, future=(np.zeros(1), np.zeros(0))), "future must be"),
    (lambda: simulate(_stream(keys=np.array([99], np.int32)), "lru", 1), "'keys' must be global keys"),  # segfault
    (lambda: simulate(_stream(row_ptr=np.array([0, 5])), "lru", 1), "'row_ptr' must be"),
    (lambda: simulate(_stream(row_layer=np.array([7], np.int32)), "least-stale", 1), "'row_layer' must lie"),
    (lambda: simulate(_stream(keys=np.array([2], np.int32)), "lru", 1), "another layer"),
    (lambda: simulate(_stream(n_layers=0), "lru", 1), "'n_layers' must be a positive"),
    (lambda: Trace(token=[0], layer=[0], experts=[[0]], n_layers=0, n_experts=2), "'n_layers' must be a positive"),
    (lambda: Trace(token=[0], layer=[0], experts=[[-1]], n_layers=1, n_experts=0), "'n_experts' must be"),
    (lambda: Trace(token=[0], layer=[0], experts=[[0.7]], n_layers=1, n_experts=2), "'experts' must hold integers"),
    (lambda: Trace(token=[float("nan")], layer=[0], experts=[[0]], n_layers=1, n_experts=2), "'token' must hold"),
    (lambda: Trace(token=[0], layer=[65536], experts=[[0]], n_layers=1, n_experts=2), "'layer' must lie"),
    (lambda: to_stream(TR, prompt_tokens=-1), "prompt_tokens must be"),  # was: every token but the last
    (lambda: to_stream(TR, 1, chunk=0), "chunk must be"),
    (lambda: capacity_slots(to_stream(TR), -0.5), "capacity fraction"),
    (lambda: sweep(to_stream(TR), SweepConfig(capacities=(float("nan"),))), "capacity fraction"),
    (lambda: model_latency(to_stream(TR), simulate(to_stream(TR), "lru", 1), "nope"), "unknown hardware"),
    (lambda: model_latency(to_stream(TR), simulate(to_stream(Trace(
        token=[0], layer=[0], experts=[[0]], n_layers=2, n_experts=2)), "lru", 1), "a100-pcie4"), "not a simulation"),
])
def test_bad_input_raises_one_line_error(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match) as info:
        call()
    assert "\n" not in str(info.value)
