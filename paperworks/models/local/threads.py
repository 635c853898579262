"""Choosing llama.cpp's thread count per step by measurement, not by a fixed rule.

On a 2-core machine two threads make a step of several tokens (several requests decoding together, or a
prefill chunk) up to about twice as fast as one thread, but only while the cores are free: as soon as
another process competes for them, llama.cpp's threads wait for each other at every barrier and the same
step runs several times slower than on one thread (measured here: four requests together fell from about
390 to 40 tokens/s). Which one is faster therefore changes while the engine runs.

:class:`ThreadTuner` keeps the recent seconds per token of each thread count, separately for steps of
similar size (buckets by powers of two of the tokens fed), uses the faster one, and re-measures the
other one for a couple of steps now and then, so it follows the machine's load. A probe that loses
doubles the wait before the next one (up to ``max_interval`` steps), since under contention a probe of
the slow choice costs many ordinary steps; a probe that wins, or any change of the faster choice, resets
it. Greedy outputs do not
depend on the choice: every dot product is computed by one thread whatever their number.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["ThreadTuner"]


@dataclass
class _Bucket:
    samples: dict[int, deque[float]]
    steps: int = 0
    probing: int | None = None
    probe_left: int = 0
    next_probe: int = 0
    interval: int = 0
    last_best: int | None = None
    chosen: dict[int, int] = field(default_factory=dict)


class ThreadTuner:
    """Per step size, the thread count with the lowest recent seconds per token.

    ``choices`` are the thread counts to try (e.g. ``(1, 2)``). Each is measured ``warmup`` times first;
    afterwards, ``explore_every`` steps of a bucket after the warm-up, the slower one is re-measured for
    ``probe`` steps; each probe that does not make it the faster doubles the interval to the next (at most
    ``max_interval``). A choice's estimate is the median of its last ``window`` samples.
    """

    def __init__(self, choices: Sequence[int], *, warmup: int = 3, explore_every: int = 96, probe: int = 2,
                 window: int = 6, max_interval: int = 1536) -> None:
        picked = sorted({int(c) for c in choices})
        if not picked or picked[0] < 1:
            raise ValueError(f"thread choices must be positive integers, got {list(choices)}")
        if warmup < 1 or probe < 1 or window < 1 or explore_every < 1 or max_interval < explore_every:
            raise ValueError("warmup, probe, window and explore_every must be positive, and max_interval at "
                             "least explore_every")
        self.choices = tuple(picked)
        self.warmup, self.explore_every, self.probe, self.window = warmup, explore_every, probe, window
        self.max_interval = max_interval
        self._buckets: dict[int, _Bucket] = {}

    @staticmethod
    def bucket_of(n_tokens: int) -> int:
        """Steps of 1, 2–3, 4–7, 8–15, … tokens share a bucket."""
        return max(1, n_tokens).bit_length()

    def _bucket(self, n_tokens: int) -> _Bucket:
        key = self.bucket_of(n_tokens)
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = _Bucket({c: deque(maxlen=self.window) for c in self.choices},
                                             next_probe=self.explore_every, interval=self.explore_every)
        return b

    def estimate(self, n_tokens: int, threads: int) -> float | None:
        """Median recent seconds per token of ``threads`` on steps like ``n_tokens`` (None: unmeasured)."""
        samples = self._bucket(n_tokens).samples.get(threads)
        return statistics.median(samples) if samples else None

    def best(self, n_tokens: int) -> int:
        """The measured-fastest choice (the smallest one while nothing is measured)."""
        b = self._bucket(n_tokens)
        measured = [(statistics.median(s), c) for c, s in b.samples.items() if s]
        return min(measured)[1] if measured else self.choices[0]

    def choose(self, n_tokens: int) -> int:
        """The thread count for the next step of ``n_tokens`` tokens."""
        if len(self.choices) == 1:
            return self.choices[0]
        b = self._bucket(n_tokens)
        for c in self.choices:  # warm-up: measure every choice a few times first
            if len(b.samples[c]) < self.warmup:
                return c
        if b.probing is not None:
            return b.probing
        best = self.best(n_tokens)
        if best != b.last_best:  # the load changed: probe at the base rate again
            if b.last_best is not None:
                b.interval, b.next_probe = self.explore_every, b.steps + self.explore_every
            b.last_best = best
        if b.steps >= b.next_probe:
            others = [c for c in self.choices if c != best]
            b.probing = others[(b.steps // self.explore_every) % len(others)]
            b.probe_left = self.probe
            return b.probing
        return best

    def record(self, n_tokens: int, threads: int, seconds: float) -> None:
        """Report that a step of ``n_tokens`` tokens on ``threads`` threads took ``seconds``."""
        b = self._bucket(n_tokens)
        if threads not in b.samples or n_tokens < 1 or not seconds >= 0:
            return
        b.samples[threads].append(seconds / n_tokens)
        b.steps += 1
        b.chosen[threads] = b.chosen.get(threads, 0) + 1
        if b.probing == threads:
            b.probe_left -= 1
            if b.probe_left <= 0:
                b.probing = None
                won = self.best(n_tokens) == threads
                b.interval = self.explore_every if won else min(2 * b.interval, self.max_interval)
                b.next_probe = b.steps + b.interval

    def summary(self) -> dict[str, dict[str, float | int]]:
        """Per bucket (``"4-7"`` tokens): steps per thread count and the current seconds per token."""
        out: dict[str, dict[str, float | int]] = {}
        for key in sorted(self._buckets):
            b = self._buckets[key]
            lo, hi = 1 << (key - 1), (1 << key) - 1
            row: dict[str, float | int] = {}
            for c in self.choices:
                row[f"steps_{c}_threads"] = b.chosen.get(c, 0)
                if b.samples[c]:
                    row[f"ms_per_token_{c}_threads"] = round(1000 * statistics.median(b.samples[c]), 3)
            out[f"{lo}" if lo == hi else f"{lo}-{hi}"] = row
        return out
