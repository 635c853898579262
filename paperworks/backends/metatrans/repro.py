"""``paperworks repro metatrans``: target accuracy of source-only, DANN, MetaTrans and its two ablations (no
subtraction, no alignment) on sprite clips generated here, over several seeds.

Reconstructed experiment (the paper's code and full text are not available here): the source has a static
shortcut (each class's background texture on most clips) at speed ``source_speed``; the target has new
backgrounds independent of the class, a domain-wide texture offset and a different speed. Every variant gets
the same network size, data, recipe and seeds; target accuracy is measured on held-out target clips. The
static stream shares the order-aware stream's weights (run without positions) — a reconstructed choice. DANN
is also run at smaller adversarial weights, since the shared weight 1 is unstable for it here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.metatrans.data import ClipConfig, make_clips
from paperworks.backends.metatrans.model import MetaTransConfig
from paperworks.backends.metatrans.train import VARIANTS, TrainConfig, accuracy, train_variant
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress, with_torch_threads
from paperworks.core.tracking import scope

PAPER = {
    "source-only": "80.27 (UCF->HMDB) / 88.79 (HMDB->UCF), TranSVAE's source-only row",
    "DANN": "below MetaTrans (the paper's DANN-style baselines)",
    "MetaTrans": "above TranSVAE's 87.78 (UCF->HMDB) / 98.95 (HMDB->UCF), the closest prior with code",
    "MetaTrans w/o subtraction": "below MetaTrans (ablation)",
    "MetaTrans w/o alignment": "below MetaTrans (ablation)",
}

NOTES = {
    "DANN": "; adversarial alignment of the whole order-aware feature fought the source cross-entropy here "
            "(training_ce.png) and aligned class-correlated background with class-free target background; "
            "smaller weights are reported separately",
    "MetaTrans w/o subtraction": "; MMD on the order-aware features, no static estimate removed",
    "MetaTrans w/o alignment": "; subtraction only, source cross-entropy alone",
}


@dataclass
class MetaTransReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    clips: ClipConfig = field(default_factory=lambda: ClipConfig(target_speed=1.5, sprite_width=1.5,
                                                                 spurious=0.7))
    """The clip generator (source speed 1, target speed 1.5; 70% of source clips carry their class's texture)."""
    model: MetaTransConfig = field(default_factory=MetaTransConfig)
    """Network sizes (the same for every variant)."""
    train: TrainConfig = field(default_factory=lambda: TrainConfig(steps=400))
    """Recipe (the same for every variant)."""
    n_source: int = 400
    """Labelled source clips."""
    n_target: int = 400
    """Unlabelled target clips for alignment (and as many held-out target clips for the test)."""
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    """One data set and one network initialisation per seed."""
    dann_weights: tuple[float, ...] = (0.1, 0.3)
    """Extra DANN runs with smaller adversarial weights (the shared recipe's weight 1 is unstable for DANN
    here), so the baseline is not judged at one weight only."""
    threads: int = 1
    """torch CPU threads (the cores are shared)."""


def preset(quick: bool) -> MetaTransReproConfig:
    """Default (a few minutes on a shared 2-core CPU) or ``quick`` (well under a minute)."""
    if quick:
        return MetaTransReproConfig(n_source=300, n_target=300, seeds=(0,), dann_weights=())
    return MetaTransReproConfig()


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment into ``out``; see the module docstring."""
    cfg = preset(quick)
    return with_torch_threads(cfg.threads, lambda: _run(out, cfg, progress))


def _run(out: Path, cfg: MetaTransReproConfig, progress: Progress) -> ReproResult:
    from dataclasses import replace

    out.mkdir(parents=True, exist_ok=True)
    res = ReproResult(name="metatrans", config=asdict(cfg))
    acc: dict[str, list[float]] = {v: [] for v in VARIANTS}
    src_acc: dict[str, list[float]] = {v: [] for v in VARIANTS}
    curves: dict[str, list[float]] = {}
    dann: dict[float, list[float]] = {}
    for seed in cfg.seeds:
        base = 100 * seed
        src = make_clips(cfg.n_source, "source", cfg.clips, base + 1)
        tgt_u = make_clips(cfg.n_target, "target", cfg.clips, base + 2)
        tgt_test = make_clips(cfg.n_target, "target", cfg.clips, base + 3)
        src_test = make_clips(cfg.n_target, "source", cfg.clips, base + 4)
        for v in VARIANTS:
            progress(f"seed {seed}: training {v} ({cfg.train.steps} steps)")
            with scope(f"{v}/seed{seed}"):
                model, hist = train_variant(v, src.x, src.y, tgt_u.x, cfg.model, replace(cfg.train, seed=seed))
            acc[v].append(accuracy(model, tgt_test.x, tgt_test.y))
            src_acc[v].append(accuracy(model, src_test.x, src_test.y))
            if seed == cfg.seeds[0]:
                curves[v] = [h["ce"] for h in hist]
        for w in cfg.dann_weights:
            progress(f"seed {seed}: training DANN at adversarial weight {w}")
            with scope(f"DANN_weight{w}/seed{seed}"):
                model, _ = train_variant("DANN", src.x, src.y, tgt_u.x, cfg.model,
                                         replace(cfg.train, seed=seed, align_weight=w))
            dann.setdefault(w, []).append(accuracy(model, tgt_test.x, tgt_test.y))
    shortcut = _shortcut_share(cfg)
    for v in VARIANTS:
        m, se = _mean_se(acc[v])
        res.figures[f"target_acc[{v}]"] = Figure(
            round(100 * m, 2), paper=PAPER[v], unit="%",
            note=f"held-out target clips, mean ± {100 * se:.2f} (s.e.) over {len(cfg.seeds)} seeds; per seed "
                 + ", ".join(f"{100 * a:.1f}" for a in acc[v]) + "; chance 25%. Synthetic sprite clips, not UCF/HMDB "
                 "features; reconstructed rule, so the paper's absolute numbers are not comparable" + NOTES.get(v, ""))
        res.figures[f"source_acc[{v}]"] = Figure(round(100 * float(np.mean(src_acc[v])), 2), unit="%",
                                                 note="held-out source clips (shortcut available)")
    for w, a in dann.items():
        m, se = _mean_se(a)
        res.figures[f"target_acc[DANN, weight {w}]"] = Figure(
            round(100 * m, 2), unit="%", paper=PAPER["DANN"],
            note=f"DANN with adversarial weight {w} instead of the shared {cfg.train.align_weight}; ± {100 * se:.2f} "
                 "s.e.; per seed " + ", ".join(f"{100 * x:.1f}" for x in a))
    gain = {v: 100 * (float(np.mean(acc["MetaTrans"])) - float(np.mean(acc[v]))) for v in VARIANTS if v != "MetaTrans"}
    res.figures["metatrans_minus_best_other"] = Figure(
        round(min(gain.values()), 2), unit="points", paper="MetaTrans beats the baselines and both ablations",
        note="target accuracy of MetaTrans minus the best other variant (negative: the claim is not reproduced "
             "here); per variant: " + ", ".join(f"{k}: {g:+.1f}" for k, g in gain.items()))
    res.figures["source_shortcut_share"] = Figure(round(100 * shortcut, 1), unit="%",
                                                  note="source clips whose background is their class's texture")
    _plot(acc, out / "target_accuracy.png", cfg)
    _plot_curves(curves, out / "training_ce.png")
    res.plots += ["target_accuracy.png", "training_ce.png"]
    res.extra.update({"dann_by_weight": {str(w): a for w, a in dann.items()}, "target_acc": acc,
                       "source_acc": src_acc, "train_ce_seed0": curves})
    return res


def _shortcut_share(cfg: MetaTransReproConfig) -> float:
    c = make_clips(cfg.n_source, "source", cfg.clips, 1)
    return float((c.bg == c.y).mean())


def _mean_se(vals: list[float]) -> tuple[float, float]:
    a = np.asarray(vals, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else 0.0


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plot(acc: dict[str, list[float]], path: Path, cfg: MetaTransReproConfig) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    names = list(acc)
    means = [100 * float(np.mean(acc[v])) for v in names]
    ax.bar(range(len(names)), means, color=["grey", "C1", "C0", "C2", "C3"])
    for i, v in enumerate(names):
        ax.scatter([i] * len(acc[v]), [100 * a for a in acc[v]], color="k", s=12, zorder=3)
    ax.axhline(25, color="k", ls=":", lw=0.8, label="chance")
    ax.set_xticks(range(len(names)), [n.replace(" w/o ", "\nw/o ") for n in names], fontsize=8)
    ax.set_ylabel("target accuracy (%)")
    ax.set_title(f"Sprite clips: source speed {cfg.clips.source_speed} -> target {cfg.clips.target_speed}, "
                 f"{int(100 * cfg.clips.spurious)}% background shortcut", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_curves(curves: dict[str, list[float]], path: Path) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for v, c in curves.items():
        k = max(1, len(c) // 50)
        sm = np.convolve(c, np.ones(k) / k, mode="valid")
        ax.plot(sm, label=v)
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("source cross-entropy (seed 0)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
