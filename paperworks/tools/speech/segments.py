"""Short-time energy, silences/pauses and syllable nuclei (numpy only).

Shared by the renderer (pause lengthening acts on the pauses found here) and by the measurement,
so that "a pause" means the same thing on both sides.

- Frames: 30 ms rectangular windows every 10 ms; level in dB re full scale (floor -120 dB).
- Silence: frames more than :data:`SILENCE_DB` below the loud level (95th percentile of frame
  levels), so the threshold moves with the signal's gain. A pause is a silent run of at least
  :data:`MIN_PAUSE_S` strictly inside the speech (leading and trailing silence are not pauses).
- Syllable nuclei, after de Jong & Wempe (2009, Behavior Research Methods 41:385): peaks of a
  50 ms-smoothed level contour that lie above the loud level minus :data:`NUCLEUS_DB`, separated
  from the neighbouring peak by a dip of at least :data:`MIN_DIP_DB`, and voiced (when a voicing
  test is given).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

HOP_S = 0.01
"""Frame step (s)."""
WIN_S = 0.03
"""Frame length (s)."""
SILENCE_DB = 30.0
"""A frame this many dB below the loud level (95th percentile) is silent."""
MIN_PAUSE_S = 0.1
"""Shortest silence counted as a pause (stop closures are 30-60 ms; espeak-ng's comma pause is 0.15 s)."""
NUCLEUS_DB = 25.0
"""Syllable peaks must lie within this many dB of the loud level."""
MIN_DIP_DB = 2.0
"""Dip between two peaks needed to count them as two syllables."""


def frame_db(samples: np.ndarray, sr: int, hop_s: float = HOP_S, win_s: float = WIN_S) -> tuple[np.ndarray, np.ndarray]:
    """Frame centre times (s) and RMS levels (dB re 1.0, floored at -120) of ``samples``."""
    x = np.asarray(samples, dtype=np.float64)
    hop, win = max(1, round(hop_s * sr)), max(1, round(win_s * sr))
    n = max(0, 1 + (len(x) - win) // hop) if len(x) >= win else (1 if len(x) else 0)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    c = np.concatenate([[0.0], np.cumsum(x * x)])
    starts = np.arange(n) * hop
    ends = np.minimum(starts + win, len(x))
    power = (c[ends] - c[starts]) / np.maximum(ends - starts, 1)
    db = 10.0 * np.log10(np.maximum(power, 1e-12))
    return (starts + (ends - starts) / 2.0) / sr, db


def loud_level(db: np.ndarray) -> float:
    """The signal's loud level: 95th percentile of frame levels (dB)."""
    return float(np.percentile(db, 95)) if len(db) else -120.0


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Half-open index runs where ``mask`` is true."""
    m = np.concatenate([[False], mask.astype(bool), [False]])
    d = np.flatnonzero(np.diff(m.astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(d[::2], d[1::2], strict=True)]


def silent_mask(samples: np.ndarray, sr: int) -> tuple[np.ndarray, np.ndarray]:
    """Frame times and a boolean mask of silent frames."""
    t, db = frame_db(samples, sr)
    return t, db < loud_level(db) - SILENCE_DB


def speech_level(samples: np.ndarray, sr: int) -> tuple[float, float]:
    """Level of the sounding part: mean and standard deviation (dB) over non-silent frames.

    The mean is of frame power (so it is the RMS level in dB re full scale); ``(-120, 0)`` when silent."""
    _, db = frame_db(samples, sr)
    if not len(db):
        return -120.0, 0.0
    loud = db[db >= loud_level(db) - SILENCE_DB]
    return float(10.0 * np.log10(np.mean(10.0 ** (loud / 10.0)))), float(np.std(loud))


def speech_bounds(samples: np.ndarray, sr: int) -> tuple[float, float]:
    """Start and end (s) of the sounding part: first and last non-silent frame edges.

    ``(0.0, 0.0)`` when everything is silent."""
    t, silent = silent_mask(samples, sr)
    idx = np.flatnonzero(~silent)
    if len(idx) == 0 or len(samples) == 0:
        return 0.0, 0.0
    half = WIN_S / 2.0
    return max(0.0, float(t[idx[0]] - half)), min(len(samples) / sr, float(t[idx[-1]] + half))


def pauses(samples: np.ndarray, sr: int, min_pause_s: float = MIN_PAUSE_S) -> list[tuple[float, float]]:
    """Silences of at least ``min_pause_s`` strictly inside the sounding part, as (start, end) seconds."""
    t, silent = silent_mask(samples, sr)
    if not len(t) or silent.all():
        return []
    first, last = np.flatnonzero(~silent)[[0, -1]]
    out = []
    for a, b in _runs(silent):
        if a <= first or b > last:
            continue
        start, end = float(t[a] - WIN_S / 2.0), float(t[b - 1] + WIN_S / 2.0)
        if end - start >= min_pause_s - 1e-9:
            out.append((start, end))
    return out


def syllable_nuclei(samples: np.ndarray, sr: int,
                    voiced: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """Times (s) of syllable nuclei (de Jong & Wempe 2009; see the module docstring).

    ``voiced(times) -> bool array`` rejects unvoiced peaks (e.g. from a pitch track)."""
    t, db = frame_db(samples, sr)
    if len(db) < 3:
        return np.zeros(0)
    k = max(1, round(0.05 / HOP_S))
    db = np.convolve(db, np.hanning(k + 2)[1:-1] / np.hanning(k + 2)[1:-1].sum(), mode="same")
    floor = loud_level(db) - NUCLEUS_DB
    peaks = np.flatnonzero((db[1:-1] > db[:-2]) & (db[1:-1] >= db[2:]) & (db[1:-1] > floor)) + 1
    kept: list[int] = []
    cand = -1
    for p in peaks:
        if cand < 0:
            cand = int(p)
            continue
        dip = float(db[cand:p + 1].min())
        if min(db[cand], db[p]) - dip >= MIN_DIP_DB:
            kept.append(cand)
            cand = int(p)
        elif db[p] > db[cand]:
            cand = int(p)
    if cand >= 0:
        kept.append(cand)
    times = t[np.array(kept, dtype=int)] if kept else np.zeros(0)
    if voiced is not None and len(times):
        times = times[np.asarray(voiced(times), dtype=bool)]
    return times


def pause_time_before(times: np.ndarray, spans: list[tuple[float, float]]) -> np.ndarray:
    """Total pause time in ``spans`` that lies before each of ``times`` (vectorised)."""
    times = np.asarray(times, dtype=np.float64)
    out = np.zeros_like(times)
    for s, e in spans:
        out += np.clip(times - s, 0.0, e - s)
    return out
