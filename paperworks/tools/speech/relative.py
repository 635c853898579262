"""Features relative to the neutral reading of the same text and voice.

:func:`relative` turns two :class:`~paperworks.tools.speech.features.Features` into a
:class:`Relative`: differences for quantities already on a log scale (semitones, dB, dB/octave)
and ratios for durations and rates. :meth:`Relative.control_estimate` reads those deltas back in
the units of the control vector (what a render would have needed to produce them), which is how
intent compliance and the fast loop's control error are measured.
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields
from typing import Any

import numpy as np

from paperworks.tools.speech.features import Features

_NAN = float("nan")


def _ratio(a: float, b: float) -> float:
    return a / b if math.isfinite(a) and math.isfinite(b) and b > 0 else _NAN


@dataclass(frozen=True)
class Relative:
    """Deltas of an utterance against its neutral reading (stable order: :data:`RELATIVE_NAMES`)."""

    f0_shift_st: float
    """Mean F0 difference (semitones)."""
    f0_range_ratio: float
    """F0 range (10-90 percentile span) ratio."""
    f0_slope_delta: float
    """F0 slope difference (semitones per second)."""
    f0_final_delta: float
    """Final F0 movement difference (semitones)."""
    energy_delta_db: float
    """Level difference (dB)."""
    energy_sd_delta_db: float
    """Level-spread difference (dB)."""
    tempo_ratio: float
    """Neutral articulation time / this articulation time (sounding span minus pauses); 1.3 = 30% faster."""
    rate_ratio: float
    """Articulation-rate ratio (syllable nuclei per second of articulation)."""
    duration_ratio: float
    """Sounding-span ratio (this / neutral)."""
    pause_delta_s: float
    """Total pause difference (s)."""
    pause_ratio: float
    """Total pause ratio (NaN when the neutral reading has no pause)."""
    jitter_delta: float
    """Local jitter difference (fraction)."""
    shimmer_delta: float
    """Local shimmer difference (fraction)."""
    hnr_delta_db: float
    """HNR difference (dB); breathiness lowers it."""
    tilt_delta_db_per_oct: float
    """Spectral tilt difference (dB per octave)."""

    def to_array(self) -> np.ndarray:
        """float32 array in :data:`RELATIVE_NAMES` order (NaN where unmeasurable)."""
        return np.array(astuple(self), dtype=np.float32)

    def as_dict(self) -> dict[str, float | None]:
        """``{name: value}`` with None for NaN (JSON-friendly)."""
        return {k: (None if math.isnan(v) else v) for k, v in zip(RELATIVE_NAMES, astuple(self), strict=True)}

    def control_estimate(self) -> dict[str, float]:
        """The control values these deltas correspond to, by control-vector name (NaN if unknown).

        ``f0_shift_st``, ``f0_slope_st_per_s``, ``f0_final_st``, ``intensity_db`` and
        ``tilt_db_per_oct`` are differences; ``f0_range_scale``, ``tempo_scale`` and ``pause_scale``
        ratios. Breathiness has no direct estimate (see ``hnr_delta_db``)."""
        pause = self.pause_ratio * self.tempo_ratio if math.isfinite(self.pause_ratio) else _NAN
        return {
            "f0_shift_st": self.f0_shift_st,
            "f0_range_scale": self.f0_range_ratio,
            "f0_slope_st_per_s": self.f0_slope_delta,
            "f0_final_st": self.f0_final_delta,
            "tempo_scale": self.tempo_ratio,
            "pause_scale": pause,
            "intensity_db": self.energy_delta_db,
            "tilt_db_per_oct": self.tilt_delta_db_per_oct,
        }


RELATIVE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Relative))
"""Relative-feature names in array order."""


def relative(features: Features, neutral: Features) -> Relative:
    """``features`` against ``neutral`` (the same text and voice read neutrally)."""
    f, n = features, neutral
    art_f, art_n = f.duration_s - f.pause_total_s, n.duration_s - n.pause_total_s
    return Relative(
        f0_shift_st=f.f0_mean_st - n.f0_mean_st,
        f0_range_ratio=_ratio(f.f0_range_st, n.f0_range_st),
        f0_slope_delta=f.f0_slope_st_per_s - n.f0_slope_st_per_s,
        f0_final_delta=f.f0_final_st - n.f0_final_st,
        energy_delta_db=f.energy_db - n.energy_db,
        energy_sd_delta_db=f.energy_sd_db - n.energy_sd_db,
        tempo_ratio=_ratio(art_n, art_f),
        rate_ratio=_ratio(f.articulation_rate, n.articulation_rate),
        duration_ratio=_ratio(f.duration_s, n.duration_s),
        pause_delta_s=f.pause_total_s - n.pause_total_s,
        pause_ratio=_ratio(f.pause_total_s, n.pause_total_s),
        jitter_delta=f.jitter_local - n.jitter_local,
        shimmer_delta=f.shimmer_local - n.shimmer_local,
        hnr_delta_db=f.hnr_db - n.hnr_db,
        tilt_delta_db_per_oct=f.spectral_tilt_db_per_oct - n.spectral_tilt_db_per_oct,
    )


def relative_from_arrays(features: Any, neutral: Any) -> Relative:
    """:func:`relative` on feature arrays (``Features.to_array`` order)."""
    return relative(Features.from_array(features), Features.from_array(neutral))
