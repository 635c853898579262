"""The repro's plots: success and synthesis time per method, and KL per stitching variant."""

from __future__ import annotations

from pathlib import Path


def plot_methods(out: Path, summary: dict[str, dict[str, float]], kl: dict[str, float]) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(summary)
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    axes[0].bar(methods, [summary[m]["success"] for m in methods], color="#4c72b0")
    axes[0].set_ylim(0, 1)
    axes[0].set_title("task success (judged)")
    x = range(len(methods))
    axes[1].bar([i - 0.2 for i in x], [summary[m]["ttft_s"] for m in methods], width=0.4, label="first token")
    axes[1].bar([i + 0.2 for i in x], [summary[m]["total_s"] for m in methods], width=0.4, label="total")
    axes[1].set_xticks(list(x), methods)
    axes[1].set_ylabel("seconds per task")
    axes[1].legend()
    axes[1].set_title("synthesis time")
    labels = list(kl)
    axes[2].barh(labels, [kl[k] for k in labels], color="#dd8452")
    axes[2].set_xlabel("KL(full || stitched), nats")
    axes[2].set_title("stitching error")
    fig.tight_layout()
    fig.savefig(out / "fcgraft.png", dpi=110)
    plt.close(fig)
    return ["fcgraft.png"]
