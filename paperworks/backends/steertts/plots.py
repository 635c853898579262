"""The figures of ``paperworks repro steertts`` (matplotlib, Agg backend)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_leakage(leak: dict[str, Any], path: Path) -> None:
    """Grouped bars: leakage (speaker from z_e, emotion from z_s) and utility per condition, chance dashed."""
    plt = _pyplot()
    conds = list(leak)
    panels = (("speaker_from_emotion", "emotion_from_speaker"), ("speaker_from_speaker", "emotion_from_emotion"))
    titles = ("leakage (lower is better)", "utility (higher is better)")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, keys, title in zip(axes, panels, titles, strict=True):
        for j, key in enumerate(keys):
            vals = [leak[c]["mean"][key] for c in conds]
            runs = [[r[key] for r in leak[c]["runs"]] for c in conds]
            lo = [v - min(r) for v, r in zip(vals, runs, strict=True)]
            hi = [max(r) - v for v, r in zip(vals, runs, strict=True)]
            xs = np.arange(len(conds)) + (j - 0.5) * 0.38
            ax.bar(xs, vals, width=0.38, yerr=[lo, hi], capsize=3, label=key.replace("_", " "))
        first = leak[conds[0]]["mean"]
        ax.axhline(first["speaker_chance"], color="C0", lw=0.8, ls="--")
        ax.axhline(first["emotion_chance"], color="C1", lw=0.8, ls="--")
        ax.set_xticks(range(len(conds)), conds)
        ax.set_ylim(0, 1)
        ax.set_ylabel("held-out probe accuracy")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, loc="upper right")
    fig.suptitle("Speaker-emotion leakage: fresh MLP probes on frozen embeddings (dashed: chance)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_control(cases: list[dict[str, Any]], conditions: list[str], path: Path) -> None:
    """Left: mean control error per condition with every instruction as a dot. Right: error against renders
    for the fast loop and fast + slow (mean over instructions, best-so-far)."""
    plt = _pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for i, cond in enumerate(conditions):
        errs = [c[cond]["error"] for c in cases if math.isfinite(c[cond]["error"])]
        ax.bar(i, float(np.mean(errs)) if errs else 0.0, color=f"C{i}", alpha=0.6)
        ax.scatter(np.full(len(errs), i) + np.linspace(-0.25, 0.25, len(errs)), errs, s=8, color="k", zorder=3)
    ax.set_xticks(range(len(conditions)), [c.replace("_", "\n") for c in conditions], fontsize=8)
    ax.set_ylabel("control error (JND, targeted features)")
    ax.set_title("Control error on the benchmark instructions", fontsize=10)
    for cond, color in (("fast", "C2"), ("fast+slow", "C3"), ("fast_matched", "C4")):
        curves = [np.minimum.accumulate(np.nan_to_num(np.array(c[cond]["curve"], dtype=float), nan=np.inf))
                  for c in cases if c[cond]["curve"]]
        if not curves:
            continue
        n = max(len(c) for c in curves)
        padded = np.array([np.concatenate([c, np.full(n - len(c), c[-1])]) for c in curves])
        padded[~np.isfinite(padded)] = np.nan
        ax2.plot(np.arange(1, n + 1), np.nanmean(padded, axis=0), marker="o", color=color, label=cond)
    ax2.set_xlabel("renders")
    ax2.set_ylabel("best control error so far (JND)")
    ax2.set_title("Closed loop: error against renders (mean)", fontsize=10)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
