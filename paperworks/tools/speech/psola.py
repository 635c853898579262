"""Prosody by PSOLA (Praat's overlap-add resynthesis of a Manipulation, through parselmouth).

:func:`prepare` analyses a neutral utterance once (pitch tier and pauses); :func:`apply_prosody`
then rewrites the pitch tier (shift, range, slope, final movement) and the duration tier (tempo,
pause lengthening) and resynthesises. Pitch arithmetic is in semitones re 100 Hz:

    st' = median + (st - median) * f0_range_scale + f0_shift_st
          + f0_slope_st_per_s * (t_out - mean t_out) + f0_final_st * ramp(t_out)

where ``t_out`` is a point's time in the *output* timeline (after tempo and pauses), so the slope is
per output second, and ``ramp`` rises linearly from 0 to 1 over the last 0.3 output seconds of
voicing. Durations: every stretch is divided by ``tempo_scale``; pauses (see ``segments``) are in
addition multiplied by ``pause_scale``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paperworks.tools.speech._praat import call as _call
from paperworks.tools.speech._praat import resynthesize, sound
from paperworks.tools.speech.audio import Audio
from paperworks.tools.speech.control import ControlVector
from paperworks.tools.speech.segments import pause_time_before, pauses, speech_level

PITCH_FLOOR = 60.0
"""Lowest F0 the manipulation analyses (Hz)."""
PITCH_CEILING = 600.0
"""Highest F0 the manipulation analyses (Hz)."""
FINAL_S = 0.3
"""Length of the final-movement ramp (output seconds)."""
HIGHPASS_HZ = (20.0, 40.0)
"""Ramp of the high-pass after resynthesis (Hz): 0 below the first, 1 above the second."""
_EDGE = 0.01  # duration-tier transition inside each pause (s)


@dataclass
class Prepared:
    """A neutral utterance analysed for manipulation (cache it: analysis is the costly part)."""

    audio: Audio
    manipulation: Any
    """parselmouth Manipulation; its tiers are replaced by every render (hold ``lock``)."""
    pitch_times: np.ndarray
    """Pitch-tier point times (s, input timeline)."""
    pitch_st: np.ndarray
    """Pitch-tier values in semitones re 100 Hz."""
    pauses: list[tuple[float, float]]
    """Pauses (s) of the neutral utterance."""
    level_db: float
    """Sounding level of the neutral utterance (dB re full scale; ``segments.speech_level``)."""
    lock: threading.Lock = field(default_factory=threading.Lock)


def prepare(audio: Audio) -> Prepared:
    """Analyse ``audio`` (pitch tier by Praat's Manipulation, pauses by ``segments.pauses``)."""
    snd = sound(audio)
    manip = _call(snd, "To Manipulation", 0.01, PITCH_FLOOR, PITCH_CEILING)
    tier = _call(manip, "Extract pitch tier")
    n = int(_call(tier, "Get number of points"))
    times = np.array([_call(tier, "Get time from index", i) for i in range(1, n + 1)], dtype=np.float64)
    hz = np.array([_call(tier, "Get value at index", i) for i in range(1, n + 1)], dtype=np.float64)
    return Prepared(audio, manip, times, 12.0 * np.log2(np.maximum(hz, 1e-3) / 100.0),
                    pauses(audio.samples, audio.sr), speech_level(audio.samples, audio.sr)[0])


def output_time(times: np.ndarray, prep: Prepared, control: ControlVector) -> np.ndarray:
    """Where input times land after tempo and pause scaling (s)."""
    extra = pause_time_before(times, prep.pauses) * (control.pause_scale - 1.0)
    return (np.asarray(times, dtype=np.float64) + extra) / control.tempo_scale


def target_pitch(prep: Prepared, control: ControlVector) -> np.ndarray:
    """New pitch-tier values (semitones re 100 Hz) for ``control``; see the module docstring."""
    st = prep.pitch_st
    if not len(st):
        return st
    med = float(np.median(st))
    out = med + (st - med) * control.f0_range_scale + control.f0_shift_st
    t_out = output_time(prep.pitch_times, prep, control)
    if control.f0_slope_st_per_s:
        out = out + control.f0_slope_st_per_s * (t_out - t_out.mean())
    if control.f0_final_st:
        out = out + control.f0_final_st * np.clip(1.0 - (t_out[-1] - t_out) / FINAL_S, 0.0, 1.0)
    return out


def _pitch_tier(prep: Prepared, st: np.ndarray) -> Any:
    snd_end = prep.audio.duration
    tier = _call("Create PitchTier", "pw", 0.0, snd_end)
    for t, v in zip(prep.pitch_times, 100.0 * 2.0 ** (st / 12.0), strict=True):
        _call(tier, "Add point", float(t), float(v))
    return tier


def _duration_tier(prep: Prepared, control: ControlVector) -> Any:
    tier = _call("Create DurationTier", "pw", 0.0, prep.audio.duration)
    base = 1.0 / control.tempo_scale
    _call(tier, "Add point", 0.0, base)
    if control.pause_scale != 1.0:
        inner = control.pause_scale / control.tempo_scale
        for s, e in prep.pauses:
            if e - s <= 3 * _EDGE:
                continue
            for t, v in ((s, base), (s + _EDGE, inner), (e - _EDGE, inner), (e, base)):
                _call(tier, "Add point", float(t), v)
    return tier


def apply_prosody(prep: Prepared, control: ControlVector) -> Audio:
    """Resynthesise the prepared utterance with the pitch and duration changes of ``control``.

    The other dimensions (intensity, tilt, breathiness) are left to ``shaping``."""
    pitch = _pitch_tier(prep, target_pitch(prep, control)) if len(prep.pitch_st) else None
    durations = _duration_tier(prep, control)
    with prep.lock:
        if pitch is not None:
            _call([prep.manipulation, pitch], "Replace pitch tier")
        _call([prep.manipulation, durations], "Replace duration tier")
        out = resynthesize(prep.manipulation)
    y = _highpass(np.asarray(out.values, dtype=np.float64).reshape(-1), prep.audio.sr)
    gain_db = prep.level_db - speech_level(y, prep.audio.sr)[0]
    return Audio((y * 10.0 ** (gain_db / 20.0)).astype(np.float32), prep.audio.sr)


def _highpass(x: np.ndarray, sr: int) -> np.ndarray:
    """Remove the subsonic drift overlap-add leaves in silences (linear ramp 20-40 Hz, zero phase)."""
    if len(x) < 2:
        return x
    f = np.fft.rfftfreq(len(x), 1.0 / sr)
    return np.fft.irfft(np.fft.rfft(x) * np.clip((f - HIGHPASS_HZ[0]) / (HIGHPASS_HZ[1] - HIGHPASS_HZ[0]), 0, 1),
                        n=len(x))
