"""Voice-quality shaping after PSOLA: breathiness, spectral tilt and level (numpy FFT filters).

- Breathiness: band-limited (0.5-8 kHz) Gaussian noise whose short-time RMS follows the signal's
  envelope, mixed at ``0.8 * breathiness`` of the signal's level, then rescaled to the input RMS.
  The noise is seeded, so a render is deterministic.
- Tilt: a zero-phase filter with gain ``tilt * log2(f / 1 kHz)`` dB (f clamped to >= 80 Hz,
  gain limited to +-30 dB), rescaled to the input RMS: it changes the spectral balance, not the level.
- Intensity: a plain gain in dB.

Tilt and breathiness keep the RMS so that ``intensity_db`` alone moves the measured energy.
"""

from __future__ import annotations

import numpy as np

from paperworks.tools.speech.audio import Audio
from paperworks.tools.speech.control import ControlVector

TILT_PIVOT_HZ = 1000.0
"""Frequency where the tilt filter's gain is 0 dB."""
TILT_FLOOR_HZ = 80.0
"""Below this frequency the tilt filter's gain stays constant."""
BREATH_BAND_HZ = (500.0, 8000.0)
"""Band of the aspiration noise."""
BREATH_LEVEL = 0.8
"""Noise-to-signal RMS ratio at breathiness 1."""
_SEED = 20260


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0


def _keep_rms(y: np.ndarray, ref: float) -> np.ndarray:
    r = _rms(y)
    return y * (ref / r) if r > 0 and ref > 0 else y


def tilt(samples: np.ndarray, sr: int, db_per_oct: float) -> np.ndarray:
    """``samples`` with ``db_per_oct`` of spectral tilt added around 1 kHz, same RMS (float64)."""
    x = np.asarray(samples, dtype=np.float64)
    if db_per_oct == 0.0 or len(x) < 2:
        return x
    spec = np.fft.rfft(x)
    f = np.maximum(np.fft.rfftfreq(len(x), 1.0 / sr), TILT_FLOOR_HZ)
    gain_db = np.clip(db_per_oct * np.log2(f / TILT_PIVOT_HZ), -30.0, 30.0)
    y = np.fft.irfft(spec * 10.0 ** (gain_db / 20.0), n=len(x))
    return _keep_rms(y, _rms(x))


def _envelope(x: np.ndarray, sr: int, win_s: float = 0.02) -> np.ndarray:
    k = max(1, round(win_s * sr))
    c = np.concatenate([[0.0], np.cumsum(x * x)])
    idx = np.arange(len(x))
    lo, hi = np.clip(idx - k // 2, 0, len(x)), np.clip(idx + k // 2 + 1, 0, len(x))
    return np.asarray(np.sqrt((c[hi] - c[lo]) / np.maximum(hi - lo, 1)))


def breathe(samples: np.ndarray, sr: int, amount: float) -> np.ndarray:
    """``samples`` with envelope-following aspiration noise mixed in, same RMS (float64)."""
    x = np.asarray(samples, dtype=np.float64)
    if amount <= 0.0 or len(x) < 2:
        return x
    noise = np.random.default_rng(_SEED).standard_normal(len(x))
    spec = np.fft.rfft(noise)
    f = np.fft.rfftfreq(len(x), 1.0 / sr)
    lo, hi = BREATH_BAND_HZ
    spec[(f < lo) | (f > min(hi, 0.45 * sr))] = 0.0
    noise = np.fft.irfft(spec, n=len(x))
    noise /= max(_rms(noise), 1e-12)
    y = x + BREATH_LEVEL * amount * noise * _envelope(x, sr)
    return _keep_rms(y, _rms(x))


def shape(audio: Audio, control: ControlVector) -> Audio:
    """Apply breathiness, then tilt, then the level change of ``control`` to ``audio``."""
    x = breathe(audio.samples, audio.sr, control.breathiness)
    x = tilt(x, audio.sr, control.tilt_db_per_oct)
    if control.intensity_db:
        x = x * 10.0 ** (control.intensity_db / 20.0)
    return Audio(np.asarray(x, dtype=np.float32), audio.sr)
