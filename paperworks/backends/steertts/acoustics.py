"""Acoustic vectors beyond ``tools.speech.measure``: the long-term spectral envelope that carries most of a
voice's identity, the neutral-reading context the surrogate conditions on, and the encoder input that the
disentanglement module reads (numpy only)."""

from __future__ import annotations

import numpy as np

from paperworks.tools.speech.audio import Audio
from paperworks.tools.speech.features import FEATURE_NAMES, Features
from paperworks.tools.speech.segments import SILENCE_DB, loud_level

N_BANDS = 24
"""Mel bands of :func:`spectral_envelope`."""
BAND_HZ = (80.0, 7600.0)
"""Lowest and highest band edge (Hz)."""

CONTEXT_NAMES: tuple[str, ...] = ("f0_mean_st", "f0_range_st", "duration_s", "pause_total_s",
                                  "spectral_tilt_db_per_oct", "hnr_db", "articulation_rate", "f0_slope_st_per_s")
"""Features of the neutral reading that the surrogate conditions on (the voice and text it renders)."""
CONTEXT_SCALE = np.array([12.0, 6.0, 2.0, 0.3, 6.0, 10.0, 5.0, 2.0], dtype=np.float32)
CONTEXT_CENTRE = np.array([36.0, 5.0, 2.0, 0.2, -12.0, 10.0, 5.0, -1.0], dtype=np.float32)
"""``context_vector`` is ``(raw - CONTEXT_CENTRE) / CONTEXT_SCALE``."""


def _mel(hz: np.ndarray) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + hz / 700.0)


def _hz(mel: np.ndarray) -> np.ndarray:
    return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)


def spectral_envelope(audio: Audio) -> np.ndarray:
    """Long-term average spectrum of the sounding frames in :data:`N_BANDS` mel bands (dB), with the mean
    over bands removed (level-independent). float32, shape (N_BANDS,); zeros for audio too short to frame."""
    x = audio.samples.astype(np.float64)
    n = 1024 if audio.sr <= 24000 else 2048
    if len(x) < n:
        return np.zeros(N_BANDS, dtype=np.float32)
    frames = np.lib.stride_tricks.sliding_window_view(x, n)[:: n // 2]
    level = 10.0 * np.log10(np.maximum(np.mean(frames**2, axis=1), 1e-12))
    frames = frames[level >= loud_level(level) - SILENCE_DB]
    power = np.mean(np.abs(np.fft.rfft(frames * np.hanning(n), axis=1)) ** 2, axis=0)
    freqs = np.fft.rfftfreq(n, 1.0 / audio.sr)
    top = min(BAND_HZ[1], 0.45 * audio.sr)
    edges = _hz(np.linspace(_mel(np.array(BAND_HZ[0])), _mel(np.array(top)), N_BANDS + 1))
    bands = np.empty(N_BANDS)
    for i in range(N_BANDS):
        sel = (freqs >= edges[i]) & (freqs < edges[i + 1])
        bands[i] = 10.0 * np.log10(max(float(power[sel].mean()) if sel.any() else 1e-20, 1e-20))
    return (bands - bands.mean()).astype(np.float32)


def context_vector(neutral: Features) -> np.ndarray:
    """The neutral reading's :data:`CONTEXT_NAMES`, centred and scaled to about unit size (NaN -> 0)."""
    raw = np.array([getattr(neutral, n) for n in CONTEXT_NAMES], dtype=np.float32)
    return np.nan_to_num((raw - CONTEXT_CENTRE) / CONTEXT_SCALE).astype(np.float32)


ENCODER_NAMES: tuple[str, ...] = (*FEATURE_NAMES, *(f"band_{i}" for i in range(N_BANDS)))
"""What the disentanglement encoders read: the 18 measured features, then the spectral envelope."""


def encoder_input(features: Features | np.ndarray, envelope: np.ndarray) -> np.ndarray:
    """One encoder input row (:data:`ENCODER_NAMES` order; NaN kept: the model standardises and fills them)."""
    f = features.to_array() if isinstance(features, Features) else np.asarray(features, dtype=np.float32)
    return np.concatenate([f, np.asarray(envelope, dtype=np.float32)]).astype(np.float32)
