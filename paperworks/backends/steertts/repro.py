"""``paperworks repro steertts``: speaker-emotion leakage with and without gradient reversal and the
cross-covariance term, and control error of open loop vs fast loop vs fast + slow loop on the benchmark.

Protocol.
(1) The prototype library (``library``; full: 5 texts x 20 voices x 20 = 2,000 renders) is built (or read
from its cache; the build time is recorded either way). (2) The surrogate and the fusion module are
trained on it. (3) Leakage: on a 70/30 random split of the library (20 voices, 9 rendered classes), the
disentanglement module is trained under each of none / GRL / cross-covariance / both; fresh MLP probes on
the frozen embeddings give speaker accuracy from the emotion embedding and emotion accuracy from the
speaker embedding (lower = less leakage), and the utility accuracies. (4) Control: on benchmark
instructions of ``evals/steer_instructions`` (texts and voices the library never rendered for the
texts), with the keyword table's reading of each instruction as the plan (identical to the ground
truth by construction), control error (mean |measured - target| in JNDs over the targeted features,
measured on the rendered audio) of: open loop (the keyword table's control vector), anchors
(retrieval + gated fusion, one render), fast loop (from the anchors, ``fast_budget`` renders), fast +
slow (the rule supervisor re-plans up to ``max_replans`` times), fast loop given the same number of
renders as fast + slow (``fast_matched``, so that the slow loop's own contribution shows), and the fast
loop started from the open loop's control instead of the anchors (``fast_from_open``, so that the
anchors' contribution as a start shows). An instruction whose target moves no feature by half a JND
(composites whose cues cancel) is scored over every feature.

The paper (abstract; no numbers or code are public) claims consistent, significant improvements over
its baselines and mitigated leakage; the figures below say what this reconstruction measures.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress
from paperworks.backends.steertts import cues
from paperworks.backends.steertts._threads import one_thread
from paperworks.backends.steertts.experiments import (
    ControlSettings,
    benchmark_rows,
    control_experiment,
    leakage_experiment,
)
from paperworks.backends.steertts.library import library_preset, load_or_build
from paperworks.backends.steertts.loop import FastLoopConfig
from paperworks.backends.steertts.plots import plot_control, plot_leakage
from paperworks.backends.steertts.resources import build_resources

SUITE_FILE = Path(__file__).resolve().parents[2] / "suites" / "steer_instructions" / "instructions.jsonl"
CONTROL_CONDITIONS = ["open_loop", "anchors", "fast", "fast+slow", "fast_matched", "fast_from_open"]
CLAIM_CONTROL = "consistent, significant improvement over baselines on composite instructions (abstract; no number)"
CLAIM_LEAK = "mitigates speaker-emotion leakage (abstract; no number)"


@dataclass
class SteerReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    library: str = "full"
    """Prototype library preset (``library.library_preset``)."""
    seeds: tuple[int, ...] = (0, 1, 2)
    """Disentanglement runs per condition."""
    disentangle_steps: int = 1500
    """Training steps per run."""
    probe_steps: int = 600
    """Training steps of each fresh probe."""
    instructions: int = 40
    """Benchmark instructions in the control experiment."""
    fast_budget: int = 4
    """Renders of one fast loop."""
    max_replans: int = 1
    """Supervisor re-plans."""
    tolerance_jnd: float = 0.3
    """The loops' control-error tolerance (JND)."""
    anchors: int = 4
    """Anchors per intent component."""
    extra: dict[str, Any] = field(default_factory=dict)


def preset(quick: bool) -> SteerReproConfig:
    """Full (about 10 minutes on 2 busy cores) or ``quick`` (about a minute)."""
    if quick:
        return SteerReproConfig(library="quick", seeds=(0,), disentangle_steps=300, probe_steps=200, instructions=5,
                                fast_budget=3)
    return SteerReproConfig()


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment; writes ``leakage.png`` and ``control_error.png`` into ``out``."""
    with one_thread():
        return _run(out, preset(quick), progress)


def _mean(xs: list[float]) -> float:
    ys = [x for x in xs if isinstance(x, (int, float)) and math.isfinite(x)]
    return float(np.mean(ys)) if ys else math.nan


def _run(out: Path, cfg: SteerReproConfig, progress: Progress) -> ReproResult:
    from paperworks.core.seeding import seed_everything

    seed_everything(0)
    out.mkdir(parents=True, exist_ok=True)
    result = ReproResult(name="steertts", config=asdict(cfg))
    t0 = time.monotonic()
    lib = load_or_build(library_preset(cfg.library), progress)
    agree = float(np.mean(lib.label == lib.cls))
    result.figures["library_prototypes"] = Figure(len(lib), paper="a large-scale acoustic prototype library",
                                                  note=f"{len(lib.texts)} texts x {len(lib.voices)} voices")
    result.figures["library_build_s"] = Figure(
        lib.meta.get("build_s"), unit="s", note=f"{lib.meta.get('workers')} worker processes; "
        f"{'read from the cache (the time is the original build)' if lib.meta.get('cached') else 'built in this run'}")
    result.figures["library_label_agreement"] = Figure(
        round(agree, 3), note="share of prototypes whose cue-mapping label (measured) is the class they were rendered "
        "from; chance 1/9; low intensities, mixtures and modifiers blur it")
    progress("training the surrogate and the fusion module")
    t = time.monotonic()
    res = build_resources(lib)
    s = res.metrics["surrogate"]
    result.figures["surrogate_heldout_mae_jnd"] = Figure(
        round(s["mae_jnd"], 3), unit="JND", note=f"held-out text-voice pairs; an ideal engine (command = measurement) "
        f"would be off by {s['ideal_engine_mae_jnd']:.3f} JND; trained in {time.monotonic() - t:.1f} s with the fusion")
    leak = leakage_experiment(lib, cfg.seeds, cfg.disentangle_steps, cfg.probe_steps, progress)
    base = leak["none"]["mean"]
    for name, m in leak.items():
        for key, claim in (("speaker_from_emotion", CLAIM_LEAK), ("emotion_from_speaker", CLAIM_LEAK),
                           ("speaker_from_speaker", None), ("emotion_from_emotion", None)):
            note = f"mean of {len(cfg.seeds)} seeds; chance {m['mean'][key.split('_')[0] + '_chance']:.3f}"
            if name != "none" and claim:
                note += f"; without either term {base[key]:.3f}"
            result.figures[f"{key}[{name}]"] = Figure(round(m["mean"][key], 3), paper=claim if name != "none" else None,
                                                      note=note)
    plot_leakage(leak, out / "leakage.png")
    result.plots.append("leakage.png")
    rows = benchmark_rows(SUITE_FILE, cfg.instructions)
    fast = FastLoopConfig(budget=cfg.fast_budget, tolerance_jnd=cfg.tolerance_jnd)
    cases = control_experiment(res, rows, ControlSettings(fast, cfg.max_replans, cfg.anchors), progress)
    for cond in CONTROL_CONDITIONS:
        errs = [c[cond]["error"] for c in cases]
        renders = _mean([c[cond]["renders"] for c in cases])
        within = _mean([float(c[cond]["within"]) for c in cases if c[cond]["within"] is not None])
        result.figures[f"control_error[{cond}]"] = Figure(
            round(_mean(errs), 3), unit="JND", paper=CLAIM_CONTROL if cond == "fast+slow" else None,
            note=f"{len(cases)} instructions; mean renders {renders:.2f}; within {cfg.tolerance_jnd} JND: "
                 f"{within:.0%}; all features (HNR excluded): {_mean([c[cond]['error_all'] for c in cases]):.3f} JND")
    for cond in ("anchors", "fast", "fast+slow", "fast_matched", "fast_from_open"):
        better = _mean([float(c[cond]["error"] < c["open_loop"]["error"] - 1e-9) for c in cases])
        result.figures[f"share_better_than_open_loop[{cond}]"] = Figure(round(better, 3), note="per instruction")
    result.figures["replans_mean"] = Figure(round(_mean([c["replans"] for c in cases]), 3),
                                            note=f"rule supervisor, at most {cfg.max_replans}")
    result.figures["intensity_ratio_abs_dev[open_loop]"] = Figure(
        round(_mean([abs(c["open_loop"]["ratio"] - 1) for c in cases]), 3), note="|measured/intended strength - 1|")
    result.figures["intensity_ratio_abs_dev[fast+slow]"] = Figure(
        round(_mean([abs(c["fast+slow"]["ratio"] - 1) for c in cases]), 3), note="|measured/intended strength - 1|")
    plot_control(cases, CONTROL_CONDITIONS, out / "control_error.png")
    result.plots.append("control_error.png")
    result.extra = {"leakage": leak, "control_cases": cases, "surrogate": s, "fusion": res.metrics["fusion"],
                    "jnd": cues.JND, "wall_s": round(time.monotonic() - t0, 1)}
    return result
