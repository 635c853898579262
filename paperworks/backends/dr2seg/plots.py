"""PNG plots of the DR2Seg repro (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_curves(curves: dict[str, dict[str, list[float]]], path: Path) -> None:
    """Held-out stage-1 IoU, stage-2 IoU and description words against training step, one line per setting
    (``curves[label]`` holds ``step`` and the mean over seeds of ``iou``, ``self_iou``, ``words``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for label, c in curves.items():
        for ax, key in zip(axes, ("iou", "self_iou", "words"), strict=True):
            ax.plot(c["step"], c[key], marker="o", ms=3, label=label)
    for ax, title in zip(axes, ("stage-1 mask IoU", "stage-2 IoU (description only)", "description words"),
                         strict=True):
        ax.set_title(title)
        ax.set_xlabel("GRPO step")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_final(final: dict[str, dict[str, Any]], path: Path) -> None:
    """Bars of the final held-out figures per setting (mean over seeds, min–max as error bars)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(final)
    keys = (("iou", "stage-1 IoU"), ("self_iou", "stage-2 IoU"), ("self_contained", "self-contained share"))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [3, 1.4]})
    width = 0.8 / len(labels)
    for j, label in enumerate(labels):
        f = final[label]
        xs = [i + j * width for i in range(len(keys))]
        means = [f[k]["mean"] for k, _ in keys]
        err = [[f[k]["mean"] - f[k]["lo"] for k, _ in keys], [f[k]["hi"] - f[k]["mean"] for k, _ in keys]]
        ax.bar(xs, means, width, yerr=err, label=label, capsize=3)
        ax2.bar([j], [f["words"]["mean"]], 0.7, yerr=[[f["words"]["mean"] - f["words"]["lo"]],
                                                     [f["words"]["hi"] - f["words"]["mean"]]], capsize=3)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(keys))], [name for _, name in keys])
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("held-out scenes, after training")
    ax2.set_xticks(range(len(labels)), [str(i + 1) for i in range(len(labels))])
    ax2.set_title("description words (settings 1..n)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
