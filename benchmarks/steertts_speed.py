"""Speed of AgentSteerTTS's speech tools: real-time factor (RTF) of render + measure + one correction step.

One pass of the fast loop on the offline engine, per utterance:
  1. neutral render, cold (espeak-ng, trimming and normalisation, PSOLA analysis, neutral resynthesis),
  2. measure the neutral reading,
  3. render with a control vector (PSOLA + shaping, neutral analysis cached),
  4. measure it,
  5. one correction step: re-render with a modified control vector and re-measure.
RTF = seconds of compute / seconds of audio rendered in step 3 (goal: < 1, faster than real time).
Each utterance's figure is the median of several runs (engine cache cleared for each cold render).
Runs on one core: the process pins itself to one CPU and sets the BLAS/OpenMP thread counts to 1
(Praat is single-threaded). The same-run baseline is espeak-ng's own synthesis of the same texts
(no prosody control, no measurement): ``pipeline_over_espeak`` is the ratio.
Writes ``benchmarks/results/steertts_speed.json`` (a flat object) and prints it.

    .venv/bin/python benchmarks/steertts_speed.py
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "steertts_speed.json"
RUNS = 5
GOAL_RTF = 1.0
TEXTS = (
    "Are you sure?",
    "I told you twice already, and you still did not listen.",
    "The meeting has been moved to Thursday afternoon. Please bring the quarterly figures, "
    "and let everyone on the team know before the end of the day.",
)
VOICES = ("en-us", "en-us+f3")
CONTROL = {"f0_shift_st": 3.0, "f0_range_scale": 1.4, "tempo_scale": 1.15, "pause_scale": 0.8,
           "intensity_db": 5.0, "tilt_db_per_oct": 2.0}
"""An 'angry'-like control vector (as the keyword table would give)."""
CORRECTION = {"f0_shift_st": 0.5, "intensity_db": 1.0, "tempo_scale": -0.05}
"""The correction step's change to the control vector (what a gradient step might do)."""


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _one(engine: Any, text: str, voice: str) -> dict[str, float]:
    from paperworks.tools.speech import ControlVector, measure

    cv = ControlVector(**CONTROL)
    fixed = cv.replace(**{k: getattr(cv, k) + v for k, v in CORRECTION.items()})
    engine.clear_cache()
    t_neutral, neutral = _timed(lambda: engine.neutral(text, voice))
    t_measure_neutral, _ = _timed(lambda: measure(neutral))
    t_render, audio = _timed(lambda: engine.render(text, cv, voice))
    t_measure, _ = _timed(lambda: measure(audio))
    t_fix_render, fixed_audio = _timed(lambda: engine.render(text, fixed, voice))
    t_fix_measure, _ = _timed(lambda: measure(fixed_audio))
    return {"audio_s": audio.duration, "neutral_render_s": t_neutral, "measure_neutral_s": t_measure_neutral,
            "render_s": t_render, "measure_s": t_measure, "correction_render_s": t_fix_render,
            "correction_measure_s": t_fix_measure}


def _espeak_only(text: str, voice: str) -> float:
    from paperworks.tools.speech import espeak

    t, _ = _timed(lambda: espeak.synthesize(text, voice))
    return t


def main() -> dict[str, Any]:
    """Measure, write the JSON results file and return its content."""
    t_import, _ = _timed(lambda: __import__("parselmouth"))
    from paperworks.tools.speech.offline import EspeakPsolaEngine

    engine = EspeakPsolaEngine()
    _one(engine, TEXTS[0], VOICES[0])  # warm-up: first-call costs (imports, espeak-ng data in the page cache)
    stages = ("neutral_render_s", "measure_neutral_s", "render_s", "measure_s", "correction_render_s",
              "correction_measure_s")
    totals = dict.fromkeys(("audio_s", *stages), 0.0)
    per_text: dict[str, float] = {}
    espeak_s = 0.0
    for i, text in enumerate(TEXTS):
        for voice in VOICES:
            runs = [_one(engine, text, voice) for _ in range(RUNS)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            for k in totals:
                totals[k] += med[k]
            espeak_s += statistics.median(_espeak_only(text, voice) for _ in range(RUNS))
            tag = f"text{i + 1}_{voice.replace('+', '_').replace('-', '_')}"
            per_text[f"rtf_{tag}"] = round(sum(med[s] for s in stages) / med["audio_s"], 4)
            per_text[f"audio_s_{tag}"] = round(med["audio_s"], 3)
    audio = totals["audio_s"]
    compute = sum(totals[s] for s in stages)
    out: dict[str, Any] = {
        "utterances": len(TEXTS) * len(VOICES), "runs_per_utterance": RUNS, "audio_s": round(audio, 3),
        "compute_s": round(compute, 4),
        "rtf_total": round(compute / audio, 4),
        **{f"rtf_{s[:-2]}": round(totals[s] / audio, 4) for s in stages},
        "rtf_correction_step": round((totals["correction_render_s"] + totals["correction_measure_s"]) / audio, 4),
        "rtf_espeak_only_baseline": round(espeak_s / audio, 4),
        "pipeline_over_espeak": round(compute / espeak_s, 2),
        "goal_rtf": GOAL_RTF,
        "goal_met": compute / audio < GOAL_RTF,
        **per_text,
        "parselmouth_import_s": round(t_import, 3),
        "one_core": True,
        "cpu_affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    for dist in ("praat-parselmouth", "numpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    version = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=False).stdout
    out["espeak-ng"] = version.split(":")[1].split()[0] if ":" in version else None
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
