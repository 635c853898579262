"""Per-phase peak resident memory (paperworks/train/memory.py)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from paperworks.train.memory import PhaseMemory, rss_mb

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")


def test_each_phase_reports_its_own_peak_and_the_overall_peak_keeps_the_largest() -> None:
    """A phase that touches 300 MB peaks about 300 MB above the process's size; the next phase, which
    allocates nothing, peaks near the size again (the high-water mark was reset between them), and the
    overall peak remembers the first phase's."""
    mem = PhaseMemory()
    base = rss_mb()
    assert base is not None
    with mem.phase("big"):
        block = np.ones(300 * 2**20 // 8)  # 300 MB, written
        assert block.sum() > 0
        del block
    with mem.phase("small"):
        pass
    assert mem.peaks["big"] >= base + 250
    assert mem.peaks["small"] < mem.peaks["big"] - 200
    assert mem.peak() >= mem.peaks["big"]
    again = PhaseMemory(mem.peaks)  # as restored from a checkpoint
    assert again.peak() >= mem.peaks["big"] and again.peaks == mem.peaks
