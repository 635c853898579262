"""The figures of ``paperworks repro gradmem`` (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_em_vs_pairs(em: dict[str, dict[int, float]], path: Path, title: str,
                     se: dict[str, dict[int, float]] | None = None) -> None:
    """Exact match against the number of pairs, one line per writer (``em[label][n_pairs]``), with standard
    error bars from ``se`` (same keys) when given."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, by_n in em.items():
        ns = sorted(by_n)
        err = [se[label][n] for n in ns] if se else None
        ax.errorbar(ns, [by_n[n] for n in ns], yerr=err, marker="o", capsize=3,
                    ls="--" if "forward" in label.lower() else "-", label=label)
    ax.set_xscale("log", base=2)
    all_ns = sorted({n for by_n in em.values() for n in by_n})
    ax.set_xticks(all_ns, [str(n) for n in all_ns])
    ax.set_xlabel("key–value pairs in the context")
    ax.set_ylabel("exact match")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_story_steps(em: dict[int, float], recon: dict[int, float], ceiling: float | None, floor: float,
                     path: Path, title: str, other: dict[int, float] | None = None) -> None:
    """Exact match (and reconstruction loss, right axis) against write steps, with the ceiling and floor;
    ``other``: exact match when each question reads another story's memory (the control)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    ks = sorted(em)
    ax.plot(ks, [em[k] for k in ks], marker="o", label="GradMem (memory only)")
    if other:
        ax.plot(ks, [other[k] for k in ks], marker="x", ls="--", color="purple", label="another story's memory")
    if ceiling is not None:
        ax.axhline(ceiling, color="green", ls="--", lw=1, label="story in the prompt (ceiling)")
    ax.axhline(floor, color="red", ls=":", lw=1, label="no story (floor)")
    ax.set_xlabel("write steps K")
    ax.set_xticks(ks)
    ax.set_ylabel("exact match")
    ax.set_ylim(-0.02, 1.05)
    ax2 = ax.twinx()
    ax2.plot(ks, [recon[k] for k in ks], color="grey", alpha=0.6, marker=".", label="reconstruction loss")
    ax2.set_ylabel("reconstruction loss (nats/token)", color="grey")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=8, loc="center right")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_training(curves: dict[str, list[float]], path: Path) -> None:
    """Outer loss against meta-training step, one line per writer (a running mean)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, ys in curves.items():
        w = max(1, len(ys) // 40)
        smooth = [sum(ys[max(0, i - w + 1): i + 1]) / len(ys[max(0, i - w + 1): i + 1]) for i in range(len(ys))]
        ax.plot(range(1, len(ys) + 1), smooth, label=label)
    ax.set_xlabel("meta-training step")
    ax.set_ylabel("outer loss (target CE + weighted reconstruction)")
    ax.set_title("Meta-training on the key–value task (curriculum over pairs)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_capacity_grid(grid: dict[str, Any], path: Path, title: str) -> None:
    """The capacity diagnostic: left, exact match averaged over sizes against the memory size m (one line per
    number of meta-training steps); right, exact match against pairs at each m's largest step count.
    ``grid["m=4"]["300"]`` holds ``mean``/``se`` per pairs and ``mean_em``/``mean_em_se``."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    ms = sorted(int(k.split("=")[1]) for k in grid)
    steps = sorted({int(s) for cells in grid.values() for s in cells})
    for st in steps:
        xs = [m for m in ms if str(st) in grid[f"m={m}"]]
        cells = [grid[f"m={m}"][str(st)] for m in xs]
        left.errorbar(xs, [c["mean_em"] for c in cells], yerr=[c["mean_em_se"] for c in cells], marker="o",
                      capsize=3, label=f"{st} meta-training steps")
    left.set_xscale("log", base=2)
    left.set_xticks(ms, [str(m) for m in ms])
    left.set_xlabel("memory vectors m")
    left.set_ylabel("exact match, mean over sizes")
    left.set_ylim(-0.02, 1.02)
    left.legend(fontsize=8)
    for m in ms:
        last = max(grid[f"m={m}"], key=int)
        cell = grid[f"m={m}"][last]
        ns = sorted(int(n) for n in cell["mean"])
        right.errorbar(ns, [cell["mean"][str(n)] for n in ns], yerr=[cell["se"][str(n)] for n in ns], marker="o",
                       capsize=3, label=f"m={m}, {last} steps")
    right.set_xscale("log", base=2)
    right.set_xlabel("key–value pairs in the context")
    right.set_ylabel("exact match")
    right.set_ylim(-0.02, 1.02)
    right.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
