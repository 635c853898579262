"""PNG plots of ``paperworks repro evolving_ac`` (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_rates(path: Path, Ts: list[int], series: dict[str, np.ndarray], slopes: dict[str, float], ylabel: str,
               title: str) -> None:
    """Log–log: the per-seed average error ``(runs, len(Ts))`` against ``T`` per schedule (mean and the
    seeds' range), with a ``T^-1/2`` reference line."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    for name, v in series.items():
        mean = v.mean(0)
        line = ax.plot(Ts, mean, marker="o", label=f"{name} (slope {slopes[name]:.2f})")[0]
        ax.fill_between(Ts, v.min(0), v.max(0), color=line.get_color(), alpha=0.15)
    first = np.mean([v.mean(0)[0] for v in series.values()])
    ax.plot(Ts, first * (np.asarray(Ts) / Ts[0]) ** -0.5, "k--", lw=1, label="T^-1/2")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("horizon T (step sizes ∝ 1/√T)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_curves(path: Path, curves: dict[str, tuple[np.ndarray, np.ndarray]], T: int) -> None:
    """|grad J_t(theta_t)|^2 along the longest run, per schedule (mean over seeds)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    for name, (t, g) in curves.items():
        ax.plot(np.maximum(t, 1), g, label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step t")
    ax.set_ylabel("|grad J_t(theta_t)|^2 (mean over seeds)")
    ax.set_title(f"along runs of T = {T}", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
