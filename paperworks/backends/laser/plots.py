"""The figures of ``paperworks repro laser`` (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_error_vs_k(table: dict[str, dict[int, tuple[float, float]]], path: Path, title: str) -> None:
    """Mean relative L2 error (± standard error) against K, one line per method (``table[method][k]``)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, by_k in table.items():
        ks = sorted(by_k)
        ax.errorbar(ks, [by_k[k][0] for k in ks], yerr=[by_k[k][1] for k in ks], marker="o", capsize=3,
                    ls="--" if "own" in label else "-", label=label)
    all_k = sorted({k for by_k in table.values() for k in by_k})
    ax.set_xscale("log", base=2)
    ax.set_xticks(all_k, [str(k) for k in all_k])
    ax.set_xlabel("sensors K")
    ax.set_ylabel("relative L2 reconstruction error")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_sensor_paths(field: np.ndarray, tracks: dict[str, np.ndarray], errors: dict[str, float], path: Path,
                      title: str) -> None:
    """One panel per method: the episode's time-mean field (``field`` ``(T, N, N)``) with each sensor's path
    (``tracks[method]`` ``(T, K, 2)``; wrap-arounds are broken, the start is a circle and the end a cross)."""
    plt = _pyplot()
    n = field.shape[-1]
    fig, axes = plt.subplots(1, len(tracks), figsize=(3.2 * len(tracks), 3.4), squeeze=False)
    for ax, (label, tr) in zip(axes[0], tracks.items(), strict=False):
        ax.imshow(field.mean(0).T, origin="lower", cmap="viridis", extent=(-0.5, n - 0.5, -0.5, n - 0.5))
        for s in range(tr.shape[1]):
            xy = tr[:, s].copy()
            jump = np.abs(np.diff(xy, axis=0)).max(1) > n / 2
            xy = np.insert(xy, np.where(jump)[0] + 1, np.nan, axis=0) if jump.any() else xy
            line = ax.plot(xy[:, 0], xy[:, 1], lw=1.2, color="white", alpha=0.9)[0]
            ax.plot(tr[0, s, 0], tr[0, s, 1], "o", ms=3, color=line.get_color())
            ax.plot(tr[-1, s, 0], tr[-1, s, 1], "x", ms=5, color="red")
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(-0.5, n - 0.5)
        ax.set_title(f"{label}\nrel. L2 {errors[label]:.3f}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_error_over_time(curves: dict[str, np.ndarray], path: Path, title: str) -> None:
    """Mean relative L2 error per frame, one line per method."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, c in curves.items():
        ax.plot(np.arange(len(c)), c, label=label)
    ax.set_xlabel("frame t")
    ax.set_ylabel("relative L2 error")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_training(curves: dict[str, list[float]], path: Path) -> None:
    """Training curves (moving average over 25 updates), one panel per curve."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 3.2), squeeze=False)
    for ax, (label, ys) in zip(axes[0], curves.items(), strict=False):
        y = np.asarray(ys, dtype=float)
        w = min(25, len(y))
        ax.plot(np.convolve(y, np.ones(w) / w, mode="valid"))
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("update")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
