"""parselmouth (Praat), imported on first use with a one-line error when it is missing."""

from __future__ import annotations

from typing import Any

import numpy as np

from paperworks.core.errors import MissingDependencyError
from paperworks.tools.speech.audio import Audio


def parselmouth() -> Any:
    """The ``parselmouth`` module (``praat-parselmouth`` on PyPI)."""
    try:
        import parselmouth as pm
    except ImportError:
        raise MissingDependencyError("praat-parselmouth is not installed (pip install praat-parselmouth==0.4.7)") \
            from None
    return pm


def call(*args: Any) -> Any:
    """``parselmouth.praat.call``: run a Praat command on objects."""
    parselmouth()
    from parselmouth.praat import call as praat_call

    return praat_call(*args)


def sound(audio: Audio) -> Any:
    """``audio`` as a parselmouth Sound (float64 copy)."""
    return parselmouth().Sound(audio.samples.astype(np.float64), sampling_frequency=float(audio.sr))


def resynthesize(manipulation: Any, seed: int = 1) -> Any:
    """The overlap-add resynthesis of a Manipulation, made deterministic: Praat places unvoiced
    stretches' pseudo-periods at random, so its random generator is seeded for the call (and
    re-seeded unpredictably after, as Praat would be)."""
    parselmouth()
    from parselmouth.praat import run

    script = (f"random_initializeWithSeedUnsafelyButPredictably ({int(seed)})\n"
              "Get resynthesis (overlap-add)\n"
              "random_initializeSafelyAndUnpredictably ()\n")
    return run(manipulation, script)[0]
