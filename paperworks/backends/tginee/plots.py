"""The figures of ``paperworks repro tginee`` (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


PANELS = (("rel_error", "relative error of Theta"), ("mu_rel_error", "relative error of edge probabilities"),
          ("auc", "held-out link AUC"),
          ("coverage", "95% Wald coverage of Theta"), ("ari", "community ARI"))


def plot_metrics(table: dict[str, dict[str, dict[str, list[float]]]], rhos: list[float], path: Path,
                 oracle_auc: list[float], title: str) -> None:
    """``table[metric][method][rho] = [mean, se]`` against the latent cross-layer correlation, one panel a
    metric (the oracle AUC of the true probabilities as a dotted line, the nominal 95% coverage dashed)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 5, figsize=(20, 4))
    for ax, (metric, label) in zip(axes, PANELS, strict=True):
        for method, by_rho in table[metric].items():
            m = [by_rho[str(r)][0] for r in rhos]
            s = [by_rho[str(r)][1] for r in rhos]
            ax.errorbar(rhos, m, yerr=s, marker="o", capsize=3, label=method,
                        ls="--" if "LMF" in method or "Pooled" in method else "-")
        if metric == "auc":
            ax.plot(rhos, oracle_auc, ":", color="k", label="true probabilities")
        if metric == "coverage":
            ax.axhline(0.95, color="k", ls="--", lw=0.8)
        ax.set_xlabel("latent cross-layer correlation rho")
        ax.set_title(label, fontsize=10)
    axes[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_alpha(rhos: list[float], alpha: list[list[float]], path: Path) -> None:
    """The exchangeable working correlation T-GINEE estimated (each replicate a dot) against rho."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 4))
    for r, vals in zip(rhos, alpha, strict=True):
        ax.scatter([r] * len(vals), vals, color="C0", alpha=0.7)
    ax.plot(rhos, rhos, ":", color="grey", label="latent rho (Gaussian copula)")
    ax.set_xlabel("latent cross-layer correlation rho")
    ax.set_ylabel("estimated exchangeable alpha (Pearson residuals)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
