"""Scorers of ``steer_instructions``, on the audio: each scorer reads the workflow's wav files and measures
them itself (``tools.speech.measure``), against a neutral reading of the same text and voice that it
renders itself; nothing the workflow reports about its own measurements is read. The target is the row's
ground-truth intent (suite metadata, never shown to the workflow), through the documented cue mapping
(``backends.steertts.cues``).

- ``intent_compliance``: per targeted feature (>= 0.5 JND from neutral in the target), *direction* (it moved
  the intended way by at least a quarter of the intended amount) and *amount* (within max(1 JND, 35% of the
  intended change)); value = share of targeted features meeting both, passed = all do. A feature that cannot
  be measured for the row's text and voice (pauses, when the neutral reading has none) is left out.
- ``intensity_monotonicity``: the workflow's 30/60/100% ladder (``ladder: true``); per feature targeted at
  100%, the signed change must rise strictly 30 < 60 < 100; value = share of those features, passed = all.
- ``speaker_leakage``: does the emotional control change who seems to speak? The disentangled speaker
  encoder (``backends.steertts.resources.get_disentangler``, trained on the small library, both leakage
  terms on) identifies the speaker of the render and of the scorer's own neutral reading of the same
  text and voice; passed = the same top speaker, value = the render's probability of the neutral
  reading's top speaker. Sub-metrics: ``requested_identified`` (the render's top speaker is the requested
  voice), ``neutral_identified`` (the neutral reading's is: how well the encoder knows this voice on this
  text at all), and the emotion embedding's adversary's probability of the requested speaker (leakage into
  the emotion side; chance = 1 / speakers).
- ``profile_judge`` (optional, not in the suite's list; needs ``--judge-model``): a model reads the
  scorer's measured profile beside the instruction and grades C/P/I (1/0.5/0).
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.core.errors import UserError
from paperworks.core.scoring import Sample, Score

SPEAKER_LIBRARY = "small"
"""Library preset whose speakers ``speaker_leakage`` knows (the benchmark's voices are all in it)."""
DIRECTION_SHARE = 0.25
"""A targeted feature must move at least this share of the intended change, the intended way."""
AMOUNT_JND, AMOUNT_SHARE = 1.0, 0.35
"""... and land within max(AMOUNT_JND, AMOUNT_SHARE x |intended change|) of it."""


def _truth(sample: Sample) -> Any:
    from paperworks.backends.steertts import cues

    intent = sample.metadata.get("intent")
    if not isinstance(intent, dict):
        raise UserError(f"{sample.source}: row '{sample.id}' has no ground-truth 'intent' in its metadata")
    return cues.intent_from_dict(intent)


def _wav(value: Any) -> Path | None:
    return Path(value) if isinstance(value, str) and value and Path(value).is_file() else None


def _measure_profile(wav: Path, text: str, voice: str) -> np.ndarray:
    """The wav's JND profile against the scorer's own neutral reading; the pause dimension is +inf when that
    neutral reading has no pause (the feature cannot be measured for this text and voice)."""
    from paperworks.backends.steertts import cues
    from paperworks.tools.speech import measure, neutral, read_wav, relative

    base = measure(neutral(text, voice))
    prof = cues.profile_from_relative(relative(measure(read_wav(wav)), base))
    if not base.pause_total_s > 0:
        prof[cues.PROFILE_DIMS.index("pause")] = math.inf
    return prof


def _row(sample: Sample) -> tuple[str, str]:
    return str(sample.input.get("text", "")), str(sample.input.get("voice") or "en-us")


def compliance(measured: np.ndarray, target: np.ndarray) -> dict[str, Any]:
    """Per targeted feature: direction and amount verdicts (module docstring)."""
    from paperworks.backends.steertts import cues

    rows = []
    for i in np.flatnonzero(cues.targeted(target)):
        t, m = float(target[i]), float(measured[i])
        if m == math.inf:  # not measurable for this text and voice (no pause in the neutral reading)
            continue
        ok_dir = math.isfinite(m) and m * math.copysign(1.0, t) >= DIRECTION_SHARE * abs(t)
        ok_amt = math.isfinite(m) and abs(m - t) <= max(AMOUNT_JND, AMOUNT_SHARE * abs(t))
        rows.append({"feature": cues.PROFILE_DIMS[i], "target_jnd": round(t, 3),
                     "measured_jnd": None if not math.isfinite(m) else round(m, 3),
                     "direction": ok_dir, "amount": ok_amt})
    finite = np.where(np.isinf(measured), np.nan, measured)
    return {"features": rows, "error_jnd": cues.control_error(finite, target),
            "ratio": cues.intensity_ratio(finite, target)}


async def score_intent_compliance(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """See the module docstring."""
    from paperworks.backends.steertts import cues

    wav = _wav(output.get("wav") if isinstance(output, dict) else None)
    if wav is None:
        return Score(0.0, False, answer, "the output names no wav file that exists")
    text, voice = _row(sample)
    target = cues.target_profile(_truth(sample))
    measured = await asyncio.to_thread(_measure_profile, wav, text, voice)
    res = compliance(measured, target)
    rows = res["features"]
    if not rows:  # an intent that moves nothing: stay within 1 JND of neutral everywhere
        ok = bool(np.all(np.abs(np.nan_to_num(measured[:-1], posinf=0.0)) <= 1.0))
        return Score(float(ok), ok, answer, "no targeted feature; " + ("stays neutral" if ok else "moved"))
    both = [bool(r["direction"] and r["amount"]) for r in rows]
    value = sum(both) / len(both)
    missed = [f"{r['feature']} {r['measured_jnd']} vs {r['target_jnd']} JND" for r, b in zip(rows, both, strict=True)
              if not b]
    return Score(value, all(both), answer, "every targeted feature complies" if all(both) else
                 "missed: " + "; ".join(missed), details={
                     "features": rows, "metrics": {
                         "direction": sum(r["direction"] for r in rows) / len(rows),
                         "amount": sum(r["amount"] for r in rows) / len(rows),
                         "control_error_jnd": res["error_jnd"]}})


async def score_intensity_monotonicity(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """See the module docstring."""
    from paperworks.backends.steertts import cues
    from paperworks.tools.speech.intent import Intent

    rungs = output.get("ladder") if isinstance(output, dict) else None
    by_level = {round(float(r.get("intensity", -1)), 2): _wav(r.get("wav")) for r in (rungs or [])
                if isinstance(r, dict)}
    levels = (0.3, 0.6, 1.0)
    if any(by_level.get(lv) is None for lv in levels):
        return Score(0.0, False, answer, "the output has no 30/60/100% ladder of wav files (run with -c ladder=true)")
    truth = _truth(sample)
    target = cues.target_profile(Intent(dict(truth.emotions), 1.0, truth.modifiers))
    text, voice = _row(sample)
    profiles = [await asyncio.to_thread(_measure_profile, by_level[lv], text, voice) for lv in levels]  # type: ignore[arg-type]
    rows: list[dict[str, Any]] = []
    for i in np.flatnonzero(cues.targeted(target)):
        if any(float(p[i]) == math.inf for p in profiles):  # not measurable for this text and voice
            continue
        sign = math.copysign(1.0, float(target[i]))
        s = [float(p[i]) * sign for p in profiles]
        rows.append({"feature": cues.PROFILE_DIMS[i], "signed_jnd": [round(x, 3) for x in s],
                     "monotone": all(math.isfinite(x) for x in s) and s[0] < s[1] < s[2]})
    if not rows:
        return Score(0.0, False, answer, "the intent targets no feature at 100%")
    ok = [bool(r["monotone"]) for r in rows]
    bad = [str(r["feature"]) for r in rows if not r["monotone"]]
    return Score(sum(ok) / len(ok), all(ok), answer, "monotone on every targeted feature" if all(ok) else
                 f"not monotone: {', '.join(bad)}", details={"features": rows})


def _speaker_probs(wav: Path, text: str, voice: str) -> dict[str, Any]:
    from paperworks.backends.steertts.acoustics import encoder_input, spectral_envelope
    from paperworks.backends.steertts.resources import get_disentangler
    from paperworks.tools.speech import measure, neutral, read_wav

    model, lib = get_disentangler(SPEAKER_LIBRARY)
    if voice not in lib.voices:
        return {"known": False, "voices": list(lib.voices)}
    k = lib.voices.index(voice)
    out: dict[str, Any] = {"known": True, "chance": 1.0 / len(lib.voices)}
    for name, audio in (("render", read_wav(wav)), ("neutral", neutral(text, voice))):
        p, adv = model.speaker_posteriors(encoder_input(measure(audio), spectral_envelope(audio)))
        out[name] = {"p": float(p[k]), "top": lib.voices[int(np.argmax(p))], "adversary_p": float(adv[k]),
                     "probs": p}
    top_n = lib.voices.index(out["neutral"]["top"])
    out["render"]["p_neutral_top"] = out["render"]["probs"][top_n]
    return out


async def score_speaker_leakage(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """See the module docstring."""
    wav = _wav(output.get("wav") if isinstance(output, dict) else None)
    if wav is None:
        return Score(0.0, False, answer, "the output names no wav file that exists")
    text, voice = _row(sample)
    res = await asyncio.to_thread(_speaker_probs, wav, text, voice)
    if not res["known"]:
        return Score(0.0, None, answer, f"voice '{voice}' is not a speaker of the {SPEAKER_LIBRARY} library "
                     f"({', '.join(res['voices'])}); identity not scored")
    r, n = res["render"], res["neutral"]
    kept = r["top"] == n["top"]
    return Score(r["p_neutral_top"], kept, answer, f"render heard as {r['top']}, the neutral reading as {n['top']} "
                 f"(requested {voice}: p={r['p']:.2f} in the render, {n['p']:.2f} in the neutral reading)",
                 details={"top": r["top"], "neutral_top": n["top"], "metrics": {
                     "requested_identified": float(r["top"] == voice), "neutral_identified": float(n["top"] == voice),
                     "speaker_from_emotion_p": r["adversary_p"], "chance": res["chance"]}})


async def score_profile_judge(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """See the module docstring."""
    from paperworks.agents.steertts.parse import json_object
    from paperworks.backends.steertts import cues
    from paperworks.models.gateway import model_for

    if not getattr(ctx, "judge_model", None):
        raise UserError("scorer 'profile_judge' needs --judge-model")
    wav = _wav(output.get("wav") if isinstance(output, dict) else None)
    if wav is None:
        return Score(0.0, False, answer, "the output names no wav file that exists")
    text, voice = _row(sample)
    measured = await asyncio.to_thread(_measure_profile, wav, text, voice)
    lines = "\n".join(f"- {line}" for line in cues.describe(measured))
    messages = [{"role": "system", "content": "You grade synthesised speech against its speaking instruction from "
                 "acoustic measurements relative to a neutral reading. Reply with JSON only."},
                {"role": "user", "content": f"Instruction: {sample.input.get('instruction', '')}\nMeasured change "
                 f"from neutral:\n{lines}\nDoes the voice follow the instruction? Reply "
                 '{"reasoning": "<one sentence>", "grade": "C" (yes), "P" (partly) or "I" (no)}'}]
    reply = (await model_for(ctx.judge_model, cache=getattr(ctx, "cache", False)).generate(
        messages, temperature=0, seed=getattr(ctx, "seed", 0))).text
    data, error = json_object(reply)
    grade = str((data or {}).get("grade", "")).strip().upper()[:1]
    value = {"C": 1.0, "P": 0.5, "I": 0.0}.get(grade)
    if value is None:
        return Score(0.0, False, answer, f"the judge's reply could not be read ({error or 'no grade'})",
                     details={"judge_error": error or "no grade", "reply": reply[:300]})
    return Score(value, value == 1.0, answer, str((data or {}).get("reasoning", ""))[:300],
                 details={"grade": grade, "judge_model": ctx.judge_model})


SCORERS: dict[str, Any] = {"intent_compliance": score_intent_compliance,
                           "intensity_monotonicity": score_intensity_monotonicity,
                           "speaker_leakage": score_speaker_leakage, "profile_judge": score_profile_judge}
