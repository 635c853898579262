"""Speech synthesis with continuous prosody control, and acoustic measurement (AgentSteerTTS's tools).

    from paperworks.tools.speech import ControlVector, render, neutral, measure, relative

    cv = ControlVector(f0_shift_st=4, tempo_scale=1.2, intensity_db=3)
    audio = render("I can't believe it.", cv, voice="en-us+f3")      # Audio(samples float32, sr)
    rel = relative(measure(audio), measure(neutral("I can't believe it.", voice="en-us+f3")))
    rel.control_estimate()["f0_shift_st"]                           # about 4

Modules: ``control`` (the control vector), ``engine`` (interface and registry), ``offline``
(espeak-ng + PSOLA engine), ``espeak`` (voices), ``psola``/``shaping`` (the manipulations),
``features``/``relative`` (measurement), ``segments`` (pauses, syllable nuclei), ``intent``
(keyword table), ``plots`` (F0 PNG, audio HTML), ``audio`` (WAV I/O). parselmouth and matplotlib
load inside the functions that need them.
"""

from paperworks.tools.speech.audio import Audio, read_wav, write_wav
from paperworks.tools.speech.control import CONTROL_NAMES, DIMENSIONS, ControlVector, Dimension
from paperworks.tools.speech.engine import Engine, engine_names, get_engine, neutral, register_engine, render
from paperworks.tools.speech.espeak import DEFAULT_VOICE, speakers
from paperworks.tools.speech.features import FEATURE_NAMES, Features, f0_track, measure
from paperworks.tools.speech.intent import Intent, control_for, intent_to_control, parse_intent
from paperworks.tools.speech.plots import audio_html, f0_plot
from paperworks.tools.speech.relative import RELATIVE_NAMES, Relative, relative

__all__ = [
    "CONTROL_NAMES", "DEFAULT_VOICE", "DIMENSIONS", "FEATURE_NAMES", "RELATIVE_NAMES", "Audio", "ControlVector",
    "Dimension", "Engine", "Features", "Intent", "Relative", "audio_html", "control_for", "engine_names",
    "f0_plot", "f0_track", "get_engine", "intent_to_control", "measure", "neutral", "parse_intent", "read_wav",
    "register_engine", "relative", "render", "speakers", "write_wav",
]
