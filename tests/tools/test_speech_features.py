"""Measurement against synthetic signals whose F0, level, rate, pauses and tilt are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperworks.tools.speech import Audio, Features, measure, relative
from paperworks.tools.speech.features import FEATURE_NAMES
from paperworks.tools.speech.relative import RELATIVE_NAMES
from paperworks.tools.speech.segments import frame_db, pauses, speech_bounds, syllable_nuclei

pytest.importorskip("parselmouth")

SR = 16000


def harmonic(f0: float | np.ndarray, seconds: float, tilt_db_per_oct: float = -6.0, sr: int = SR) -> np.ndarray:
    """A glottal-pulse-like harmonic tone: harmonics up to 0.45 sr, amplitude k**(tilt/6.02).

    ``f0`` may be an array (one value per sample) for a glide."""
    n = round(seconds * sr)
    f = np.broadcast_to(np.asarray(f0, dtype=np.float64), (n,))
    phase = 2 * np.pi * np.cumsum(f) / sr
    out = np.zeros(n)
    for k in range(1, int(0.45 * sr / float(f.max())) + 1):
        amp = k ** (tilt_db_per_oct / (20 * math.log10(2)))
        out += np.where(k * f < 0.45 * sr, amp * np.sin(k * phase), 0.0)
    return out / np.sqrt(np.mean(out**2))  # unit RMS


def syllables(rate: float, seconds: float, f0: float = 150.0) -> np.ndarray:
    """A 150 Hz tone with ``rate`` loudness bursts per second (14 dB dips, no silence)."""
    t = np.arange(round(seconds * SR)) / SR
    env = 0.2 + 0.8 * np.sin(np.pi * rate * t) ** 2
    return harmonic(f0, seconds) * env


def audio(x: np.ndarray, peak: float = 0.5) -> Audio:
    return Audio((x / np.max(np.abs(x)) * peak).astype(np.float32), SR)


def test_f0_of_a_150_hz_pulse_train() -> None:
    f = measure(audio(harmonic(150.0, 1.5)))
    assert f.f0_mean_hz == pytest.approx(150.0, abs=1.0)
    assert f.f0_mean_st == pytest.approx(12 * math.log2(1.5), abs=0.1)
    assert f.f0_range_st < 0.3 and abs(f.f0_slope_st_per_s) < 0.3
    assert f.voiced_fraction > 0.9
    assert f.jitter_local < 0.005 and f.hnr_db > 20


def test_f0_slope_and_range_of_a_glide() -> None:
    seconds = 2.0
    st = np.linspace(12 * math.log2(1.2), 12 * math.log2(1.8), round(seconds * SR))  # 120 -> 180 Hz
    f = measure(audio(harmonic(100.0 * 2 ** (st / 12), seconds)))
    expected_slope = (st[-1] - st[0]) / seconds  # 3.51 st/s
    assert f.f0_slope_st_per_s == pytest.approx(expected_slope, abs=0.3)
    assert f.f0_range_st == pytest.approx(0.8 * (st[-1] - st[0]), abs=0.5)  # 10th-90th percentile span
    assert f.f0_final_st == pytest.approx(expected_slope * 0.3, abs=0.3)


def test_energy_of_a_sine_and_a_gain() -> None:
    t = np.arange(SR) / SR
    x = 0.5 * np.sin(2 * np.pi * 200 * t)
    f = measure(Audio(x.astype(np.float32), SR))
    assert f.energy_db == pytest.approx(20 * math.log10(0.5 / math.sqrt(2)), abs=0.3)
    g = measure(Audio((x * 10 ** (-6 / 20)).astype(np.float32), SR))
    assert g.energy_db - f.energy_db == pytest.approx(-6.0, abs=0.1)


@pytest.mark.parametrize("rate", [3.0, 5.0])
def test_speaking_rate_counts_syllable_bursts(rate: float) -> None:
    f = measure(audio(syllables(rate, 3.0)))
    assert f.speech_rate == pytest.approx(rate, rel=0.1)
    assert f.pause_count == 0


def test_pause_count_and_length() -> None:
    gap = np.zeros(round(0.4 * SR))
    x = np.concatenate([syllables(4.0, 1.0), gap, syllables(4.0, 1.0)])
    f = measure(audio(x))
    assert f.pause_count == 1
    assert f.pause_total_s == pytest.approx(0.4, abs=0.008)
    assert f.duration_s == pytest.approx(2.4, abs=0.05)
    assert f.articulation_rate > f.speech_rate


def test_leading_and_trailing_silence_are_not_pauses() -> None:
    pad = np.zeros(round(0.5 * SR))
    x = np.concatenate([pad, syllables(4.0, 1.0), pad])
    assert pauses(x, SR) == []
    start, end = speech_bounds(x, SR)
    assert start == pytest.approx(0.5, abs=0.03) and end == pytest.approx(1.5, abs=0.03)


@pytest.mark.parametrize("tilt", [0.0, -6.0, -12.0])
def test_spectral_tilt_of_harmonic_series(tilt: float) -> None:
    f = measure(audio(harmonic(150.0, 1.0, tilt_db_per_oct=tilt)))
    assert f.spectral_tilt_db_per_oct == pytest.approx(tilt, abs=0.8)


def pulse_train(f0: float, seconds: float, jitter: float = 0.0,
                shimmer: float = 0.0) -> tuple[np.ndarray, float, float]:
    """Glottal pulses through two damped resonances, each period and amplitude perturbed uniformly by
    +-``jitter`` / +-``shimmer``; returns the signal and its true local jitter and shimmer."""
    rng = np.random.default_rng(0)
    n = round(seconds * SR)
    x = np.zeros(n)
    t, periods, amps = 0.01, [], []
    while t < seconds - 0.02:
        period, amp = (1 + jitter * rng.uniform(-1, 1)) / f0, 1 + shimmer * rng.uniform(-1, 1)
        x[round(t * SR)] += amp
        periods.append(round((t + period) * SR) - round(t * SR))
        amps.append(amp)
        t += period
    k = np.arange(round(0.02 * SR)) / SR
    h = np.exp(-400 * k) * np.sin(2 * np.pi * 600 * k) + 0.5 * np.exp(-600 * k) * np.sin(2 * np.pi * 1500 * k)
    p, a = np.array(periods, dtype=float), np.array(amps)
    return np.convolve(x, h)[:n], float(np.mean(np.abs(np.diff(p))) / p.mean()), \
        float(np.mean(np.abs(np.diff(a))) / a.mean())


def test_jitter_and_shimmer_of_perturbed_pulses() -> None:
    clean = measure(audio(pulse_train(160.0, 1.5)[0]))  # 100-sample periods: no rounding jitter
    assert clean.jitter_local < 0.002 and clean.shimmer_local < 0.01
    x, jitter, shimmer = pulse_train(160.0, 1.5, jitter=0.04, shimmer=0.2)
    f = measure(audio(x))
    assert f.jitter_local == pytest.approx(jitter, rel=0.2)
    assert f.shimmer_local == pytest.approx(shimmer, rel=0.2)


@pytest.mark.parametrize("snr_db", [10.0, 20.0])
def test_hnr_follows_added_noise(snr_db: float) -> None:
    n = round(1.5 * SR)
    noisy = harmonic(150.0, 1.5) + 10 ** (-snr_db / 20) * np.random.default_rng(0).standard_normal(n)
    assert measure(audio(noisy)).hnr_db == pytest.approx(snr_db, abs=1.5)


def test_noise_has_no_f0_and_arrays_keep_order() -> None:
    f = measure(audio(np.random.default_rng(1).standard_normal(SR)))
    assert math.isnan(f.f0_mean_hz) and math.isnan(f.f0_range_st)
    arr = f.to_array()
    assert arr.dtype == np.float32 and arr.shape == (len(FEATURE_NAMES),)
    assert FEATURE_NAMES[0] == "f0_mean_hz" and FEATURE_NAMES[-1] == "spectral_tilt_db_per_oct"
    back = Features.from_array(arr)
    assert back.energy_db == pytest.approx(f.energy_db, abs=1e-4)
    assert f.as_dict()["f0_mean_hz"] is None


def test_relative_deltas() -> None:
    base = measure(audio(harmonic(150.0, 1.0)))
    up = measure(audio(harmonic(150.0 * 2 ** (4 / 12), 1.0), peak=0.25))
    rel = relative(up, base)
    assert rel.f0_shift_st == pytest.approx(4.0, abs=0.1)
    assert rel.energy_delta_db == pytest.approx(-6.02, abs=0.2)
    assert rel.to_array().shape == (len(RELATIVE_NAMES),)
    assert rel.control_estimate()["f0_shift_st"] == rel.f0_shift_st


def test_frames_and_nuclei_helpers() -> None:
    t, db = frame_db(np.ones(SR // 10), SR)
    assert len(t) == len(db) and np.allclose(db, 0.0)
    assert frame_db(np.zeros(0), SR)[0].size == 0
    nuclei = syllable_nuclei(syllables(4.0, 2.0), SR)
    assert len(nuclei) == 8
    assert len(syllable_nuclei(syllables(4.0, 2.0), SR, voiced=lambda ts: ts < 1.0)) == 4
