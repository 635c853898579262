"""Per-phase peak resident memory (paperworks/train/memory.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")

SCRIPT = """
import json
import numpy as np
from paperworks.train.memory import PhaseMemory, rss_mb
mem = PhaseMemory()
base = rss_mb()
with mem.phase("big"):
    block = np.ones(300 * 2**20 // 8)  # 300 MB, written
    assert block.sum() > 0
    del block
with mem.phase("small"):
    pass
again = PhaseMemory(mem.peaks)
print(json.dumps({"base": base, "peaks": mem.peaks, "peak": mem.peak(), "again": again.peak(),
                  "again_peaks": again.peaks}))
"""


def test_each_phase_reports_its_own_peak_and_the_overall_peak_keeps_the_largest() -> None:
    """A phase that touches 300 MB peaks about 300 MB above the process's size; the next phase, which
    allocates nothing, peaks near the size again (the high-water mark was reset between them), and the
    overall peak remembers the first phase's. Run in a fresh process: a long-lived test worker's heap may
    already hold freed pages that the 300 MB reuses."""
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    peaks = got["peaks"]
    assert peaks["big"] >= got["base"] + 250
    assert peaks["small"] < peaks["big"] - 200
    assert got["peak"] >= peaks["big"]
    assert got["again"] >= peaks["big"] and got["again_peaks"] == peaks
