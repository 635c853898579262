"""``paperworks repro dr2seg``: mask IoU and description length of GRPO with and without DR2Seg's
self-rewards, on synthetic reasoning-segmentation scenes.

Protocol. A tiny :class:`~paperworks.backends.dr2seg.policy.DescribePolicy` is warm-started on verbose
"overthinking" traces (the query's reasoning restated with the anchor's attributes, then the target's) with
a share of wrong pointers, standing in for a pretrained MLLM that reasons at length. From that policy, for
each seed, GRPO trains four settings on the same scenes: the task reward alone (stage-1 mask IoU, the
GRPO baseline, neither self-reward), plus the description self-reward alone, plus the length self-reward
alone, and plus both (DR2Seg). Held-out scenes are scored with sampled rollouts (the trained policy's
expected behaviour) at even intervals. Figures are means ± standard errors over the reported seeds, fixed
before the runs (``config["reported_seeds"]``); nothing is tuned (``config["validation_seeds"]`` is empty:
the length weight 0.2 and the correctness threshold 1.0 were set before these seeds ran). The number of
reported seeds can be cut by ``PAPERWORKS_DR2SEG_SEEDS`` (a count, taking the first ones) where time is short.
The reward definitions and their differences from the authors' are in
:mod:`~paperworks.backends.dr2seg.rewards` (written into ``extra["definition_differences"]``).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from paperworks.backends.dr2seg.plots import plot_curves, plot_final
from paperworks.backends.dr2seg.policy import DescribePolicy
from paperworks.backends.dr2seg.rewards import DEFINITION_DIFFERENCES, RewardWeights
from paperworks.backends.dr2seg.scenes import make_scene
from paperworks.backends.dr2seg.train import GRPOConfig, evaluate, train_grpo, warm_start
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress
from paperworks.core.errors import UserError
from paperworks.core.tracking import scope

ENV_SEEDS = "PAPERWORKS_DR2SEG_SEEDS"

METRICS = ("iou", "self_iou", "self_contained", "words", "accuracy")


@dataclass
class DR2SegReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3)
    """Reported seeds, fixed before the runs: one GRPO run per seed and setting (all from the same warm start)."""
    hidden: int = 64
    """Policy width."""
    layers: int = 2
    """Encoder layers."""
    max_len: int = 10
    """Longest rollout (description words plus the pointer)."""
    sft_steps: int = 600
    """Warm-start steps."""
    sft_noise: float = 0.3
    """Share of warm-start traces with a wrong pointer."""
    steps: int = 400
    """GRPO steps per run."""
    scenes_per_step: int = 16
    """Scenes per GRPO step."""
    group_size: int = 8
    """Rollouts per scene."""
    lr: float = 1e-3
    """GRPO learning rate."""
    length_weight: float = 0.2
    """Weight of the length reward in the DR2Seg setting (self-containment has weight 1, IoU 1)."""
    eval_scenes: int = 300
    """Held-out scenes."""
    eval_samples: int = 4
    """Sampled rollouts per held-out scene."""
    eval_points: int = 6
    """Evaluations per run (evenly spaced)."""


def preset(quick: bool, scale: str) -> DR2SegReproConfig:
    """Default (about 10 minutes on one free CPU core) or ``quick`` (about a minute: one seed, 60 steps per setting)."""
    if quick:
        return DR2SegReproConfig(seeds=(0,), sft_steps=200, steps=60, eval_scenes=150, eval_samples=2,
                                 eval_points=4)
    return seeds_from_env(DR2SegReproConfig())


def seeds_from_env(cfg: DR2SegReproConfig) -> DR2SegReproConfig:
    """``cfg`` with only its first ``PAPERWORKS_DR2SEG_SEEDS`` seeds (an integer >= 1) where that is set."""
    raw = os.environ.get(ENV_SEEDS, "").strip()
    if not raw:
        return cfg
    if not raw.isdigit() or not 1 <= int(raw) <= len(cfg.seeds):
        raise UserError(f"{ENV_SEEDS} must be an integer in 1..{len(cfg.seeds)}, got '{raw}'")
    return dataclasses.replace(cfg, seeds=cfg.seeds[: int(raw)])


LABELS = {"grpo": "GRPO (IoU only)", "self": "+ self-containment", "len": "+ length",
          "dr2seg": "DR2Seg (+ self-containment + length)"}
"""Short name → setting label."""


def settings(cfg: DR2SegReproConfig) -> dict[str, RewardWeights]:
    """The four reward settings (neither self-reward, each alone, both), by label."""
    return {LABELS["grpo"]: RewardWeights(1.0, 0.0, 0.0),
            LABELS["self"]: RewardWeights(1.0, 1.0, 0.0),
            LABELS["len"]: RewardWeights(1.0, 0.0, cfg.length_weight),
            LABELS["dr2seg"]: RewardWeights(1.0, 1.0, cfg.length_weight)}


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment; writes ``curves.png`` and ``final.png`` into ``out``."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _run(out, preset(quick, scale), progress)
    finally:
        torch.set_num_threads(threads)


def _stat(values: list[float]) -> dict[str, float]:
    """Mean, standard error over seeds (0 for one seed), min and max."""
    n = len(values)
    mean = sum(values) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n) if n > 1 else 0.0
    return {"mean": mean, "se": se, "lo": min(values), "hi": max(values)}


def _run(out: Path, cfg: DR2SegReproConfig, progress: Progress) -> ReproResult:
    from paperworks.core.seeding import seed_everything

    out.mkdir(parents=True, exist_ok=True)
    result = ReproResult(name="dr2seg", config={**asdict(cfg), "reported_seeds": list(cfg.seeds),
                                                "validation_seeds": [],
                                                ENV_SEEDS: os.environ.get(ENV_SEEDS) or None,
                                                "tuned": "nothing (length_weight and correct_iou fixed in advance)"})
    rng = random.Random(10_000)
    held_out = [make_scene(rng) for _ in range(cfg.eval_scenes)]
    progress(f"warm-starting the policy on verbose traces ({cfg.sft_steps} steps, {cfg.sft_noise:.0%} wrong pointers)")
    seed_everything(0)
    base = DescribePolicy(hidden=cfg.hidden, layers=cfg.layers, max_len=cfg.max_len)
    warm_start(base, cfg.sft_steps, noise=cfg.sft_noise, seed=0)
    start = evaluate(base, held_out, cfg.eval_samples, seed=1)
    every = max(1, cfg.steps // cfg.eval_points)
    curves: dict[str, dict[str, list[float]]] = {}
    final: dict[str, dict[str, Any]] = {}
    per_seed: dict[str, list[dict[str, float]]] = {}
    for label, weights in settings(cfg).items():
        progress(f"GRPO '{label}': {len(cfg.seeds)} seeds x {cfg.steps} steps")
        runs = []
        for seed in cfg.seeds:
            pol = copy.deepcopy(base)
            gcfg = GRPOConfig(steps=cfg.steps, scenes_per_step=cfg.scenes_per_step, group_size=cfg.group_size,
                              lr=cfg.lr, weights=weights, seed=seed)
            with scope(f"{label}/seed{seed}"):
                hist = train_grpo(pol, gcfg, held_out, eval_every=every, eval_samples=cfg.eval_samples)
            runs.append([{"step": 0, **start}] + [{"step": h["step"], **{k: h[f"eval_{k}"] for k in METRICS}}
                                                  for h in hist if "eval_iou" in h])
        k = min(len(r) for r in runs)
        curves[label] = {"step": [runs[0][i]["step"] for i in range(k)]}
        for m in METRICS:
            curves[label][m] = [sum(r[i][m] for r in runs) / len(runs) for i in range(k)]
        final[label] = {m: _stat([r[-1][m] for r in runs]) for m in METRICS}
        per_seed[label] = [r[-1] for r in runs]
    _figures(result, cfg, start, final, per_seed)
    plot_curves(curves, out / "curves.png")
    plot_final(final, out / "final.png")
    result.plots += ["curves.png", "final.png"]
    result.extra = {"warm_start": start, "curves": curves, "final": final,
                    "per_seed": {label: [{m: round(r[m], 4) for m in METRICS} for r in rows]
                                 for label, rows in per_seed.items()},
                    "definition_differences": DEFINITION_DIFFERENCES}
    return result


def _paired(per_seed: dict[str, list[dict[str, float]]], a: str, b: str, metric: str) -> dict[str, float]:
    """Setting ``a`` minus setting ``b`` on ``metric``, paired by seed: mean and standard error."""
    return _stat([x[metric] - y[metric] for x, y in zip(per_seed[a], per_seed[b], strict=True)])


def _figures(result: ReproResult, cfg: DR2SegReproConfig, start: dict[str, float],
             final: dict[str, dict[str, Any]], per_seed: dict[str, list[dict[str, float]]]) -> None:
    grpo, full = LABELS["grpo"], LABELS["dr2seg"]
    seeds = (f"{len(cfg.seeds)} reported seed(s) {list(cfg.seeds)}, {cfg.eval_scenes} held-out scenes x "
             f"{cfg.eval_samples} samples; ± is the standard error over seeds")
    f = result.figures
    f["warm_start_iou"] = Figure(round(start["iou"], 3), note=f"before GRPO; words {start['words']:.2f}")
    for short, label in LABELS.items():
        v = final[label]
        f[f"iou_{short}"] = Figure(round(v["iou"]["mean"], 3), note=(
            f"± {v['iou']['se']:.3f}; stage-1 mask IoU after {cfg.steps} steps, {seeds}"))
        f[f"self_iou_{short}"] = Figure(round(v["self_iou"]["mean"], 3), note=(
            f"± {v['self_iou']['se']:.3f}; stage-2 IoU (segmenter sees the description only); self-contained "
            f"share {v['self_contained']['mean']:.3f}"))
        f[f"words_{short}"] = Figure(round(v["words"]["mean"], 2), unit="words", note=(
            f"± {v['words']['se']:.2f}; mean description length (pointer excluded); warm start {start['words']:.2f}"))
    for short in ("self", "len", "dr2seg"):
        label = LABELS[short]
        for metric, name in (("iou", "iou"), ("self_iou", "self_iou"), ("words", "words")):
            d = _paired(per_seed, label, grpo, metric)
            f[f"{name}_gain_{short}_vs_grpo"] = Figure(round(d["mean"], 3), note=(
                f"± {d['se']:.3f} (paired by seed); {label} minus IoU-only GRPO, same warm start and scenes"))
    d_iou = f["iou_gain_dr2seg_vs_grpo"]
    d_iou.paper = "DR2Seg segments better than the GRPO baseline (higher gIoU/cIoU on ReasonSeg)"
    if d_iou.value is not None and float(d_iou.value) <= 0:
        d_iou.note += ("; not reproduced here: the tiny policy's errors are in the reasoning (which object), "
                       "which neither self-reward informs")
    ratio = final[full]["words"]["mean"] / max(final[grpo]["words"]["mean"], 1e-9)
    f["length_ratio_dr2seg_vs_grpo"] = Figure(round(ratio, 3), unit="x", paper="DR2Seg shortens the reasoning "
                                              "(fewer output tokens than the GRPO baseline)", note=(
        f"description words, DR2Seg / IoU-only GRPO ({final[full]['words']['mean']:.2f} / "
        f"{final[grpo]['words']['mean']:.2f})" + ("" if ratio < 1 else "; not reproduced here")))
    f["self_iou_gain_dr2seg_vs_grpo"].paper = "descriptions become self-contained (less attention dispersion)"
