"""The synchronous work of the ``steertts`` nodes (rendering, measuring, retrieval, fusion, correction),
kept apart from the graph so that each node is one ``asyncio.to_thread`` call. Every render is written to
the run's artifact store; state keeps paths and small numbers only."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.steertts import cues
from paperworks.backends.steertts.acoustics import context_vector
from paperworks.backends.steertts.loop import FastLoopConfig, Step, propose, run_fast_loop
from paperworks.backends.steertts.resources import Resources, get_resources, retrieve, synthesize
from paperworks.core.artifacts import ArtifactStore
from paperworks.tools.speech import ControlVector, Features, measure, neutral, relative, render
from paperworks.tools.speech.intent import Intent


def store_of(store: ArtifactStore | None) -> ArtifactStore:
    """The run's artifact store, or a temporary one outside a recorded run."""
    return store if store is not None else ArtifactStore(Path(tempfile.mkdtemp(prefix="steertts-")))


def prepare(text: str, voice: str, library: str, store: ArtifactStore) -> dict[str, Any]:
    """Load the resources (building the library on first use), render and measure the neutral reading."""
    get_resources(library)
    audio = neutral(text, voice)
    path = store.resolve("renders/neutral.wav")
    audio.write(path)
    feats = measure(audio)
    return {"wav": str(path.resolve()), "features": feats.to_array().tolist(),
            "context": context_vector(feats).tolist()}


def _f(values: Any) -> np.ndarray:
    return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float32)


def render_one(text: str, voice: str, unit: list[float], base: list[float], name: str,
               store: ArtifactStore) -> dict[str, Any]:
    """Render a unit control, keep the wav, and measure it against the neutral features ``base``."""
    cv = ControlVector.from_unit(np.asarray(unit, dtype=np.float64))
    audio = render(text, cv, voice)
    path = store.resolve(f"renders/{name}.wav")
    audio.write(path)
    feats = measure(audio)
    prof = cues.profile_from_relative(relative(feats, Features.from_array(_f(base))))
    return {"name": name, "wav": str(path.resolve()), "unit": [round(float(x), 6) for x in unit],
            "control": {k: round(v, 4) for k, v in cv.as_dict().items()},
            "measured": [None if not math.isfinite(float(x)) else round(float(x), 4) for x in prof],
            "features": feats.as_dict()}


def score_render(entry: dict[str, Any], target: np.ndarray) -> dict[str, Any]:
    """A render entry with its control error and intensity ratio against ``target``."""
    m = _f(entry["measured"])
    err, ratio = cues.control_error(m, target), cues.intensity_ratio(m, target)
    if math.isnan(err):
        err = cues.control_error(m, target, dims="all")
    return {**entry, "error": None if math.isnan(err) else round(err, 4),
            "ratio": None if math.isnan(ratio) else round(ratio, 4)}


def steps_of(renders: list[dict[str, Any]], target: np.ndarray) -> list[Step]:
    """Render entries as loop steps (errors against ``target``)."""
    out = []
    for r in renders:
        m = _f(r["measured"])
        out.append(Step(np.asarray(r["unit"], dtype=np.float32), m, cues.control_error(m, target),
                        cues.intensity_ratio(m, target)))
    return out


def anchor_plan(res: Resources, intent: Intent, voice: str, aim: np.ndarray | None, k: int,
                context: list[float] | np.ndarray) -> dict[str, Any]:
    """Retrieval Agent then Synthesis Agent: anchors per component (plus the rule anchor) and the fused control."""
    target = cues.target_profile(intent)
    goal = aim if aim is not None else target
    anchors, stats = retrieve(res, intent, voice, aim_shift=None if aim is None else goal - target, k=k)
    unit, attn, gate = synthesize(res, goal, anchors, intent, np.asarray(context, dtype=np.float32))
    rule = {"index": -1, "distance": None, "component": "rule", "weight": 1.0, "attention": round(float(attn[0]), 4),
            "voice": voice}
    return {"anchors": [rule, *({**a.as_dict(), "attention": round(float(w), 4),
                                 "voice": res.library.voices[int(res.library.voice[a.index])]}
                                for a, w in zip(anchors, attn[1:], strict=True))],
            "retrieval": [{"candidates": s.candidates, "pruned_radius": s.pruned_radius,
                           "pruned_redundant": s.pruned_redundant, "beyond_radius": s.beyond_radius} for s in stats],
            "unit": [round(float(x), 6) for x in unit], "gate": [round(float(x), 4) for x in gate]}


def next_control(res: Resources, context: list[float], renders: list[dict[str, Any]], intent: Intent,
                 aim: np.ndarray | None, cfg: FastLoopConfig) -> tuple[list[float], dict[str, float]]:
    """Fast Control Agent: the next unit control from every render so far (``loop.propose``)."""
    target = cues.target_profile(intent)
    unit, info = propose(res.surrogate, np.asarray(context, dtype=np.float32), steps_of(renders, target), target,
                         cfg, aim)
    return [round(float(x), 6) for x in unit], {k: round(v, 4) for k, v in info.items()}


def ladder(res: Resources, text: str, voice: str, intent: Intent, neutral_state: dict[str, Any],
           best: dict[str, Any], levels: tuple[float, ...], budget: int, k: int, cfg: FastLoopConfig,
           store: ArtifactStore) -> list[dict[str, Any]]:
    """The intent at each intensity of ``levels``: the main result where its intensity is one of them, else
    anchors + fusion + a fast loop of ``budget`` renders; every render kept."""
    out = []
    base, ctx = neutral_state["features"], np.asarray(neutral_state["context"], dtype=np.float32)
    for level in levels:
        if abs(level - intent.intensity) < 0.01:
            out.append({"intensity": level, "wav": best["wav"], "error": best.get("error"), "renders": 0,
                        "reused": True})
            continue
        part = Intent(dict(intent.emotions), level, intent.modifiers)
        target = cues.target_profile(part)
        start = np.asarray(anchor_plan(res, part, voice, None, k, ctx)["unit"], dtype=np.float32)
        entries: list[dict[str, Any]] = []

        def evaluate(unit: np.ndarray, _level: float = level, _entries: list[dict[str, Any]] = entries) -> np.ndarray:
            entry = render_one(text, voice, unit.tolist(), base, f"ladder_{round(_level * 100)}_r{len(_entries) + 1}",
                               store)
            _entries.append(entry)
            return _f(entry["measured"])

        steps = run_fast_loop(evaluate, res.surrogate, ctx, target, start, FastLoopConfig(
            **{**cfg.__dict__, "budget": budget}))
        i = int(np.argmin([s.error if math.isfinite(s.error) else math.inf for s in steps]))
        out.append({"intensity": level, "wav": entries[i]["wav"], "error": None if math.isnan(steps[i].error)
                    else round(steps[i].error, 4), "renders": len(entries), "reused": False})
    return out
