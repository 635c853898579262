"""Drawing a ReJump: the tree (black edges, node ids and short problems) with the walk drawn over it as
numbered arrows coloured by category (blue calculation, red verification, green backtracking), as the
authors' ``visualize_tree_walk``; PNG or SVG by the file's suffix. Plus the repro's summary charts."""

from __future__ import annotations

from pathlib import Path

from paperworks.backends.rejump.tree import BACK, CALC, VERIFY, ReJump

COLOURS = {CALC: "tab:blue", VERIFY: "tab:red", BACK: "tab:green"}


def layout(rj: ReJump) -> dict[str, tuple[float, float]]:
    """Node → (x, y): leaves spaced in depth-first order, parents centred over their children."""
    pos: dict[str, tuple[float, float]] = {}
    counter = [0.0]

    def place(n: str) -> float:
        kids = rj.children[n]
        if not kids:
            x = counter[0]
            counter[0] += 1.0
        else:
            xs = [place(c) for c in kids]
            x = (xs[0] + xs[-1]) / 2
        pos[n] = (x, -float(rj.depth[n]))
        return x

    place(rj.root)
    return pos


def draw_rejump(rj: ReJump, path: Path, title: str = "", label_chars: int = 22) -> Path:
    """Write the tree with its walk to ``path`` (``.png`` or ``.svg``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    if path.suffix.lower() not in (".png", ".svg"):
        raise ValueError(f"draw_rejump: '{path}' must end in .png or .svg")
    pos = layout(rj)
    width = max(4.0, 1.6 * (1 + max(x for x, _ in pos.values())))
    height = max(3.0, 1.5 * (1 + max(rj.depth.values())))
    fig, ax = plt.subplots(figsize=(min(width, 24), min(height, 16)))
    for n, node in rj.nodes.items():
        if node.parent is not None:
            (x0, y0), (x1, y1) = pos[node.parent], pos[n]
            ax.plot([x0, x1], [y0, y1], color="black", lw=1.2, zorder=1)
    for i, step in enumerate(rj.walk):
        (x0, y0), (x1, y1) = pos[step.src], pos[step.dst]
        rad = 0.25 if step.category != CALC else 0.1
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=2,
                    arrowprops={"arrowstyle": "->", "color": COLOURS[step.category], "lw": 1.0, "ls": "--",
                                "connectionstyle": f"arc3,rad={rad + 0.04 * (i % 3)}", "shrinkA": 12, "shrinkB": 12})
        ax.text((x0 + x1) / 2 + 0.08 * (1 + i % 3), (y0 + y1) / 2, str(i + 1), fontsize=7,
                color=COLOURS[step.category], zorder=3)
    for n, (x, y) in pos.items():
        text = rj.nodes[n].problem
        text = text if len(text) <= label_chars else text[: label_chars - 1] + "…"
        face = "lightyellow" if n in rj.leaves else "lightcyan"
        ax.text(x, y, f"{n}\n{text}", ha="center", va="center", fontsize=7, zorder=4,
                bbox={"boxstyle": "round", "fc": face, "ec": "grey"})
    handles = [Line2D([0], [0], color=c, ls="--", label=k) for k, c in COLOURS.items()]
    handles.append(Line2D([0], [0], color="black", label="tree"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.axis("off")
    ax.margins(0.15)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_distributions(values: dict[str, dict[str, list[float]]], path: Path, title: str) -> Path:
    """One box plot per metric: ``values[metric][style]`` lists per-trace values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = list(values)
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics), 3.6))
    for ax, metric in zip(axes, metrics, strict=True):
        styles = list(values[metric])
        ax.boxplot([values[metric][s] for s in styles], showmeans=True)
        ax.set_xticks(range(1, len(styles) + 1), [s.replace(" ", "\n") for s in styles], fontsize=6)
        ax.set_title(metric, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_best_of_n(ns: list[int], curves: dict[str, list[float]], path: Path, title: str) -> Path:
    """Accuracy against N for each selection rule."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.6))
    for label, ys in curves.items():
        ax.plot(ns, ys, marker="o", label=label)
    ax.set_xlabel("N candidates")
    ax.set_ylabel("accuracy of the chosen trace")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
