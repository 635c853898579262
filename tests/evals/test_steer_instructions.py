"""The steer_instructions suite: it loads and hides each row's intent from the workflow, matches its
generator, and its scorers measure the audio themselves (compliance, monotonicity, speaker identity);
an eval with a scripted model runs end to end."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperworks.core.scoring import Sample
from paperworks.eval import harness
from paperworks.eval.scorers import ScoreContext
from paperworks.eval.suite import open_suite
from paperworks.models.scripted import register_script
from paperworks.tools.speech import ControlVector, neutral, render
from paperworks.tools.speech.intent import Intent, intent_to_control
from paperworks.workflows.steertts import score as steertts_score
from tests.conftest import ROOT

SUITE = ROOT / "evals" / "steer_instructions"


def test_suite_loads_and_hides_the_intent() -> None:
    suite = open_suite("steer_instructions")
    assert len(suite.samples) == 144 and len({s.id for s in suite.samples}) == 144
    assert [s.name for s in suite.spec.scorers] == ["intent_compliance", "intensity_monotonicity", "speaker_leakage"]
    kinds = {s.metadata["kind"] for s in suite.samples}
    levels = {s.metadata["intensity_level"] for s in suite.samples}
    assert kinds == {"single", "composite"} and levels == {"30%", "60%", "100%"}
    assert len({s.input["text"] for s in suite.samples}) == 6 and len({s.input["voice"] for s in suite.samples}) == 6
    for s in suite.samples:
        assert set(s.input) == {"text", "instruction", "voice"}
        assert "emotions" in s.metadata["intent"] and "intent" not in json.dumps(s.input)
    groups: dict[str, list[str]] = {}
    for s in suite.samples:
        groups.setdefault(s.metadata["group"], []).append(s.metadata["intensity_level"])
    assert all(sorted(v) == ["100%", "30%", "60%"] for v in groups.values())
    assert suite.spec.generation["max_tokens"] <= 128 and suite.spec.config["ladder"] is True


def test_suite_matches_its_generator() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_steer_instructions.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def _sample(intent: Intent, text: str = "I left the keys on the kitchen counter.", voice: str = "en-us+f3") -> Sample:
    data = {"emotions": intent.emotions, "intensity": intent.intensity, "modifiers": list(intent.modifiers)}
    return Sample(id="t", input={"text": text, "instruction": "x", "voice": voice}, metadata={"intent": data})


def _wav(tmp: Path, name: str, text: str, cv: ControlVector, voice: str = "en-us+f3") -> str:
    return str(render(text, cv, voice).write(tmp / f"{name}.wav"))


def test_compliance_measures_the_wav_not_the_report(tmp_path: Path) -> None:
    intent = Intent({"anger": 1.0}, 1.0, ())
    sample = _sample(intent)
    text = sample.input["text"]
    good = _wav(tmp_path, "good", text, intent_to_control(intent))
    flat = str(neutral(text, "en-us+f3").write(tmp_path / "flat.wav"))
    score = asyncio.run(steertts_score.score_intent_compliance(sample, {"wav": good}, "", ScoreContext()))
    assert score.value >= 0.8 and score.details["metrics"]["direction"] >= 0.8, score.explanation
    # a neutral reading with a report that claims success still fails: only the audio counts
    lying = {"wav": flat, "error_jnd": 0.0, "measured": {"f0_shift": 4.0}}
    score = asyncio.run(steertts_score.score_intent_compliance(sample, lying, "", ScoreContext()))
    assert score.value == 0.0 and score.passed is False
    missing = asyncio.run(steertts_score.score_intent_compliance(sample, {"wav": str(tmp_path / "no.wav")}, "",
                                                                 ScoreContext()))
    assert missing.value == 0.0 and "no wav" in str(missing.explanation)


def test_monotonicity_needs_a_rising_ladder(tmp_path: Path) -> None:
    intent = Intent({"happiness": 1.0}, 0.6, ())
    sample = _sample(intent)
    text = sample.input["text"]
    wavs = {lv: _wav(tmp_path, f"l{lv}", text, intent_to_control(Intent(intent.emotions, lv, ())))
            for lv in (0.3, 0.6, 1.0)}
    ladder = [{"intensity": lv, "wav": w} for lv, w in wavs.items()]
    score = asyncio.run(steertts_score.score_intensity_monotonicity(sample, {"ladder": ladder}, "", ScoreContext()))
    assert score.value >= 0.75, score.explanation
    reversed_ = [{"intensity": 0.3, "wav": wavs[1.0]}, {"intensity": 0.6, "wav": wavs[0.6]},
                 {"intensity": 1.0, "wav": wavs[0.3]}]
    score = asyncio.run(steertts_score.score_intensity_monotonicity(sample, {"ladder": reversed_}, "", ScoreContext()))
    assert score.value == 0.0 and score.passed is False
    none = asyncio.run(steertts_score.score_intensity_monotonicity(sample, {"wav": wavs[0.6]}, "", ScoreContext()))
    assert none.value == 0.0 and "ladder" in str(none.explanation)


def test_speaker_identity_is_scored_on_the_audio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(steertts_score, "SPEAKER_LIBRARY", "tiny")  # speakers en-us and en-us+f3
    intent = Intent({"sadness": 1.0}, 0.6, ())
    sample = _sample(intent, voice="en-us+f3")
    own = _wav(tmp_path, "own", sample.input["text"], intent_to_control(intent), "en-us+f3")
    other = _wav(tmp_path, "other", sample.input["text"], intent_to_control(intent), "en-us")
    kept = asyncio.run(steertts_score.score_speaker_leakage(sample, {"wav": own}, "", ScoreContext()))
    swapped = asyncio.run(steertts_score.score_speaker_leakage(sample, {"wav": other}, "", ScoreContext()))
    assert kept.passed is True and kept.value > 0.5 and kept.details["metrics"]["requested_identified"] == 1.0
    assert swapped.passed is False and swapped.value < 0.5  # another voice: not the neutral reading's speaker
    assert set(kept.details["metrics"]) == {"requested_identified", "neutral_identified", "speaker_from_emotion_p",
                                            "chance"}
    unknown = asyncio.run(steertts_score.score_speaker_leakage(_sample(intent, voice="en-us+m3"), {"wav": own}, "",
                                                               ScoreContext()))
    assert unknown.passed is None and "not a speaker" in str(unknown.explanation)


@pytest.mark.slow
def test_eval_end_to_end_with_a_scripted_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(steertts_score, "SPEAKER_LIBRARY", "tiny")
    folder = tmp_path / "steer_small"
    folder.mkdir()
    rows = [json.loads(line) for line in (SUITE / "instructions.jsonl").read_text().splitlines()]
    picked = [r for r in rows if r["voice"] in ("en-us", "en-us+f3")][:2]
    (folder / "instructions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in picked))
    spec_text = (SUITE / "suite.yaml").read_text().replace("library: small", "library: tiny")
    (folder / "suite.yaml").write_text(spec_text.replace("name: steer_instructions", "name: steer_small"))
    replies: list[Any] = ["not json at all"]
    model = register_script("steer-eval", replies, repeat_last=True)
    run = harness.create_eval(harness.EvalArgs(suite=str(folder), model=model, epochs=1, concurrency=1,
                                               log_dir=str(tmp_path / "runs")))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {}, results.errors
    for key in ("intent_compliance/mean", "intensity_monotonicity/mean", "speaker_leakage/mean",
                "intent_compliance/accuracy[kind=single]"):
        assert key in results.metrics, sorted(results.metrics)
    records = [json.loads(line) for line in (run.path / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["output"]["parse"]["source"] == "keyword_fallback" for r in records)
    assert all(any(a.endswith(".wav") for a in r["artifacts"]) for r in records)
    assert np.isfinite(results.metrics["intent_compliance/mean"]["value"])


def test_compliance_judges_direction_and_amount_separately() -> None:
    from paperworks.backends.steertts import cues

    target = np.full(9, np.nan, dtype=np.float32)
    target[:8] = [0.8, 0.0, 0.0, 0.0, 3.0, 0.0, 6.0, 0.0]  # f0 +0.8, tempo +3, intensity +6 JND
    measured = np.array([-0.1, 0.0, 0.0, 0.0, 3.2, 0.0, 3.0, 0.0, 0.0], dtype=np.float32)
    rows = {r["feature"]: r for r in steertts_score.compliance(measured, target)["features"]}
    assert set(rows) == {"f0_shift", "tempo", "intensity"} and cues.targeted(target).sum() == 3
    assert rows["f0_shift"]["amount"] and not rows["f0_shift"]["direction"]  # 0.9 JND off, but the wrong way
    assert rows["tempo"]["amount"] and rows["tempo"]["direction"]
    assert rows["intensity"]["direction"] and not rows["intensity"]["amount"]  # half the intended change
