"""The key–value figures and tables of ``paperworks repro gradmem``: mean ± standard error over the reported
seeds, and the capacity grid (exact match against memory size and meta-training steps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paperworks.backends.gradmem.capacity import capacity, mean_se, summarise
from paperworks.backends.gradmem.differences import DEFINITION_DIFFERENCES, DEFINITION_SAME
from paperworks.backends.gradmem.plots import plot_capacity_grid, plot_em_vs_pairs, plot_training
from paperworks.backends.repro import Figure, ReproResult

PAPER_KV = "96 pairs at 88.4% exact match (m=8, K=2, 4-layer Llama, 1M samples)"

Table = dict[str, dict[int, float]]


class KVAcc:
    """Everything measured, per seed: ``table[label][seed][pairs]`` and the grid ``[m][steps][seed][pairs]``."""

    def __init__(self) -> None:
        self.em: dict[str, dict[int, dict[int, float]]] = {}
        self.test_em: dict[str, dict[int, dict[int, float]]] = {}
        self.curves: dict[str, dict[int, list[float]]] = {}
        self.times: dict[str, dict[int, float]] = {}
        self.reached: dict[str, dict[int, int]] = {}
        self.grid: dict[int, dict[int, dict[int, dict[int, float]]]] = {}
        self.memory_parameters: dict[str, int] = {}

    def merge(self, part: dict[str, Any]) -> None:
        """Add one task's result (see :func:`paperworks.backends.gradmem.repro.kv_task`)."""
        seed = part["seed"]
        for name in ("em", "test_em", "curves", "times", "reached"):
            for label, value in part.get(name, {}).items():
                getattr(self, name).setdefault(label, {})[seed] = value
        for m, by_step in part.get("grid", {}).items():
            for step, row in by_step.items():
                self.grid.setdefault(m, {}).setdefault(step, {})[seed] = row
        self.memory_parameters.update(part.get("memory_parameters", {}))


def _stats(table: dict[str, dict[int, dict[int, float]]]) -> tuple[Table, Table]:
    mean: Table = {}
    se: Table = {}
    for label, per_seed in table.items():
        mean[label], se[label] = summarise(per_seed)
    return mean, se


def _keys(table: dict[Any, dict[int, Any]]) -> dict[str, dict[str, Any]]:
    return {str(label): {str(n): v for n, v in row.items()} for label, row in table.items()}


def _mean(row: dict[int, float]) -> float:
    return round(sum(row.values()) / max(len(row), 1), 4)


def _per_seed_mean_se(per_seed: dict[int, dict[int, float]]) -> tuple[float, float]:
    """Mean ± SE over seeds of each seed's exact match averaged over the sizes."""
    return mean_se([sum(r.values()) / len(r) for r in per_seed.values()])

def kv_report(res: ReproResult, cfg: Any, acc: KVAcc, out: Path) -> None:
    """Figures, plots and ``extra`` of the key–value part into ``res``."""
    em, em_se = _stats(acc.em)
    test_em, test_se = _stats(acc.test_em)
    seeds = list(cfg.reported_seeds)
    first = seeds[0]
    plot_em_vs_pairs(em, out / "kv_em_vs_pairs.png", f"Tiny Llama L{cfg.layers} d{cfg.hidden}, m={cfg.n_mem}: "
                     f"exact match vs pairs (mean ± SE, seeds {seeds})", se=em_se)
    plot_em_vs_pairs(test_em, out / "kv_test_steps.png", "Test-time write steps (GradMem) vs passes (forward)",
                     se=test_se)
    plot_training({label: c[first] for label, c in acc.curves.items()}, out / "kv_training.png")
    res.plots += ["kv_em_vs_pairs.png", "kv_test_steps.png", "kv_training.png"]
    _kv_figures(res, cfg, acc, em, em_se, test_em)
    grid = _grid_figures(res, cfg, acc)
    if grid:
        plot_capacity_grid(grid, out / "kv_capacity_grid.png",
                           f"GradMem K=2 capacity vs memory size and meta-training steps (seeds {seeds})")
        res.plots.append("kv_capacity_grid.png")
    res.extra.update({
        "kv_em": _keys(em), "kv_em_se": _keys(em_se),
        "kv_em_per_seed": {label: _keys(per) for label, per in acc.em.items()},
        "kv_test_em": _keys(test_em), "kv_test_em_se": _keys(test_se),
        "kv_train_loss": {label: {str(s): c for s, c in per.items()} for label, per in acc.curves.items()},
        "kv_train_cpu_s": _keys(acc.times), "kv_curriculum_reached": _keys(acc.reached),
        "memory_parameters": acc.memory_parameters,
        "kv_capacity_grid": grid,
        "definition_differences": DEFINITION_DIFFERENCES, "definition_same": DEFINITION_SAME})


def _kv_figures(res: ReproResult, cfg: Any, acc: KVAcc, em: Table, em_se: Table,
                test_em: Table) -> None:
    f = res.figures
    seeds = list(cfg.reported_seeds)
    over = f"mean over seeds {seeds}"
    fw_label = next(label for label in em if label.startswith("Forward"))
    k2 = "GradMem K=2" if "GradMem K=2" in em else next(iter(em))
    largest = max(cfg.eval_pairs)
    for label, row in em.items():
        for n, v in row.items():
            per = ", ".join(f"{acc.em[label][s][n]:.3f}" for s in seeds)
            f[f"kv_em[{label}, {n} pairs]"] = Figure(
                round(v, 4), note=f"{over} ± SE {em_se[label][n]:.3f} (per seed: {per}); {cfg.eval_contexts} "
                                  f"held-out contexts, every pair queried; chance {1 / len(cfg.alphabet):.3f}")
        f[f"kv_capacity_50[{label}]"] = Figure(capacity(row), unit="pairs",
                                               note=f"largest tested size whose exact match ({over}) is >= 50%")
        t, t_se = mean_se(list(acc.times[label].values()))
        f[f"kv_train_cpu_s[{label}]"] = Figure(round(t, 1), unit="s", note=f"{cfg.train_steps} outer steps, "
                                               f"process CPU time, {over} ± SE {t_se:.1f}")
        f[f"kv_curriculum_reached[{label}]"] = Figure(
            max(acc.reached[label].values()), unit="pairs",
            note="largest training size unlocked by the gated curriculum, largest over seeds (per seed: "
                 + ", ".join(str(acc.reached[label][s]) for s in seeds) + ")")
    best = max((label for label in em if label.startswith("GradMem")), key=lambda lb: sum(em[lb].values()))
    f["kv_best_gradmem_em_at_largest"] = Figure(
        round(em[best][largest], 4), paper=PAPER_KV,
        note=f"{best} at {largest} pairs, {over} ± SE {em_se[best][largest]:.3f}, after {cfg.train_steps} CPU "
             f"outer steps on <= {max(cfg.train_pairs)} pairs (1-char keys/values); the capacity grid shows how "
             "capacity moves with m and steps")
    gaps = {n: mean_se([acc.em[k2][s][n] - acc.em[fw_label][s][n] for s in seeds]) for n in cfg.eval_pairs}
    g_mean, g_se = mean_se([sum(acc.em[k2][s][n] - acc.em[fw_label][s][n] for n in cfg.eval_pairs)
                            / len(cfg.eval_pairs) for s in seeds])
    f["kv_gradmem_minus_forward_mean"] = Figure(
        round(g_mean, 4), paper="GradMem beats forward-only writers of the same memory size",
        note=f"mean over sizes of EM({k2}) - EM({fw_label}), {over} ± SE {g_se:.3f}; per size: "
             + ", ".join(f"{n}: {g:+.3f} ± {se:.3f}" for n, (g, se) in gaps.items()))
    ks = sorted(cfg.gradmem_steps)
    by_k = {k: _per_seed_mean_se(acc.em[f"GradMem K={k}"]) for k in ks}
    f["kv_mean_em_by_train_K"] = Figure(
        ", ".join(f"K={k}: {by_k[k][0]:.3f} ± {by_k[k][1]:.3f}" for k in ks),
        paper="more gradient steps scale capacity far better than repeated forward writes",
        note=f"exact match averaged over {list(cfg.eval_pairs)} pairs, one writer meta-trained per K, {over} ± SE "
             "(capacity at >= 50%: " + ", ".join(f"K={k}: {capacity(em[f'GradMem K={k}'])}" for k in ks) + ")")
    for label, row in test_em.items():
        m, se = _per_seed_mean_se(acc.test_em[label])
        f[f"kv_mean_em[{label}]"] = Figure(
            round(m, 4), paper="more gradient steps scale capacity far better than repeated forward writes"
            if label == next(iter(test_em)) else None,
            note=f"the trained writer read after this many write steps / passes; mean over {list(cfg.eval_pairs)} "
                 f"pairs, {over} ± SE {se:.3f}; per size: " + ", ".join(f"{n}: {v:.3f}" for n, v in row.items()))


def _grid_figures(res: ReproResult, cfg: Any, acc: KVAcc) -> dict[str, Any]:
    """Figures of the capacity grid, and the grid as ``{"m=4": {"100": {mean, se, per_seed, ...}}}``."""
    grid: dict[str, Any] = {}
    for m in sorted(acc.grid):
        for steps in sorted(acc.grid[m]):
            per_seed = acc.grid[m][steps]
            mean, se = summarise(per_seed)
            avg, avg_se = _per_seed_mean_se(per_seed)
            cap, cap_se = mean_se([capacity(r) for r in per_seed.values()])
            grid.setdefault(f"m={m}", {})[str(steps)] = {
                "mean": {str(n): v for n, v in mean.items()}, "se": {str(n): v for n, v in se.items()},
                "per_seed": _keys(per_seed), "mean_em": avg, "mean_em_se": avg_se,
                "capacity_50": cap, "capacity_50_se": cap_se}
            res.figures[f"kv_grid_mean_em[m={m}, {steps} steps]"] = Figure(
                round(avg, 4), note=f"GradMem K=2, exact match averaged over {list(cfg.eval_pairs)} pairs, mean ± SE "
                f"{avg_se:.3f} over seeds {sorted(per_seed)}; per size: "
                + ", ".join(f"{n}: {v:.3f}" for n, v in mean.items()))
            res.figures[f"kv_grid_capacity_50[m={m}, {steps} steps]"] = Figure(
                round(cap, 2), unit="pairs", note=f"largest tested size with exact match >= 50%, mean ± SE "
                f"{cap_se:.2f} over seeds {sorted(per_seed)}")
    return grid


