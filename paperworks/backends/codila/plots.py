"""The figures of ``paperworks repro codila`` (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

STYLE = {"AR": ("k", "s"), "DLM (confidence)": ("tab:blue", "o"), "DLM (blocks)": ("tab:orange", "v"),
         "CoDiLA": ("tab:green", "D")}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_pareto(points: dict[str, dict[int, dict[str, float]]], path: Path, speed: str, title: str) -> None:
    """Left: code validity against throughput (the accuracy–speed plane), one line per decoder over ``k``,
    with the Pareto frontier of all points; right: arithmetic accuracy against decoding steps.
    ``points[decoder][k]`` holds ``valid``, ``speed`` (``tokens_per_s`` or ``tokens_per_cpu_s``), ``acc`` and
    ``arith_steps``."""
    plt = _pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    every = []
    for label, by_k in points.items():
        color, marker = STYLE.get(label, ("tab:gray", "x"))
        ks = sorted(by_k)
        xs = [by_k[k][speed] for k in ks]
        ys = [by_k[k]["valid"] for k in ks]
        every += list(zip(xs, ys, strict=True))
        ax.plot(xs, ys, marker=marker, color=color, label=label)
        for k, x, y in zip(ks, xs, ys, strict=True):
            ax.annotate(f"k={k}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7, color=color)
        bx.plot([by_k[k]["arith_steps"] for k in ks], [by_k[k]["acc"] for k in ks], marker=marker, color=color,
                label=label)
    front = pareto_front(every)[::-1]  # slowest first: the best validity reachable at >= each speed
    ax.step([p[0] for p in front], [p[1] for p in front], where="pre", color="gray", ls=":", lw=1,
            label="Pareto frontier")
    ax.set_xscale("log")
    ax.set_xlabel("throughput (generated tokens per " + ("CPU second, 1 thread" if speed == "tokens_per_cpu_s"
                                                          else "wall-clock second") + ")")
    ax.set_ylabel("code validity (parses and type-checks)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    bx.set_xlabel("decoding steps per sequence (forward passes of the big network)")
    bx.set_ylabel("arithmetic accuracy (exact answer)")
    bx.set_ylim(-0.02, 1.02)
    bx.set_title("arithmetic: accuracy vs steps", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def pareto_front(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points not dominated by another (higher-or-equal speed and quality, one strictly), fastest first."""
    front = [p for p in points
             if not any(q[0] >= p[0] and q[1] >= p[1] and (q[0] > p[0] or q[1] > p[1]) for q in points)]
    return sorted(set(front), key=lambda p: -p[0])


def plot_training(curves: dict[str, list[float]], path: Path, every: dict[str, int]) -> None:
    """Loss curves (x: optimiser step)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, ys in curves.items():
        ax.plot([(i + 1) * every[label] for i in range(len(ys))], ys, label=label)
    ax.set_xlabel("optimiser step")
    ax.set_ylabel("training loss (cross-entropy)")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
