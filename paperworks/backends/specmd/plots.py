"""The repro's PNG plots (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paperworks.backends.specmd.metrics import pick


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def hit_rate_plot(records: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Hit rate against capacity per policy; one panel without and one with prefetching."""
    plt = _plt()
    modes = sorted({r["prefetch"] for r in records})
    fig, axes = plt.subplots(1, len(modes), figsize=(5.5 * len(modes), 4), squeeze=False)
    for ax, mode in zip(axes[0], modes, strict=True):
        rs = [r for r in records if r["prefetch"] == mode]
        for pol in dict.fromkeys(r["policy"] for r in rs):
            pts = sorted((r["fraction"], r["hit_rate"]) for r in rs if r["policy"] == pol)
            ax.plot([100 * f for f, _ in pts], [h for _, h in pts], marker="o", ms=3, label=pol,
                    ls="--" if pol == "belady" else "-", lw=2.2 if pol == "least-stale" else 1.2)
        ax.set_xscale("log")
        ax.set_xlabel("cache capacity (% of experts)")
        ax.set_ylabel("hit rate")
        ax.set_ylim(0, 1)
        ax.set_title(f"{title}: {'with' if mode else 'no'} prefetching")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def collision_plot(records: list[dict[str, Any]], path: Path) -> Path:
    """Ratio of LRU's collision misses to Least-Stale's against capacity."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for mode in sorted({r["prefetch"] for r in records}):
        fr = sorted({r["fraction"] for r in records if r["prefetch"] == mode})
        ratio = [pick(records, "lru", f, mode)["collision_misses"]
                 / max(pick(records, "least-stale", f, mode)["collision_misses"], 1) for f in fr]
        ax.plot([100 * f for f in fr], ratio, marker="o", label=f"{'with' if mode else 'no'} prefetching")
    ax.axhline(85, color="grey", ls=":", label="paper: up to 85x")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cache capacity (% of experts)")
    ax.set_ylabel("collision misses: LRU / Least-Stale")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def ttft_plot(records: list[dict[str, Any]], fraction: float, hw: str, path: Path) -> Path:
    """Modeled TTFT per policy at ``fraction`` capacity, without and with prefetching."""
    plt = _plt()
    pols = list(dict.fromkeys(r["policy"] for r in records))
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.4
    for i, mode in enumerate(sorted({r["prefetch"] for r in records})):
        vals = [pick(records, p, fraction, mode)[f"ttft_ms[{hw}]"] for p in pols]
        ax.bar([j + (i - 0.5) * width for j in range(len(pols))], vals, width,
               label=f"{'with' if mode else 'no'} prefetching")
    ax.set_xticks(range(len(pols)), pols, rotation=20)
    ax.set_ylabel(f"modeled TTFT, ms ({hw})")
    ax.set_title(f"TTFT at {fraction:.0%} capacity")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
