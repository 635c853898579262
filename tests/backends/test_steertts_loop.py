"""AgentSteerTTS on the real offline engine: the library builder, the fast loop reducing control error on a
fixed case, and ``paperworks repro steertts --quick``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from paperworks.backends.steertts import cues
from paperworks.backends.steertts.acoustics import context_vector
from paperworks.backends.steertts.library import LIBRARY_TEXTS, LibraryConfig, PrototypeLibrary, build_library
from paperworks.backends.steertts.loop import FastLoopConfig, run_fast_loop
from paperworks.backends.steertts.resources import get_resources
from paperworks.tools.speech import ControlVector, measure, neutral, relative, render
from paperworks.tools.speech.intent import Intent
from tests.conftest import cli

TEXT = "You said you would call me before nine."


def test_library_build_measures_labels_and_round_trips(tmp_path: Path) -> None:
    cfg = LibraryConfig(texts=LIBRARY_TEXTS[:1], voices=("en-us",), per_pair=4, workers=1)
    lib = build_library(cfg)
    assert len(lib) == 4
    assert lib.profile.shape == (4, 9) and lib.features.shape == (4, 18) and lib.envelope.shape == (4, 24)
    assert lib.control_unit.min() >= 0 and lib.control_unit.max() <= 1
    assert list(lib.cls) == [0, 1, 2, 3]  # classes rotate: neutral, anger, happiness, sadness
    anger = lib.profile[1]
    assert anger[cues.PROFILE_DIMS.index("intensity")] > 0.5  # rendered louder, and measured louder
    path = lib.save(tmp_path / "lib.npz")
    back = PrototypeLibrary.load(path)
    assert np.array_equal(back.profile, lib.profile, equal_nan=True) and back.voices == ("en-us",)
    assert back.meta["key"] == cfg.key() and cfg.key() != LibraryConfig(per_pair=5).key()


def test_fast_loop_reduces_control_error_on_a_fixed_case() -> None:
    res = get_resources("tiny")
    voice = "en-us+f1"
    base = measure(neutral(TEXT, voice))
    target = cues.target_profile(Intent({"anger": 1.0}, 0.6, ()))

    def evaluate(unit: np.ndarray) -> np.ndarray:
        audio = render(TEXT, ControlVector.from_unit(np.asarray(unit, dtype=np.float64)), voice)
        return cues.profile_from_relative(relative(measure(audio), base))

    start = ControlVector().to_unit()  # the neutral reading: every targeted feature is off by its full amount
    steps = run_fast_loop(evaluate, res.surrogate, context_vector(base), target, start,
                          FastLoopConfig(budget=3, tolerance_jnd=0.05))
    errors = [s.error for s in steps]
    assert len(steps) == 3 and errors[0] > 2.0
    assert min(errors[1:]) < 0.25 * errors[0], errors
    assert steps[1].info["predicted_fit_end"] < steps[1].info["predicted_fit_start"]


@pytest.mark.slow
def test_repro_quick_writes_results(tmp_path: Path) -> None:
    start = time.monotonic()
    out = cli("repro", "steertts", "--quick", "--out", str(tmp_path), timeout=400)
    took = time.monotonic() - start
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["name"] == "steertts" and data["quick"] is True
    figures = data["figures"]
    for key in ("speaker_from_emotion[none]", "speaker_from_emotion[grl+xcov]", "emotion_from_speaker[grl]",
                "emotion_from_speaker[xcov]", "control_error[open_loop]", "control_error[fast]",
                "control_error[fast+slow]", "control_error[fast_matched]", "library_prototypes"):
        assert key in figures, key
        assert figures[key]["value"] is not None
    assert figures["control_error[fast+slow]"]["paper"]
    assert (tmp_path / "leakage.png").stat().st_size > 1000 and (tmp_path / "control_error.png").is_file()
    cases = data["extra"]["control_cases"]
    assert cases and all(c["fast+slow"]["renders"] >= c["fast"]["renders"] for c in cases)
    assert took < 240  # about a minute on a quiet machine (the quick library is cached after the first run)
