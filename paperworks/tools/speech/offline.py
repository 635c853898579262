"""The offline engine: espeak-ng reads the text neutrally, PSOLA and filters apply the control.

Pipeline of :meth:`EspeakPsolaEngine.render`:

1. espeak-ng renders ``text`` with ``voice`` at its default rate and pitch (cached per (text, voice));
   leading/trailing silence is trimmed to :data:`MARGIN_S` and the level normalised so the
   sounding part has RMS :data:`NEUTRAL_RMS_DBFS` (so voices start equally loud).
2. The neutral utterance is analysed once for PSOLA (``psola.prepare``, cached with it).
3. Pitch and duration tiers are rewritten and resynthesised (``psola.apply_prosody``).
4. Breathiness, tilt and level are shaped (``shaping.shape``).

The neutral reading is step 3-4 with a neutral control (cached too), so every relative
measurement compares two renders that went through the same resynthesis.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from paperworks.tools.speech import espeak
from paperworks.tools.speech.audio import Audio
from paperworks.tools.speech.control import ControlVector
from paperworks.tools.speech.psola import Prepared, apply_prosody, prepare
from paperworks.tools.speech.segments import speech_bounds, speech_level
from paperworks.tools.speech.shaping import shape

MARGIN_S = 0.05
"""Silence kept before and after the sounding part of a neutral render (s)."""
NEUTRAL_RMS_DBFS = -26.0
"""RMS level (dB re full scale) of the sounding part of every neutral render."""
CACHE_SIZE = 64
"""Neutral renders kept per engine, least recently used dropped first (each holds the audio and its
Praat Manipulation: about 0.5 MB per second of speech)."""


def _normalise(audio: Audio) -> Audio:
    start, end = speech_bounds(audio.samples, audio.sr)
    if end <= start:
        return audio
    a = max(0, int((start - MARGIN_S) * audio.sr))
    b = min(len(audio.samples), int(np.ceil((end + MARGIN_S) * audio.sr)))
    x = audio.samples[a:b].astype(np.float64)
    gain = 10.0 ** ((NEUTRAL_RMS_DBFS - speech_level(x, audio.sr)[0]) / 20.0)
    return Audio((x * gain).astype(np.float32), audio.sr)


class EspeakPsolaEngine:
    """espeak-ng + PSOLA (parselmouth) + FFT shaping; fully offline. Registered as ``espeak``.

    Voices are espeak-ng voice strings (``en-us``, ``en-gb+f3``); :meth:`voices` gives the curated
    speakers, and any installed ``LANGUAGE[+VARIANT]`` is accepted. All control dimensions apply;
    pitch controls do nothing on voices without voicing (whisper variants)."""

    name = "espeak"
    default_voice = espeak.DEFAULT_VOICE

    def __init__(self, cache_size: int = CACHE_SIZE) -> None:
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str], tuple[Prepared, Audio]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def voices(self) -> list[str]:
        """The curated installed speakers (``espeak.speakers()``)."""
        return espeak.speakers()

    def _prepared(self, text: str, voice: str | None) -> tuple[Prepared, Audio]:
        text, voice = espeak.check_text(text), espeak.resolve_voice(voice)
        key = (text, voice)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                self.hits += 1
                return self._cache[key]
        prep = prepare(_normalise(espeak.synthesize(text, voice)))
        neutral = shape(apply_prosody(prep, ControlVector()), ControlVector())
        with self._lock:
            self.misses += 1
            self._cache[key] = (prep, neutral)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return prep, neutral

    def neutral(self, text: str, voice: str | None = None) -> Audio:
        """The neutral reading (cached per (text, voice))."""
        return self._prepared(text, voice)[1]

    def render(self, text: str, control: ControlVector | None = None, voice: str | None = None) -> Audio:
        """``text`` by ``voice`` with ``control``; one-line errors for empty text, unknown voice
        or an invalid control (checked before anything is synthesised)."""
        control = (control or ControlVector()).validate()
        prep, neutral = self._prepared(text, voice)
        if control == ControlVector():
            return neutral
        return shape(apply_prosody(prep, control), control)

    def clear_cache(self) -> None:
        """Drop every cached neutral render."""
        with self._lock:
            self._cache.clear()
