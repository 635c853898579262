"""PNG plots of ``paperworks repro lifting`` (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_w2_vs_time(path: Path, curves: dict[str, dict[str, list[float]]], dt: dict[str, float]) -> None:
    """One panel per system: W2 to the simulator against time, one line per model."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 3.4), squeeze=False)
    for ax, (system, per_model) in zip(axes[0], curves.items(), strict=True):
        for model, w in per_model.items():
            t = dt[system] * np.arange(len(w))
            ax.plot(t, w, marker="o", ms=3, label=model)
        ax.set_title(system)
        ax.set_xlabel("time")
        ax.set_ylabel("W2 to simulator (sliced in 2-D)")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_sweep(path: Path, xs: list[int], series: dict[str, list[float]], xlabel: str, title: str) -> None:
    """Mean-over-time W2 against a swept size (log x axis), one line per model."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for name, ys in series.items():
        ax.plot(xs, ys, marker="o", label=name)
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("mean W2 over rollout times")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_samples(path: Path, ref: np.ndarray, gens: dict[str, np.ndarray], title: str) -> None:
    """Histograms at the last rollout time of a 1-D system: simulator against each model."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    bins = np.linspace(min(ref.min(), -2.0), max(ref.max(), 2.0), 50)
    ax.hist(ref, bins=bins, density=True, color="k", alpha=0.25, label="simulator")
    for name, g in gens.items():
        ax.hist(np.clip(g, bins[0], bins[-1]), bins=bins, density=True, histtype="step", lw=1.5, label=name)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
