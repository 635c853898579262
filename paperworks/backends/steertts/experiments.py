"""The repro's two experiments, as functions returning plain dicts: speaker/emotion leakage with and without
the two leakage terms, and control error of open loop vs anchors vs fast loop vs fast + slow loop."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.steertts import cues
from paperworks.backends.steertts.acoustics import context_vector
from paperworks.backends.steertts.critic import critique
from paperworks.backends.steertts.disentangle import DisentangleConfig, leakage, train_disentangler
from paperworks.backends.steertts.library import PrototypeLibrary
from paperworks.backends.steertts.loop import FastLoopConfig, Step, best_step, run_fast_loop
from paperworks.backends.steertts.resources import Resources, encoder_rows, retrieve, synthesize
from paperworks.tools.speech.intent import Intent, intent_to_control, parse_intent

CONDITIONS: tuple[tuple[str, bool, bool], ...] = (("none", False, False), ("grl", True, False),
                                                   ("xcov", False, True), ("grl+xcov", True, True))
"""Leakage ablation: (name, gradient reversal, cross-covariance penalty)."""


def leakage_experiment(lib: PrototypeLibrary, seeds: tuple[int, ...], steps: int, probe_steps: int,
                       progress: Callable[[str], None]) -> dict[str, Any]:
    """Per condition: probe accuracies (mean and per seed) on a 70/30 random split of the library."""
    x = encoder_rows(lib)
    n_spk, n_emo = len(lib.voices), len(cues.CLASSES)
    out: dict[str, Any] = {}
    for name, grl, xcov in CONDITIONS:
        runs = []
        for seed in seeds:
            progress(f"disentanglement [{name}], seed {seed}: {steps} steps, then fresh probes")
            perm = np.random.default_rng(100 + seed).permutation(len(lib))
            cut = int(0.7 * len(lib))
            tr, te = perm[:cut], perm[cut:]
            model, losses = train_disentangler(x[tr], lib.voice[tr], lib.cls[tr], n_spk, n_emo,
                                               DisentangleConfig(grl=grl, xcov=xcov, steps=steps, seed=seed))
            acc = leakage(model, x[tr], lib.voice[tr], lib.cls[tr], x[te], lib.voice[te], lib.cls[te], n_spk, n_emo,
                          probe_steps=probe_steps, seed=seed)
            runs.append({**acc, **{f"loss_{k}": v for k, v in losses.items()}})
        out[name] = {"mean": {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}, "runs": runs}
    return out


def benchmark_rows(path: Path, n: int) -> list[dict[str, Any]]:
    """``n`` rows of the suite spread over intents, pairs and intensities: the i-th pick is intent ``i % 24``,
    (text, voice) pair ``(i // 24) % 2`` and intensity ``(i + i // 24) % 3`` (the file runs intent by intent,
    pair by pair, 30/60/100%)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if n >= len(rows):
        return rows
    per_intent = 6
    n_intents = len(rows) // per_intent
    picks = [(i % n_intents) * per_intent + ((i // n_intents) % 2) * 3 + (i + i // n_intents) % 3 for i in range(n)]
    return [rows[j] for j in dict.fromkeys(picks)]


@dataclass
class ControlSettings:
    """Settings of the control experiment."""

    fast: FastLoopConfig
    max_replans: int = 1
    k: int = 4


def _error_all(m: np.ndarray, t: np.ndarray) -> float:
    return cues.control_error(m, t, dims="all")


def control_case(res: Resources, row: dict[str, Any], cs: ControlSettings) -> dict[str, Any]:
    """Every condition on one benchmark row; errors always against the row's ground-truth target."""
    from paperworks.tools.speech import ControlVector, measure, neutral, relative, render

    text, voice, instruction = row["text"], row["voice"], row["instruction"]
    truth = cues.intent_from_dict(row["intent"])
    target = cues.target_profile(truth)
    base = measure(neutral(text, voice))
    ctx = context_vector(base)
    memo: dict[bytes, np.ndarray] = {}
    renders = {"n": 0}

    def evaluate(unit: np.ndarray) -> np.ndarray:
        key = np.asarray(unit, dtype=np.float32).round(5).tobytes()
        if key not in memo:
            renders["n"] += 1
            audio = render(text, ControlVector.from_unit(np.asarray(unit, dtype=np.float64)), voice)
            memo[key] = cues.profile_from_relative(relative(measure(audio), base))
        return memo[key]

    plan = parse_intent(instruction)  # the keyword table: the open loop's reading, and every condition's plan
    plan_target = cues.target_profile(plan)
    open_unit = intent_to_control(plan).to_unit()
    open_m = evaluate(open_unit)
    anchors, _ = retrieve(res, plan, voice, k=cs.k)
    fused, _, _ = synthesize(res, plan_target, anchors, plan, ctx)
    fused_m = evaluate(fused)
    fast = run_fast_loop(evaluate, res.surrogate, ctx, plan_target, fused, cs.fast)
    slow: list[Step] = list(fast)
    replans, reasons = 0, []
    current, aim = plan, None
    while replans < cs.max_replans:
        verdict = critique(current, cues.target_profile(current), best_step(slow).measured, instruction,
                           cs.fast.tolerance_jnd, cs.fast.intensity_tolerance)
        if verdict.agree:
            break
        replans += 1
        reasons += verdict.reasons
        current = verdict.intent or current
        cur_target = cues.target_profile(current)
        aim = verdict.aim if verdict.aim is not None else cur_target
        anchors, _ = retrieve(res, current, voice, aim_shift=aim - cur_target, k=cs.k)
        start, _, _ = synthesize(res, aim, anchors, current, ctx)
        slow += run_fast_loop(evaluate, res.surrogate, ctx, cur_target, start, cs.fast, aim=aim, prior=slow)
    matched = run_fast_loop(evaluate, res.surrogate, ctx, plan_target, fused, replace(cs.fast, budget=len(slow)))
    from_rule = run_fast_loop(evaluate, res.surrogate, ctx, plan_target, open_unit, cs.fast)

    def err(m: np.ndarray) -> float:  # an intent that targets nothing: every feature counts
        e = cues.control_error(m, target)
        return e if math.isfinite(e) else _error_all(m, target)

    def summary(steps: list[Step]) -> dict[str, Any]:
        best = best_step([Step(s.unit, s.measured, err(s.measured), cues.intensity_ratio(s.measured, target))
                          for s in steps])
        return {"error": best.error, "error_all": _error_all(best.measured, target), "ratio": best.ratio,
                "renders": len(steps), "curve": [err(s.measured) for s in steps],
                "within": bool(best.error <= cs.fast.tolerance_jnd) if math.isfinite(best.error) else None}

    one = {"open_loop": [Step(open_unit, open_m, 0, 0)], "anchors": [Step(fused, fused_m, 0, 0)]}
    return {"id": row["id"], "kind": row["kind"], "intensity": truth.intensity, "voice": voice,
            "targeted": int(cues.targeted(target).sum()), "replans": replans, "reasons": reasons[:4],
            "unique_renders": renders["n"],
            **{name: summary(steps) for name, steps in {**one, "fast": fast, "fast+slow": slow,
                                                         "fast_matched": matched, "fast_from_open": from_rule}.items()}}


def control_experiment(res: Resources, rows: list[dict[str, Any]], cs: ControlSettings,
                       progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """:func:`control_case` on every row."""
    out = []
    for i, row in enumerate(rows):
        if i % max(1, len(rows) // 6) == 0:
            progress(f"control: instruction {i + 1}/{len(rows)} ({row['id']})")
        out.append(control_case(res, row, cs))
    return out


def intent_of(row: dict[str, Any]) -> Intent:
    """A suite row's ground-truth intent."""
    return cues.intent_from_dict(row["intent"])
