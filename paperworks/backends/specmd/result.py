"""What one simulation measured (:class:`SimResult`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SimResult:
    """What one simulation measured."""

    policy: str
    """Policy name."""
    capacity: int
    """Cache slots (experts)."""
    accesses: int
    """Demand accesses."""
    hits: int
    """Accesses found in the cache (including prefetched entries)."""
    prefetch_hits: int
    """Hits on an entry a prefetch loaded and nothing used before."""
    misses: int
    """Accesses that had to load the expert on demand."""
    collision_misses: int
    """Misses on an expert evicted earlier during the same token."""
    prefetches: int
    """Experts loaded by prefetch hints."""
    wasted_prefetches: int
    """Prefetched experts evicted before any use."""
    evictions: int
    """Entries evicted."""
    outcome: np.ndarray
    """int8 [A]: HIT, MISS or PREFETCH_HIT per access."""
    acc_pf: np.ndarray
    """int64 [A]: for PREFETCH_HIT accesses, the hint index that loaded the expert; else -1."""
    hint_loaded: np.ndarray
    """bool [H]: whether each hint loaded an expert."""

    @property
    def hit_rate(self) -> float:
        """Hits per access."""
        return self.hits / max(self.accesses, 1)

    def summary(self) -> dict[str, float | int | str]:
        """The scalar figures as a dict."""
        return {"policy": self.policy, "capacity": self.capacity, "accesses": self.accesses, "hits": self.hits,
                "hit_rate": round(self.hit_rate, 5), "prefetch_hits": self.prefetch_hits, "misses": self.misses,
                "collision_misses": self.collision_misses, "prefetches": self.prefetches,
                "wasted_prefetches": self.wasted_prefetches, "evictions": self.evictions}
