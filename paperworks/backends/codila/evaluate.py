"""Validity, accuracy, decoding steps and wall-clock throughput of a decoder on held-out prompts."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from paperworks.backends.codila.data import Example, is_correct, is_valid
from paperworks.core.errors import UserError

Decoder = Callable[[torch.Tensor, int, int, torch.Generator], tuple[torch.Tensor, int]]
"""``(ids, start, end, generator) -> (decoded ids, forward passes per sequence)``."""


@dataclass
class Score:
    """One decoder on one task."""

    valid: float
    """Share of sequences whose region is well formed (code: parses and type-checks; arithmetic: a number)."""
    correct: float
    """Arithmetic: share with the right answer; code: the same as ``valid``."""
    steps: float
    """Forward passes of the big network per sequence."""
    seconds: float
    """Wall time of the whole decode."""
    cpu_seconds: float
    """Process CPU time of the whole decode (steadier than wall time on a shared machine)."""
    tokens: int
    """Generated positions (padding included)."""

    @property
    def tokens_per_s(self) -> float:
        """Generated positions per second of wall time."""
        return self.tokens / max(self.seconds, 1e-9)

    @property
    def tokens_per_cpu_s(self) -> float:
        """Generated positions per second of process CPU time."""
        return self.tokens / max(self.cpu_seconds, 1e-9)


def evaluate(decoder: Decoder, data: Sequence[Example], seed: int, batch: int = 128) -> Score:
    """Decode every example of one task (all share one span) in batches; ``seed`` fixes the sampling."""
    if not data:
        raise UserError("no examples to evaluate")
    start, end = data[0].start, data[0].end
    if any((ex.start, ex.end) != (start, end) for ex in data):
        raise UserError("examples of one evaluation must share their generated span")
    g = torch.Generator().manual_seed(seed)
    valid = correct = 0
    steps = 0
    elapsed = cpu = 0.0
    for i in range(0, len(data), batch):
        chunk = data[i:i + batch]
        ids = torch.tensor([ex.ids for ex in chunk], dtype=torch.long)
        t0, c0 = time.perf_counter(), time.process_time()
        out, n = decoder(ids, start, end, g)
        elapsed += time.perf_counter() - t0
        cpu += time.process_time() - c0
        steps += n * len(chunk)
        for ex, row in zip(chunk, out.tolist(), strict=True):
            valid += is_valid(ex, row)
            correct += is_correct(ex, row)
    n_all = len(data)
    return Score(valid / n_all, correct / n_all, steps / n_all, elapsed, cpu, n_all * (end - start))
