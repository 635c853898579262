"""Measurement: one function, :func:`measure`, from audio to a fixed feature vector.

Methods (parselmouth 0.4.7 = Praat 6.1.38, and numpy):

- F0: Praat's autocorrelation pitch (10 ms step), two passes (Hirst 2011; De Looze & Hirst 2008):
  a first pass over 50-800 Hz sets the second pass's range to [0.6 * q15, 2.0 * q85] (clamped to
  40-1000 Hz). Values are in Hz and in semitones re 100 Hz, over voiced frames.
  ``f0_mean_st`` is the mean of the per-frame semitones; ``f0_range_st`` the 10th-90th percentile
  span (robust to octave errors); ``f0_slope_st_per_s`` the least-squares slope over time;
  ``f0_final_st`` the least-squares slope over the last 0.3 s of voicing times 0.3 s.
- Energy: RMS level (dB re full scale) of the non-silent frames and their level spread (``segments``).
- Rate: syllable nuclei (de Jong & Wempe 2009, see ``segments``) per second of the sounding span
  (``speech_rate``) and per second of that span minus pauses (``articulation_rate``).
- Pauses: silences >= 0.1 s inside the sounding span (``segments.pauses``).
- Voice quality: local jitter and shimmer (fractions; Praat's defaults 0.0001-0.02 s periods,
  factor 1.3, amplitude factor 1.6) on a cross-correlation point process; HNR (dB) the mean of
  Praat's cross-correlation harmonicity over its voiced frames.
- Spectral tilt: slope (dB/octave) of the long-term average spectrum of the non-silent frames,
  band-averaged in half-octave bands from 250 Hz to min(8 kHz, 0.45 sr), against log2(frequency).

Unmeasurable values (no voicing, no pauses to time) are NaN in :class:`Features`.
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields
from typing import Any

import numpy as np

from paperworks.tools.speech._praat import call, sound
from paperworks.tools.speech.audio import Audio
from paperworks.tools.speech.segments import (
    SILENCE_DB,
    frame_db,
    loud_level,
    pauses,
    speech_bounds,
    speech_level,
    syllable_nuclei,
)

FIRST_PASS_HZ = (50.0, 800.0)
"""Pitch range of the first pass (Hz): wide enough for a 100 Hz voice shifted down an octave."""
FINAL_WINDOW_S = 0.3
"""Window of ``f0_final_st`` (s)."""
_NAN = float("nan")


@dataclass(frozen=True)
class Features:
    """What :func:`measure` reports about one utterance (stable order: :data:`FEATURE_NAMES`)."""

    f0_mean_hz: float
    """Mean F0 of voiced frames (Hz)."""
    f0_mean_st: float
    """Mean F0 in semitones re 100 Hz (mean of per-frame semitones)."""
    f0_range_st: float
    """10th-90th percentile F0 span (semitones)."""
    f0_sd_st: float
    """Standard deviation of F0 (semitones)."""
    f0_slope_st_per_s: float
    """Least-squares F0 slope over the utterance (semitones per second)."""
    f0_final_st: float
    """F0 movement over the last 0.3 s of voicing (semitones; rise > 0)."""
    energy_db: float
    """RMS level of the non-silent frames (dB re full scale)."""
    energy_sd_db: float
    """Spread of the non-silent frame levels (dB)."""
    speech_rate: float
    """Syllable nuclei per second of the sounding span."""
    articulation_rate: float
    """Syllable nuclei per second of the sounding span minus pauses."""
    duration_s: float
    """Sounding span: first to last non-silent frame (s)."""
    pause_count: float
    """Silences >= 0.1 s inside the sounding span."""
    pause_total_s: float
    """Their total length (s)."""
    voiced_fraction: float
    """Voiced share of the non-silent frames."""
    jitter_local: float
    """Local jitter (fraction of the mean period)."""
    shimmer_local: float
    """Local shimmer (fraction of the mean amplitude)."""
    hnr_db: float
    """Harmonics-to-noise ratio (dB)."""
    spectral_tilt_db_per_oct: float
    """Long-term spectral slope (dB per octave)."""

    def to_array(self) -> np.ndarray:
        """float32 array in :data:`FEATURE_NAMES` order (NaN where unmeasurable)."""
        return np.array(astuple(self), dtype=np.float32)

    @classmethod
    def from_array(cls, array: Any) -> Features:
        """Inverse of :meth:`to_array`."""
        arr = np.asarray(array, dtype=np.float64).reshape(-1)
        if arr.shape[0] != len(FEATURE_NAMES):
            raise ValueError(f"feature array must have {len(FEATURE_NAMES)} values, got {arr.shape[0]}")
        return cls(*(float(v) for v in arr))

    def as_dict(self) -> dict[str, float | None]:
        """``{name: value}`` with None for NaN (JSON-friendly)."""
        return {k: (None if math.isnan(v) else v) for k, v in zip(FEATURE_NAMES, astuple(self), strict=True)}


FEATURE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Features))
"""Feature names in array order."""


def _pitch(snd: Any, floor: float, ceiling: float) -> Any:
    return snd.to_pitch_ac(time_step=0.01, pitch_floor=floor, pitch_ceiling=ceiling)


def f0_track(audio: Audio) -> tuple[np.ndarray, np.ndarray]:
    """Voiced frame times (s) and F0 (Hz) by the two-pass method above (empty when unvoiced)."""
    times, hz, _, _ = _track(sound(audio))
    return times, hz


def _track(snd: Any) -> tuple[np.ndarray, np.ndarray, Any, float]:
    """Voiced times, F0 (Hz), the Praat Pitch object and the floor it used."""
    first = _pitch(snd, FIRST_PASS_HZ[0], FIRST_PASS_HZ[1])
    f = first.selected_array["frequency"]
    f = f[f > 0]
    if len(f) < 3:
        return np.zeros(0), np.zeros(0), first, FIRST_PASS_HZ[0]
    lo, hi = np.percentile(f, [15, 85])
    floor = max(40.0, 0.6 * float(lo))
    pitch = _pitch(snd, floor, min(1000.0, 2.0 * float(hi)))
    hz = pitch.selected_array["frequency"]
    t = pitch.xs()
    voiced = hz > 0
    return t[voiced], hz[voiced], pitch, floor


def _slope(t: np.ndarray, y: np.ndarray) -> float:
    if len(t) < 3 or float(np.ptp(t)) <= 0:
        return _NAN
    return float(np.polyfit(t, y, 1)[0])


def _tilt(audio: Audio) -> float:
    x = audio.samples.astype(np.float64)
    n = 1024 if audio.sr <= 24000 else 2048
    if len(x) < n:
        return _NAN
    hop = n // 2
    frames = np.lib.stride_tricks.sliding_window_view(x, n)[::hop]
    level = 10.0 * np.log10(np.maximum(np.mean(frames**2, axis=1), 1e-12))
    frames = frames[level >= loud_level(level) - SILENCE_DB]
    power = np.mean(np.abs(np.fft.rfft(frames * np.hanning(n), axis=1)) ** 2, axis=0)
    freqs = np.fft.rfftfreq(n, 1.0 / audio.sr)
    top = min(8000.0, 0.45 * audio.sr)
    edges = 250.0 * 2.0 ** (np.arange(0, 20) / 2.0)
    edges = edges[edges <= top]
    centres, band_db = [], []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        sel = (freqs >= lo) & (freqs < hi)
        if sel.any():
            centres.append(math.sqrt(lo * hi))
            band_db.append(10.0 * math.log10(max(float(power[sel].mean()), 1e-20)))
    return _slope(np.log2(np.array(centres)), np.array(band_db)) if len(centres) >= 3 else _NAN


def _voice_quality(snd: Any, pitch: Any, floor: float, voiced: bool) -> tuple[float, float, float]:
    if not voiced:
        return _NAN, _NAN, _NAN
    points = call([snd, pitch], "To PointProcess (cc)")
    jitter = float(call(points, "Get jitter (local)", 0, 0, 0.0001, 0.02, 1.3))
    shimmer = float(call([snd, points], "Get shimmer (local)", 0, 0, 0.0001, 0.02, 1.3, 1.6))
    harm = snd.to_harmonicity_cc(time_step=0.01, minimum_pitch=floor, silence_threshold=0.1,
                                 periods_per_window=1.0)
    h = harm.values.reshape(-1)
    h = h[h > -100.0]
    hnr = float(h.mean()) if len(h) else _NAN
    return (jitter if math.isfinite(jitter) else _NAN, shimmer if math.isfinite(shimmer) else _NAN, hnr)


def measure(audio: Audio) -> Features:
    """The :class:`Features` of ``audio`` (see the module docstring for each method)."""
    snd = sound(audio)
    t, hz, pitch, floor = _track(snd)
    st = 12.0 * np.log2(hz / 100.0) if len(hz) else np.zeros(0)
    start, end = speech_bounds(audio.samples, audio.sr)
    span = max(end - start, 0.0)
    gaps = pauses(audio.samples, audio.sr)
    pause_total = float(sum(e - s for s, e in gaps))
    energy, energy_sd = speech_level(audio.samples, audio.sr)
    _, db = frame_db(audio.samples, audio.sr)
    n_sounding = int(np.sum(db >= loud_level(db) - SILENCE_DB)) if len(db) else 0

    def voiced_at(times: np.ndarray) -> np.ndarray:
        if not len(t):
            return np.zeros(len(times), dtype=bool)
        return np.min(np.abs(times[:, None] - t[None, :]), axis=1) <= 0.02

    nuclei = syllable_nuclei(audio.samples, audio.sr, voiced_at)
    final = t >= (t[-1] - FINAL_WINDOW_S) if len(t) else np.zeros(0, dtype=bool)
    final_slope = _slope(t[final], st[final]) if len(t) else _NAN
    jitter, shimmer, hnr = _voice_quality(snd, pitch, floor, len(t) >= 3)
    has_f0 = len(st) >= 3
    return Features(
        f0_mean_hz=float(hz.mean()) if has_f0 else _NAN,
        f0_mean_st=float(st.mean()) if has_f0 else _NAN,
        f0_range_st=float(np.subtract(*np.percentile(st, [90, 10]))) if has_f0 else _NAN,
        f0_sd_st=float(st.std()) if has_f0 else _NAN,
        f0_slope_st_per_s=_slope(t, st) if has_f0 else _NAN,
        f0_final_st=final_slope * FINAL_WINDOW_S if math.isfinite(final_slope) else _NAN,
        energy_db=energy,
        energy_sd_db=energy_sd,
        speech_rate=len(nuclei) / span if span > 0 else _NAN,
        articulation_rate=len(nuclei) / (span - pause_total) if span - pause_total > 0 else _NAN,
        duration_s=span,
        pause_count=float(len(gaps)),
        pause_total_s=pause_total,
        voiced_fraction=min(1.0, len(t) / n_sounding) if n_sounding else _NAN,
        jitter_local=jitter,
        shimmer_local=shimmer,
        hnr_db=hnr,
        spectral_tilt_db_per_oct=_tilt(audio),
    )
