"""A tiny, documented keyword table from an instruction to a control vector (no model involved).

``paperworks tts say --intent "angry but restrained, 60%"`` uses it; the steertts workflow has its
own model-based intent parser and may use :func:`intent_to_control` as its open-loop rule baseline.

Parsing (:func:`parse_intent`): lower-cased words are looked up in :data:`EMOTION_WORDS` (each
found emotion gets weight 1, then weights are normalised to sum 1, so "sad yet hopeful" is half
sad, half happy), :data:`MODIFIER_WORDS` and :data:`INTENSITY_WORDS`; a percentage ("30%") sets the
intensity directly. Default intensity: 100%. Negation is not understood ("not angry" is angry).

Mapping (:func:`intent_to_control`): each emotion's cue profile (:data:`EMOTION_CUES`, at 100%)
is mixed by weight - additive dimensions linearly, scale dimensions in the log domain - and scaled by
intensity; then modifiers apply in :data:`MODIFIER_WORDS` order; the result is clipped to bounds.
Directions of the cues follow Juslin & Laukka (2003, Psychological Bulletin 129:770, Table 7:
F0 level and variability, rate, intensity, high-frequency energy per emotion), Scherer (2003,
Speech Communication 40:227) and Banse & Scherer (1996, JPSP 70:614) for boredom and disgust;
the magnitudes are this table's choice, sized to be clearly audible on espeak-ng voices.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from paperworks.core.errors import UserError
from paperworks.tools.speech.control import DIMENSIONS, ControlVector

_SCALES = {"f0_range_scale", "tempo_scale", "pause_scale"}
_EXAMPLES = ("angry", "happy", "sad", "fearful", "calm", "surprised", "bored", "disgusted")

EMOTION_CUES: dict[str, dict[str, float]] = {
    "anger": {"f0_shift_st": 4.0, "f0_range_scale": 1.5, "tempo_scale": 1.15, "pause_scale": 0.8,
              "intensity_db": 6.0, "tilt_db_per_oct": 3.0},
    "happiness": {"f0_shift_st": 4.0, "f0_range_scale": 1.6, "tempo_scale": 1.1, "pause_scale": 0.9,
                  "intensity_db": 3.0, "tilt_db_per_oct": 1.5},
    "sadness": {"f0_shift_st": -3.0, "f0_range_scale": 0.6, "f0_slope_st_per_s": -1.0, "tempo_scale": 0.8,
                "pause_scale": 1.6, "intensity_db": -6.0, "tilt_db_per_oct": -3.0, "breathiness": 0.2},
    "fear": {"f0_shift_st": 6.0, "f0_range_scale": 0.8, "tempo_scale": 1.2, "pause_scale": 1.2,
             "intensity_db": 1.0, "tilt_db_per_oct": 1.0, "breathiness": 0.3},
    "tenderness": {"f0_shift_st": -2.0, "f0_range_scale": 0.8, "tempo_scale": 0.85, "pause_scale": 1.2,
                   "intensity_db": -4.0, "tilt_db_per_oct": -3.0, "breathiness": 0.2},
    "surprise": {"f0_shift_st": 5.0, "f0_range_scale": 1.8, "f0_final_st": 4.0, "tempo_scale": 1.05,
                 "intensity_db": 2.0},
    "boredom": {"f0_shift_st": -2.0, "f0_range_scale": 0.4, "tempo_scale": 0.8, "intensity_db": -3.0,
                "tilt_db_per_oct": -2.0},
    "disgust": {"f0_shift_st": -1.5, "f0_range_scale": 1.1, "tempo_scale": 0.85, "pause_scale": 1.2,
                "intensity_db": 1.0, "tilt_db_per_oct": -1.0},
}
"""Control deltas per emotion at 100% intensity (directions: see the module docstring)."""

EMOTION_WORDS: dict[str, str] = {
    **dict.fromkeys(["angry", "anger", "furious", "mad", "irritated", "annoyed", "rage", "enraged"], "anger"),
    **dict.fromkeys(["happy", "happiness", "joyful", "joy", "cheerful", "glad", "hopeful", "delighted",
                     "excited", "elated"], "happiness"),
    **dict.fromkeys(["sad", "sadness", "sorrowful", "gloomy", "melancholic", "depressed", "grieving",
                     "mournful"], "sadness"),
    **dict.fromkeys(["fearful", "fear", "afraid", "scared", "anxious", "nervous", "terrified", "worried"],
                    "fear"),
    **dict.fromkeys(["calm", "tender", "gentle", "soothing", "relaxed", "warm", "loving"], "tenderness"),
    **dict.fromkeys(["surprised", "surprise", "amazed", "astonished", "shocked"], "surprise"),
    **dict.fromkeys(["bored", "boredom", "indifferent", "tired", "weary", "apathetic"], "boredom"),
    **dict.fromkeys(["disgusted", "disgust", "contemptuous", "repulsed"], "disgust"),
}
"""Words (lower case) that name an emotion of :data:`EMOTION_CUES`."""

MODIFIERS: dict[str, tuple[str, dict[str, float]]] = {
    "restrained": ("scale", {"all": 0.5}),
    "whispered": ("add", {"breathiness": 1.0, "intensity_db": -10.0, "tilt_db_per_oct": -3.0}),
    "breathy": ("add", {"breathiness": 0.6}),
    "hurried": ("mul", {"tempo_scale": 1.3, "pause_scale": 0.6}),
    "slow": ("mul", {"tempo_scale": 0.75, "pause_scale": 1.4}),
    "loud": ("add", {"intensity_db": 6.0}),
    "soft": ("add", {"intensity_db": -6.0}),
    "questioning": ("add", {"f0_final_st": 5.0}),
    "monotone": ("mul", {"f0_range_scale": 0.3}),
}
"""Modifier -> (how, values): "scale" pulls every delta towards neutral, "add" adds, "mul" multiplies."""

MODIFIER_WORDS: dict[str, str] = {
    **dict.fromkeys(["restrained", "controlled", "suppressed", "subdued", "contained", "held"], "restrained"),
    **dict.fromkeys(["whispered", "whisper", "whispering"], "whispered"),
    **dict.fromkeys(["breathy", "airy"], "breathy"),
    **dict.fromkeys(["hurried", "rushed", "fast", "quick", "quickly", "urgent"], "hurried"),
    **dict.fromkeys(["slow", "slowly", "deliberate", "drawn-out"], "slow"),
    **dict.fromkeys(["loud", "loudly", "shouting", "shouted"], "loud"),
    **dict.fromkeys(["soft", "softly", "quiet", "quietly", "hushed"], "soft"),
    **dict.fromkeys(["questioning", "question", "asking", "doubtful"], "questioning"),
    **dict.fromkeys(["monotone", "flat", "monotonous"], "monotone"),
}
"""Words (lower case) that name a modifier of :data:`MODIFIERS`."""

INTENSITY_WORDS: dict[str, float] = {
    **dict.fromkeys(["slightly", "mildly", "somewhat", "little", "bit", "faintly"], 0.3),
    **dict.fromkeys(["moderately", "fairly", "quite", "rather"], 0.6),
    **dict.fromkeys(["very", "extremely", "intensely", "really", "deeply", "totally"], 1.0),
}
"""Words (lower case) that set the intensity (0-1)."""


@dataclass(frozen=True)
class Intent:
    """A structured intent: emotions with weights, an intensity and modifiers."""

    emotions: dict[str, float] = field(default_factory=dict)
    """Emotion (a key of :data:`EMOTION_CUES`) -> weight; weights sum to 1 (or the dict is empty)."""
    intensity: float = 1.0
    """0-1: how far from neutral the emotions move the voice."""
    modifiers: tuple[str, ...] = ()
    """Keys of :data:`MODIFIERS`."""


def parse_intent(text: str) -> Intent:
    """The :class:`Intent` of an instruction (see the module docstring); one-line
    :class:`UserError` when it names no known emotion, modifier or "neutral"."""
    words = re.findall(r"[a-z]+(?:-[a-z]+)?|\d+(?:\.\d+)?\s*%", text.lower())
    emotions: dict[str, float] = {}
    modifiers: list[str] = []
    intensity: float | None = None
    neutral = False
    for w in words:
        if w.endswith("%"):
            intensity = float(w.rstrip("% ")) / 100.0
        elif w in EMOTION_WORDS:
            emotions[EMOTION_WORDS[w]] = 1.0
        elif w in MODIFIER_WORDS and MODIFIER_WORDS[w] not in modifiers:
            modifiers.append(MODIFIER_WORDS[w])
        elif w in INTENSITY_WORDS and intensity is None:
            intensity = INTENSITY_WORDS[w]
        elif w in ("neutral", "plain", "normal"):
            neutral = True
    if not emotions and not modifiers and not neutral:
        raise UserError(f"intent '{text.strip()}' names no known emotion or modifier; emotions: "
                        f"{', '.join(_EXAMPLES)}, ...; modifiers: {', '.join(MODIFIERS)}")
    if intensity is not None and not 0.0 <= intensity <= 1.0:
        raise UserError(f"intent '{text.strip()}': intensity must be between 0% and 100%, got {intensity:.0%}")
    total = sum(emotions.values())
    order = [m for m in MODIFIERS if m in modifiers]
    return Intent({k: v / total for k, v in emotions.items()}, 1.0 if intensity is None else intensity, tuple(order))


def intent_to_control(intent: Intent) -> ControlVector:
    """The control vector of ``intent`` (see the module docstring); always within bounds."""
    delta = {d.name: 0.0 for d in DIMENSIONS}  # additive deltas; scales as log-deltas
    for emotion, weight in intent.emotions.items():
        if emotion not in EMOTION_CUES:
            raise UserError(f"unknown emotion '{emotion}'; known: {', '.join(EMOTION_CUES)}")
        for name, value in EMOTION_CUES[emotion].items():
            delta[name] += weight * (math.log(value) if name in _SCALES else value)
    delta = {k: v * intent.intensity for k, v in delta.items()}
    for mod in intent.modifiers:
        if mod not in MODIFIERS:
            raise UserError(f"unknown modifier '{mod}'; known: {', '.join(MODIFIERS)}")
        how, values = MODIFIERS[mod]
        for name, value in values.items():
            if how == "scale":
                delta = {k: v * value for k, v in delta.items()}
            elif how == "mul":
                delta[name] += math.log(value)
            else:
                delta[name] += value
    neutral = {d.name: d.neutral for d in DIMENSIONS}
    values = {k: (neutral[k] * math.exp(v) if k in _SCALES else neutral[k] + v) for k, v in delta.items()}
    return ControlVector.from_array([values[d.name] for d in DIMENSIONS], clip=True)


def control_for(text: str) -> ControlVector:
    """``intent_to_control(parse_intent(text))``."""
    return intent_to_control(parse_intent(text))
