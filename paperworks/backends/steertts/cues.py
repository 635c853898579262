"""The perceptual profile space, the emotion -> prosodic-cue mapping, and control error (numpy only).

A *profile* is what one rendering did to the voice, measured against the neutral reading of the same text
and voice (``tools.speech.relative``), in JND units: each dimension of :data:`PROFILE_DIMS` is divided by
its just-noticeable difference (:data:`JND`), so 1.0 means "about one step a listener could hear".

**Reconstructed rule** (the paper publishes no code or table): the target profile of an intent is the
keyword table's control vector (``tools.speech.intent.intent_to_control``, cue magnitudes sized there)
read as *measured* deltas: the rendered speech should measure +4 semitones of F0 when the table asks for
+4. How far the engine lands from that is the control error every loop here reduces.

Cue directions per emotion (:data:`CUE_SOURCES`) - used to label emotion regions of the prototype library
and by the supervisor's rule critique - with the source of each:

- JL03 = Juslin & Laukka (2003), Psychological Bulletin 129:770, Table 7 (anger, fear, happiness,
  sadness, tenderness: F0 level, F0 variability, speech rate, voice intensity, high-frequency energy);
- BS96 = Banse & Scherer (1996), JPSP 70:614 (boredom, disgust);
- S03 = Scherer (2003), Speech Communication 40:227 (review; falling contours and longer pauses in sadness);
- "table" = this project's choice where none of the three gives a direction (surprise's final rise).

JNDs: F0 level and movements ~1.5 st for speech ('t Hart 1981, JASA 69:811: differences below 1.5-3 st
are hard to hear in speech) - we use 1.0 st for level and 1.5 st for the final movement; tempo 5%
(Quene 2007, J. Phonetics 35:353); level 1 dB (Jesteadt, Wier & Green 1977, JASA 61:169: 0.5-1.5 dB).
The F0-range, slope, pause, tilt and HNR steps are this project's choices (marked ``chosen`` below).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from paperworks.tools.speech.intent import EMOTION_CUES, Intent, intent_to_control
from paperworks.tools.speech.relative import Relative

PROFILE_DIMS: tuple[str, ...] = ("f0_shift", "f0_range", "f0_slope", "f0_final", "tempo", "pause",
                                 "intensity", "tilt", "hnr")
"""Profile dimensions, in array order."""

JND: dict[str, float] = {
    "f0_shift": 1.0,   # semitones ('t Hart 1981)
    "f0_range": 0.25,  # log2 of the F0-range ratio (~19%; chosen)
    "f0_slope": 1.0,   # semitones per second (chosen)
    "f0_final": 1.5,   # semitones ('t Hart 1981)
    "tempo": 0.05,     # ln of the tempo ratio (5%; Quene 2007)
    "pause": 0.2,      # ln of the pause ratio (~22%; chosen)
    "intensity": 1.0,  # dB (Jesteadt et al. 1977)
    "tilt": 1.0,       # dB per octave (chosen)
    "hnr": 2.0,        # dB (chosen)
}
"""One just-noticeable step per dimension, in the dimension's natural unit (see the module docstring)."""

UNITS: dict[str, str] = {"f0_shift": "st", "f0_range": "log2 ratio", "f0_slope": "st/s", "f0_final": "st",
                         "tempo": "ln ratio", "pause": "ln ratio", "intensity": "dB", "tilt": "dB/oct",
                         "hnr": "dB"}
"""Natural unit of each dimension (before division by its JND)."""

EMOTIONS: tuple[str, ...] = tuple(EMOTION_CUES)
"""Emotion names (keys of the keyword table's cue profiles)."""
CLASSES: tuple[str, ...] = ("neutral", *EMOTIONS)
"""Emotion classes of the prototype library: neutral first."""

CUE_SOURCES: dict[str, dict[str, tuple[int, str]]] = {
    "anger": {"f0_shift": (1, "JL03"), "f0_range": (1, "JL03"), "tempo": (1, "JL03"), "intensity": (1, "JL03"),
              "tilt": (1, "JL03")},
    "happiness": {"f0_shift": (1, "JL03"), "f0_range": (1, "JL03"), "tempo": (1, "JL03"),
                  "intensity": (1, "JL03"), "tilt": (1, "JL03")},
    "sadness": {"f0_shift": (-1, "JL03"), "f0_range": (-1, "JL03"), "f0_slope": (-1, "S03"), "tempo": (-1, "JL03"),
                "pause": (1, "S03"), "intensity": (-1, "JL03"), "tilt": (-1, "JL03")},
    "fear": {"f0_shift": (1, "JL03"), "f0_range": (-1, "JL03"), "tempo": (1, "JL03"), "tilt": (1, "JL03")},
    "tenderness": {"f0_shift": (-1, "JL03"), "f0_range": (-1, "JL03"), "tempo": (-1, "JL03"),
                   "intensity": (-1, "JL03"), "tilt": (-1, "JL03")},
    "surprise": {"f0_shift": (1, "table"), "f0_range": (1, "table"), "f0_final": (1, "table")},
    "boredom": {"f0_shift": (-1, "BS96"), "f0_range": (-1, "BS96"), "tempo": (-1, "BS96"), "intensity": (-1, "BS96")},
    "disgust": {"f0_shift": (-1, "BS96"), "tempo": (-1, "BS96")},
}
"""Emotion -> {profile dimension: (direction, source)}; sources in the module docstring."""

TARGETED_MIN = 0.5
"""A dimension is *targeted* by an intent when its target is at least this many JNDs from neutral."""
_MIN_RATIO = 0.05
PAUSE_MIN_RATIO = 0.25
"""A pause ratio below this reads as this (the shortest ``pause_scale``): a pause shortened under the 0.1 s
that counts as a pause vanishes from the measurement (ratio 0), which is no 15-JND change to a listener."""


def _log(ratio: float, base: float, floor: float = _MIN_RATIO) -> float:
    if not math.isfinite(ratio):
        return math.nan
    return math.log(max(ratio, floor)) / math.log(base)


def clip_profile(profile: np.ndarray) -> np.ndarray:
    """Apply :data:`PAUSE_MIN_RATIO` to profiles (N, 9) or (9,) (measuring anew would give the same)."""
    out = np.array(profile, dtype=np.float32, copy=True)
    i = PROFILE_DIMS.index("pause")
    low = math.log(PAUSE_MIN_RATIO) / JND["pause"]
    out[..., i] = np.where(np.isnan(out[..., i]), np.nan, np.maximum(out[..., i], low))
    return out


def profile_from_relative(rel: Relative) -> np.ndarray:
    """The JND-unit profile (:data:`PROFILE_DIMS` order, NaN where unmeasurable) of a relative measurement."""
    est = rel.control_estimate()
    natural = {
        "f0_shift": est["f0_shift_st"], "f0_range": _log(est["f0_range_scale"], 2.0),
        "f0_slope": est["f0_slope_st_per_s"], "f0_final": est["f0_final_st"],
        "tempo": _log(est["tempo_scale"], math.e), "pause": _log(est["pause_scale"], math.e, PAUSE_MIN_RATIO),
        "intensity": est["intensity_db"], "tilt": est["tilt_db_per_oct"], "hnr": rel.hnr_delta_db,
    }
    return np.array([natural[d] / JND[d] for d in PROFILE_DIMS], dtype=np.float32)


def ideal_profile_of_control(control: Mapping[str, float]) -> np.ndarray:
    """What an ideal engine would measure for a control vector (``ControlVector.as_dict()``): each delta
    read off the command in JND units; HNR has no ideal value (NaN)."""
    c = control
    natural = {
        "f0_shift": c["f0_shift_st"], "f0_range": _log(c["f0_range_scale"], 2.0), "f0_slope": c["f0_slope_st_per_s"],
        "f0_final": c["f0_final_st"], "tempo": _log(c["tempo_scale"], math.e), "pause": _log(c["pause_scale"], math.e),
        "intensity": c["intensity_db"], "tilt": c["tilt_db_per_oct"], "hnr": math.nan,
    }
    return np.array([natural[d] / JND[d] for d in PROFILE_DIMS], dtype=np.float32)


def intent_from_dict(data: Mapping[str, Any]) -> Intent:
    """An :class:`Intent` from ``{"emotions": {...}, "intensity": x, "modifiers": [...]}`` (weights normalised)."""
    raw: Mapping[str, Any] = data.get("emotions") or {}
    emotions = {str(k): float(v) for k, v in raw.items() if float(v) > 0}
    total = sum(emotions.values())
    mods: Sequence[Any] = data.get("modifiers") or ()
    return Intent({k: v / total for k, v in emotions.items()} if total else {},
                  float(data.get("intensity", 1.0)), tuple(str(m) for m in mods))


def intent_to_dict(intent: Intent) -> dict[str, Any]:
    """JSON-friendly form of an :class:`Intent`."""
    return {"emotions": {k: round(v, 4) for k, v in intent.emotions.items()}, "intensity": round(intent.intensity, 4),
            "modifiers": list(intent.modifiers)}


def target_profile(intent: Intent) -> np.ndarray:
    """The JND-unit profile ``intent`` asks for (reconstructed rule, see the module docstring); HNR NaN."""
    return ideal_profile_of_control(intent_to_control(intent).as_dict())


def targeted(target: np.ndarray) -> np.ndarray:
    """Boolean mask of the dimensions a target moves by at least :data:`TARGETED_MIN` JNDs."""
    t = np.asarray(target, dtype=np.float64)
    return np.isfinite(t) & (np.abs(np.nan_to_num(t)) >= TARGETED_MIN)


def control_error(measured: np.ndarray, target: np.ndarray, dims: str = "targeted") -> float:
    """Mean absolute distance in JNDs over the ``targeted`` dimensions (or ``all`` finite ones, HNR excluded).

    NaN when no dimension qualifies."""
    m, t = np.asarray(measured, dtype=np.float64), np.asarray(target, dtype=np.float64)
    mask = (targeted(t) if dims == "targeted" else np.isfinite(t)) & np.isfinite(m)
    return float(np.mean(np.abs(m[mask] - t[mask]))) if mask.any() else math.nan


def intensity_ratio(measured: np.ndarray, target: np.ndarray) -> float:
    """How much of the target's expression the measurement carries: the projection ``<m, t> / <t, t>``
    over the targeted dimensions (1.0 = as intended, 0.5 = half as strong). NaN for an empty target."""
    m, t = np.asarray(measured, dtype=np.float64), np.asarray(target, dtype=np.float64)
    mask = targeted(t) & np.isfinite(m)
    denom = float(np.dot(t[mask], t[mask]))
    return float(np.dot(m[mask], t[mask]) / denom) if denom > 0 else math.nan


@dataclass(frozen=True)
class Label:
    """The emotion region a profile falls in, by the cue mapping."""

    emotion: str
    """A key of :data:`CLASSES` ("neutral" when no emotion fits)."""
    fit: float
    """Cosine between the profile and that emotion's 100% profile (0 for neutral)."""
    intensity: float
    """Projection on that emotion's 100% profile (1.0 = full-strength expression)."""


_REFERENCE = {e: target_profile(Intent({e: 1.0}, 1.0, ())) for e in EMOTIONS}
_CUE_MASK = {e: np.array([d in CUE_SOURCES[e] for d in PROFILE_DIMS]) for e in EMOTIONS}


def label_profile(profile: np.ndarray, min_fit: float = 0.6, min_norm: float = 1.5) -> Label:
    """Label a measured profile (reconstructed rule): for each emotion, the cosine between the profile and
    the emotion's 100% target over that emotion's cited cue dimensions (:data:`CUE_SOURCES`); the best one
    wins if its cosine is at least ``min_fit`` and the profile moves at least ``min_norm`` JNDs there,
    otherwise "neutral"."""
    p = np.nan_to_num(np.asarray(profile, dtype=np.float64))
    best = Label("neutral", 0.0, 0.0)
    for emotion in EMOTIONS:
        mask = _CUE_MASK[emotion]
        ref = np.nan_to_num(_REFERENCE[emotion].astype(np.float64))[mask]
        x = p[mask]
        norm = float(np.linalg.norm(x))
        if norm < min_norm:
            continue
        fit = float(np.dot(x, ref) / (norm * np.linalg.norm(ref)))
        if fit >= min_fit and fit > best.fit:
            best = Label(emotion, fit, float(np.dot(x, ref) / np.dot(ref, ref)))
    return best


def describe(profile: Sequence[float] | np.ndarray, target: Sequence[float] | np.ndarray | None = None) -> list[str]:
    """Readable lines ``f0_shift: +3.2 st (target +4.0 st)`` in natural units, for prompts and reports."""
    lines = []
    for i, d in enumerate(PROFILE_DIMS):
        v = float(profile[i])
        text = f"{d}: {'n/a' if not math.isfinite(v) else f'{v * JND[d]:+.2f}'} {UNITS[d]}"
        if target is not None and math.isfinite(float(target[i])):
            text += f" (target {float(target[i]) * JND[d]:+.2f})"
        lines.append(text)
    return lines
