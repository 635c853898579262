"""The figures of ``paperworks repro cagnn`` (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_cost_vs_tasks(macs: dict[str, list[float]], times: dict[str, list[float]], path: Path) -> None:
    """Left: multiply-accumulates of one inference pass after each task; right: its measured wall time, both
    relative to the value after the first task (``macs[method][t]``, ``times[method][t]``)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, table, label in ((axes[0], macs, "MACs of one forward pass (× after task 1)"),
                             (axes[1], times, "measured inference time (× after task 1)")):
        for name, row in table.items():
            ts = list(range(1, len(row) + 1))
            ax.plot(ts, [v / row[0] for v in row], marker="o", lw=2.5 if name == "CAGNN" else 1.2, label=name)
        ax.set_xlabel("tasks learned")
        ax.set_ylabel(label)
        ax.set_xticks(list(range(1, max(len(r) for r in table.values()) + 1)))
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Inference cost against the number of tasks", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_ap_af(ap: dict[str, tuple[float, float]], af: dict[str, tuple[float, float]], path: Path) -> None:
    """Average accuracy and average forgetting per method (mean, std over seeds)."""
    plt = _pyplot()
    names = list(ap)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, table, label in ((axes[0], ap, "average accuracy (class-incremental)"),
                             (axes[1], af, "average forgetting")):
        ax.bar(range(len(names)), [table[n][0] for n in names], yerr=[table[n][1] for n in names], capsize=4,
               color=["C3" if n == "CAGNN" else "C0" for n in names])
        ax.set_xticks(range(len(names)), names, rotation=20, fontsize=8)
        ax.set_ylabel(label)
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_acc_matrix(acc: list[list[float]], path: Path, title: str) -> None:
    """Heat map of ``acc[i][j]`` (test accuracy on task j after learning task i)."""
    plt = _pyplot()
    t = len(acc)
    grid = [[acc[i][j] if j <= i else float("nan") for j in range(t)] for i in range(t)]
    fig, ax = plt.subplots(figsize=(4.5, 4))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis")
    for i in range(t):
        for j in range(i + 1):
            ax.text(j, i, f"{acc[i][j]:.2f}", ha="center", va="center", fontsize=7, color="w")
    ax.set_xlabel("task tested")
    ax.set_ylabel("after learning task")
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
