"""Speed of the SpecMD cache simulator: demand accesses simulated per second, one core.

LRU and Least-Stale on an OLMoE-shaped synthetic trace (16 layers x 64 experts, top-8), at 5% and 50%
capacity, without and with next-layer prefetch hints (prefetch loads are extra work not counted as
accesses). Each figure is the best of several runs after a warm-up (numba compiles on first use).
The generic score-scan path (every policy's fallback) is measured beside the list fast paths, and a
plain-Python ``OrderedDict`` LRU on the same accesses is the same-run baseline. Goal: >= 5 million
accesses per second. Writes ``benchmarks/results/specmd_speed.json`` (a flat object) and prints it.

    .venv/bin/python benchmarks/specmd_speed.py
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections import OrderedDict
from importlib import metadata
from pathlib import Path
from typing import Any

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

RESULTS = Path(__file__).resolve().parent / "results" / "specmd_speed.json"
TOKENS = 4096
RUNS = 5
GOAL = 5e6


def _best(fn: Any, runs: int = RUNS) -> float:
    fn()  # warm-up (compiles on first use)
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _ordered_dict_lru(keys: list[int], cap: int) -> int:
    cache: OrderedDict[int, None] = OrderedDict()
    hits = 0
    for k in keys:
        if k in cache:
            hits += 1
            cache.move_to_end(k)
        else:
            if len(cache) >= cap:
                cache.popitem(last=False)
            cache[k] = None
    return hits


def main() -> dict[str, Any]:
    """Measure, write the JSON results file and return its content."""
    from paperworks.backends.specmd._jit import HAVE_NUMBA
    from paperworks.backends.specmd.future import belady_keys
    from paperworks.backends.specmd.prefetch import speculative_hints
    from paperworks.backends.specmd.simulator import simulate
    from paperworks.backends.specmd.synthetic import SyntheticConfig, synthetic_trace
    from paperworks.backends.specmd.trace import to_stream

    stream = to_stream(speculative_hints(synthetic_trace(SyntheticConfig(n_tokens=TOKENS))))
    nu = belady_keys(stream)
    n = len(stream.keys)
    out: dict[str, Any] = {"accesses": n, "goal_accesses_per_s": GOAL, "numba_compiled": HAVE_NUMBA}
    for frac in (0.05, 0.5):
        cap = round(frac * stream.n_keys)
        for hints in (False, True):
            for pol in ("lru", "least-stale"):
                for fast in (True, False):
                    dt = _best(lambda p=pol, c=cap, h=hints, f=fast: simulate(stream, p, c, 0, h, nu, f))
                    tag = f"{pol}_{round(frac * 100)}pct_{'prefetch' if hints else 'demand'}" \
                          f"{'' if fast else '_generic_scan'}"
                    out[f"{tag}_accesses_per_s"] = round(n / dt)
    for hints in (False, True):  # Belady: generic scan plus its per-row admission (offline reference, slower)
        dt = _best(lambda h=hints: simulate(stream, "belady", round(0.05 * stream.n_keys), 0, h, nu))
        out[f"belady_5pct_{'prefetch' if hints else 'demand'}_accesses_per_s"] = round(n / dt)
    keys = stream.keys.tolist()
    dt = _best(lambda: _ordered_dict_lru(keys, round(0.05 * stream.n_keys)), runs=2)
    out["python_ordereddict_lru_5pct_accesses_per_s"] = round(n / dt)
    head = [out[f"{p}_5pct_demand_accesses_per_s"] for p in ("lru", "least-stale")]
    out["speedup_lru_over_python_ordereddict"] = round(out["lru_5pct_demand_accesses_per_s"]
                                                       / out["python_ordereddict_lru_5pct_accesses_per_s"], 1)
    out["min_lru_least_stale_5pct_demand_accesses_per_s"] = min(head)
    out["goal_met"] = min(head) >= GOAL
    out["cpu_count"] = os.cpu_count()
    out["python"] = platform.python_version()
    for dist in ("numpy", "numba", "llvmlite"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
