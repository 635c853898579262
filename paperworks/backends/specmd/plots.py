"""The repro's PNG plots (matplotlib, Agg backend): capacity in percent of all experts, the paper's claims as
reference lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paperworks.backends.specmd.metrics import collision_ratio, pick

PAPER_HIT_RATE = 0.88
"""SpecMD's claim: Least-Stale's hit rate exceeds 88% at 5% capacity (OLMoE)."""
PAPER_COLLISION_RATIO = 85.0
"""SpecMD's claim: up to 85x fewer collision misses than LRU."""
PAPER_TTFT_REDUCTION = 0.347
"""SpecMD's claim: 34.7% lower time to first token than LRU."""


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _percent_axis(ax: Any, fractions: list[float]) -> None:
    """A log x axis ticked at the capacities, labelled in percent."""
    ax.set_xscale("log")
    ax.set_xticks([100 * f for f in fractions], [f"{100 * f:g}%" for f in fractions])
    ax.minorticks_off()
    ax.set_xlabel("cache capacity (% of all experts)")


def hit_rate_plot(records: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Hit rate against capacity per policy; one panel without and one with prefetching; the paper's >88% at
    5% capacity as a reference line and marker."""
    plt = _plt()
    modes = sorted({r["prefetch"] for r in records})
    fig, axes = plt.subplots(1, len(modes), figsize=(5.5 * len(modes), 4), squeeze=False)
    for ax, mode in zip(axes[0], modes, strict=True):
        rs = [r for r in records if r["prefetch"] == mode]
        for pol in dict.fromkeys(r["policy"] for r in rs):
            pts = sorted((r["fraction"], r["hit_rate"]) for r in rs if r["policy"] == pol)
            ax.plot([100 * f for f, _ in pts], [100 * h for _, h in pts], marker="o", ms=3, label=pol,
                    ls="--" if pol == "belady" else "-", lw=2.2 if pol == "least-stale" else 1.2)
        ax.axhline(100 * PAPER_HIT_RATE, color="tab:red", lw=0.8, ls=":")
        ax.plot([5], [100 * PAPER_HIT_RATE], marker="*", ms=11, color="tab:red", ls="none",
                label="paper: Least-Stale >88% at 5%")
        _percent_axis(ax, sorted({r["fraction"] for r in rs}))
        ax.set_ylabel("hit rate (%)")
        ax.set_ylim(0, 100)
        ax.set_title(f"{title}: {'with' if mode else 'no'} prefetching")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def collision_plot(records: list[dict[str, Any]], path: Path) -> Path:
    """Ratio of LRU's collision misses to Least-Stale's against capacity; where Least-Stale has none the ratio is
    undefined and drawn as a hollow marker on the top edge, not as a number; the paper's 85x as a line."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    fractions = sorted({r["fraction"] for r in records})
    top = PAPER_COLLISION_RATIO * 3
    for mode in sorted({r["prefetch"] for r in records}):
        fr = sorted({r["fraction"] for r in records if r["prefetch"] == mode})
        ratios = [collision_ratio(records, f, mode) for f in fr]
        pts = [(100 * f, x) for f, (x, _, _) in zip(fr, ratios, strict=True) if x is not None]
        label = f"{'with' if mode else 'no'} prefetching"
        line = ax.plot([p for p, _ in pts], [max(x, 0.1) for _, x in pts], marker="o", label=label)
        undefined = [100 * f for f, (x, lru, _) in zip(fr, ratios, strict=True) if x is None and lru > 0]
        if undefined:
            ax.plot(undefined, [top] * len(undefined), marker="^", ms=8, ls="none", mfc="none",
                    color=line[0].get_color(), label=f"{label}: Least-Stale 0, ratio undefined")
    ax.axhline(PAPER_COLLISION_RATIO, color="tab:red", ls=":", label="paper: up to 85x")
    _percent_axis(ax, fractions)
    ax.set_yscale("log")
    ax.set_ylim(0.1, top * 1.5)
    ax.set_ylabel("collision misses: LRU / Least-Stale")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def ttft_plot(records: list[dict[str, Any]], fraction: float, hw: str, path: Path) -> Path:
    """Modeled TTFT per policy at ``fraction`` capacity, without and with prefetching (so LRU without prefetching
    is there); the paper's claim (Least-Stale 34.7% below LRU with prefetching) as a reference line."""
    plt = _plt()
    pols = list(dict.fromkeys(r["policy"] for r in records))
    fig, ax = plt.subplots(figsize=(7.5, 4))
    width = 0.4
    top = 0.0
    for i, mode in enumerate(sorted({r["prefetch"] for r in records})):
        vals = [pick(records, p, fraction, mode)[f"ttft_ms[{hw}]"] for p in pols]
        top = max(top, *vals)
        ax.bar([j + (i - 0.5) * width for j in range(len(pols))], vals, width,
               label=f"{'with' if mode else 'no'} prefetching")
    if any(r["prefetch"] for r in records):
        lru = pick(records, "lru", fraction, True)[f"ttft_ms[{hw}]"]
        ax.axhline((1 - PAPER_TTFT_REDUCTION) * lru, color="tab:red", ls=":",
                   label="paper: Least-Stale 34.7% below LRU (with prefetching)")
    ax.set_xticks(range(len(pols)), pols, rotation=20)
    ax.set_ylabel(f"modeled TTFT, ms ({hw})")
    ax.set_title(f"TTFT at {100 * fraction:g}% capacity (assumed hardware figures)")
    ax.set_ylim(0, 1.4 * top)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
