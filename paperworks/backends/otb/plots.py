"""The two figures of ``paperworks repro otb`` (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_variance(variance: dict[str, dict[str, Any]], path: Path) -> None:
    """Bar chart: ``tr Cov`` ratio to GRPO per estimator, one bar group per task; whiskers span the blocks.

    ``variance``: task → ``{"ratio_to": {"grpo": {est: r}}, "block_ratios": {"grpo": {est: [r, ...]}}}``.
    """
    plt = _pyplot()
    tasks = list(variance)
    ests = list(next(iter(variance.values()))["ratio_to"]["grpo"])
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / max(len(tasks), 1)
    for j, task in enumerate(tasks):
        vals = [variance[task]["ratio_to"]["grpo"][e] for e in ests]
        blocks = [variance[task]["block_ratios"]["grpo"][e] for e in ests]
        lo = [v - min(b) for v, b in zip(vals, blocks, strict=True)]
        hi = [max(b) - v for v, b in zip(vals, blocks, strict=True)]
        xs = [i + (j - (len(tasks) - 1) / 2) * width for i in range(len(ests))]
        ax.bar(xs, vals, width=width, yerr=[lo, hi], capsize=3, label=task)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(ests)), ests)
    ax.set_ylabel("tr Cov(gradient) / GRPO's")
    ax.set_title("(a) Gradient variance relative to GRPO, same samples")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_reward_vs_tokens(curves: dict[str, dict[str, list[float]]], path: Path, target: float | None,
                          title: str, claim_tokens: float | None = None) -> None:
    """Expected reward on held-out prompts against generated tokens, one line per run (mean over seeds,
    shaded min–max). ``curves``: label → ``{"tokens": [...], "mean": [...], "lo": [...], "hi": [...]}``.
    ``claim_tokens`` draws the paper's claim as a vertical line: the token count by which, per the paper, OTB N=4
    reaches ``target`` (GRPO N=32's final reward) — 35% of GRPO N=32's tokens for ">65% fewer tokens"."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, c in curves.items():
        ax.plot(c["tokens"], c["mean"], label=label)
        ax.fill_between(c["tokens"], c["lo"], c["hi"], alpha=0.2)
    if target is not None:
        ax.axhline(target, color="grey", lw=0.8, ls="--", label="GRPO N=32 final")
        ax.axhline(0.95 * target, color="grey", lw=0.6, ls=":", label="95% of it")
    if claim_tokens is not None:
        ax.axvline(claim_tokens, color="tab:red", lw=0.9, ls="--",
                   label="paper: OTB N=4 reaches it by here (>65% fewer tokens)")
    ax.set_xlabel("generated tokens")
    ax.set_ylabel("expected reward (held-out)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
