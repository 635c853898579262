"""Sweeps: every policy over cache capacities (1%-50% of all experts), with hit rates, collision misses
and modeled latency per run, as flat records."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paperworks.backends.specmd.future import belady_keys
from paperworks.backends.specmd.hardware import PRESETS, Hardware, model_latency
from paperworks.backends.specmd.policies import POLICIES, Policy, get_policy
from paperworks.backends.specmd.simulator import simulate
from paperworks.backends.specmd.trace import Stream

CAPACITIES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
"""Cache sizes as fractions of all experts (the issue's 1%-50%)."""


@dataclass
class SweepConfig:
    """What :func:`sweep` runs."""

    policies: Sequence[str | Policy] = tuple(POLICIES)
    """Policies (names of built-ins or Policy objects)."""
    capacities: Sequence[float] = CAPACITIES
    """Cache sizes as fractions of the model's experts."""
    hardware: Sequence[str | Hardware] = ("a100-pcie4",)
    """Hardware presets (or models) to time each run on."""
    use_hints: bool = True
    """Follow the stream's prefetch hints."""
    seed: int = 0
    """Seed of the random policy."""


def capacity_slots(stream: Stream, fraction: float) -> int:
    """Cache slots for ``fraction`` of the model's experts (at least one); ``fraction`` in (0, 1]."""
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction <= 1:
        raise ValueError(f"capacity fraction must lie in (0, 1]; got {fraction!r}")
    return max(1, round(fraction * stream.n_keys))


def sweep(stream: Stream, cfg: SweepConfig | None = None) -> list[dict[str, Any]]:
    """One record per (policy, capacity): the simulation's counts, its hit rate, its share of Belady's
    hits at that capacity (``None`` when Belady has no hits), and modeled TTFT/decode latency per hardware
    preset."""
    cfg = cfg or SweepConfig()
    nu = belady_keys(stream)
    hws = [PRESETS[h] if isinstance(h, str) else h for h in cfg.hardware]
    records: list[dict[str, Any]] = []
    for frac in cfg.capacities:
        cap = capacity_slots(stream, frac)
        belady_hits = simulate(stream, "belady", cap, cfg.seed, cfg.use_hints, nu).hits
        for p in cfg.policies:
            pol = get_policy(p)
            res = simulate(stream, pol, cap, cfg.seed, cfg.use_hints, nu)
            rec: dict[str, Any] = {"fraction": frac, "prefetch": cfg.use_hints, **res.summary(),
                                   "belady_share": round(res.hits / belady_hits, 4) if belady_hits else None}
            for hw in hws:
                lat = model_latency(stream, res, hw, cfg.use_hints)
                rec[f"ttft_ms[{hw.name}]"] = round(lat.ttft_ms, 3)
                rec[f"decode_ms[{hw.name}]"] = round(lat.decode_ms_per_token, 3)
            records.append(rec)
    return records


def pick(records: list[dict[str, Any]], policy: str, fraction: float, prefetch: bool) -> dict[str, Any]:
    """The record of ``policy`` at ``fraction`` with or without prefetching."""
    for r in records:
        if r["policy"] == policy and abs(r["fraction"] - fraction) < 1e-9 and r["prefetch"] == prefetch:
            return r
    raise KeyError(f"no record for {policy} at {fraction} (prefetch={prefetch})")


def collision_ratio(records: list[dict[str, Any]], fraction: float, prefetch: bool) -> tuple[float | None, int, int]:
    """LRU's collision misses over Least-Stale's at ``fraction`` (``None`` when Least-Stale has none), and the
    two counts."""
    lru = int(pick(records, "lru", fraction, prefetch)["collision_misses"])
    ls = int(pick(records, "least-stale", fraction, prefetch)["collision_misses"])
    return (round(lru / ls, 2) if ls else None), lru, ls
