"""``paperworks repro lifting``: W2 to the simulator over time for the lifted map, the deterministic regressor and
a conditional-Gaussian head on four systems, averaged over reported seeds, then diagnostics of where the
Gaussian head does better.

Protocol. For each system ``n_traj`` training trajectories are simulated from the system's initial law; every
transition is a training pair. Models share one MLP trunk; the lifted and the deterministic ones are fitted by
the authors' objective (:mod:`.train`), the Gaussian head by likelihood. ``n_eval`` fresh initial states are rolled
out by the simulator and by each model (fresh labels every step) and compared by W2 per time, averaged over all
times (:func:`.metrics.trajectory_w2`), and by the energy distance.

Seeds. Settings picked by looking at results (the lifted map's label dimension and injection, the Gaussian head's
early stopping) are picked on ``validation_seeds`` only, by the mean over systems and seeds of ``log W2``. The
``reported_seeds`` are fixed in the config before any run; every reported figure is a mean over them with its
standard error. Seed ``s`` on the ``k``-th system seeds data, initialisation, labels and rollouts with
``s + 100 k``.

Diagnostics (reported seeds): the one-step spread ratio (std of a model's next-state draws over the simulator's,
from the same states on the reference paths; 1 = calibrated, < 1 = too narrow), the authors' settings (label
embedding added per layer, label dimension 64, batch 64), ``more_data`` times the training trajectories, and
``more_steps`` times the optimiser steps.

Sizes: the ``quick`` preset, or the full one; any field of :class:`LiftingReproConfig` can be overridden with the
environment variable ``PAPERWORKS_LIFTING`` (``"name=value,..."``, tuples as ``a/b/c``), recorded in the config.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paperworks.backends.lifting.definitions import DIFFERENCES, MATCHED
from paperworks.backends.lifting.metrics import energy_distance, per_time, sliced_w2, trajectory_w2
from paperworks.backends.lifting.model import GaussianHead, LiftedMLP
from paperworks.backends.lifting.plots import plot_samples, plot_sweep, plot_w2_vs_time
from paperworks.backends.lifting.systems import SDE, make_system, transitions
from paperworks.backends.lifting.train import TrainConfig, fit, relative_train_error, rollout
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress
from paperworks.core.errors import UserError
from paperworks.core.tracking import scope, track

MODELS = ("deterministic", "gaussian", "lifted")
SYSTEMS: dict[str, tuple[str, float, int]] = {
    "ou": ("ou", 0.2, 20), "double_well dt=0.2": ("double_well", 0.2, 20),
    "double_well dt=1.5": ("double_well", 1.5, 8), "ring": ("ring", 0.2, 20)}
"""Name → (system, observation interval, trajectory steps)."""
PAPER = ("lifted rollouts reproduce the simulator's law over time (W2 per time) where a deterministic "
         "regressor collapses to the mean; it relies on the finite-sample regime")
ENV = "PAPERWORKS_LIFTING"


@dataclass(frozen=True)
class Variant:
    """One model setting: ``kind`` in :data:`MODELS` plus what differs from the config."""

    kind: str
    label_dim: int = 0
    inject: str = "concat"
    val_frac: float = 0.0
    batch: int | None = None
    n_traj_factor: int = 1
    steps_factor: int = 1

    def name(self) -> str:
        if self.kind == "lifted":
            return f"lifted {self.inject}/{self.label_dim}"
        return f"gaussian val_frac={self.val_frac:g}" if self.kind == "gaussian" else "deterministic"


@dataclass
class LiftingReproConfig:
    """Sizes and seeds (``quick`` preset in :func:`preset`; fields overridable through ``PAPERWORKS_LIFTING``)."""

    n_traj: int = 50
    n_eval: int = 1000
    width: int = 128
    depth: int = 3
    steps: int = 2000
    lr: float = 3e-3
    batch: int = 256
    label_dims: tuple[int, ...] = (1, 16, 64)
    """Label dimensions tried with concatenation on the validation seeds (plus embedding with dimension 64)."""
    gaussian_val_fracs: tuple[float, ...] = (0.0, 0.2)
    """Held-out fractions for the Gaussian head's early stopping tried on the validation seeds (0 = none)."""
    validation_seeds: tuple[int, ...] = (0, 1)
    reported_seeds: tuple[int, ...] = (10, 11, 12, 13)
    more_data: int = 4
    more_steps: int = 2
    authors_batch: int = 64
    spread_states: int = 64
    spread_draws: int = 256
    diag_systems: tuple[str, ...] = ("double_well dt=1.5", "ring")
    """Systems the diagnostics run on (the two with clearly non-Gaussian transition laws)."""
    workers: int = 1
    """Processes that fit models in parallel (1 = in this process, with training curves tracked)."""


def preset(quick: bool) -> LiftingReproConfig:
    """Full (about 30 minutes on 2 busy shared cores with ``workers=2``) or quick (about a minute) sizes, then
    the overrides."""
    cfg = LiftingReproConfig(n_traj=30, n_eval=300, steps=200, label_dims=(4,), gaussian_val_fracs=(0.2,),
                             validation_seeds=(0,), reported_seeds=(10,), spread_states=16, spread_draws=64,
                             diag_systems=("ring",)) if quick else LiftingReproConfig()
    return with_overrides(cfg, os.environ.get(ENV, ""))


def with_overrides(cfg: LiftingReproConfig, text: str) -> LiftingReproConfig:
    """``cfg`` with ``"name=value,..."`` applied (tuples as ``a/b/c``); a bad name or value is a UserError."""
    types = {f.name: f for f in fields(cfg)}
    changes: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = item.partition("=")
        if key not in types or not value:
            raise UserError(f"{ENV}: '{item}' is not name=value with a name among {', '.join(types)}")
        current = getattr(cfg, key)
        cast = type(current[0]) if isinstance(current, tuple) else type(current)
        try:
            parts = [cast(v) for v in value.split("/")]
        except ValueError:
            raise UserError(f"{ENV}: '{item}': expected {cast.__name__} value(s)") from None
        changes[key] = tuple(parts) if isinstance(current, tuple) else parts[0]
    return replace(cfg, **changes)


def _mean_se(values: list[float]) -> tuple[float, float]:
    a = np.asarray(values, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(a.size)) if a.size > 1 else float("nan")


def one_step_spread(model: torch.nn.Module, sde: SDE, states: np.ndarray, draws: int, seed: int) -> float:
    """Mean over ``states`` of ``sqrt(total variance)`` of the model's next-state draws divided by that of the
    simulator's, ``draws`` each (1 = calibrated spread, < 1 = too narrow)."""
    rep = np.repeat(states, draws, axis=0)
    gen = rollout(model, rep, 1, seed=seed)[:, 1].reshape(len(states), draws, -1)
    ref = sde.step(rep, np.random.default_rng(seed)).reshape(len(states), draws, -1)
    return float(np.mean(np.sqrt(gen.var(1).sum(-1)) / np.sqrt(ref.var(1).sum(-1))))


def _w2_or_inf(gen: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """:func:`.metrics.trajectory_w2`'s per-time W2, with +inf at the times where a diverged rollout holds NaN or
    infinity (the metrics reject non-finite samples)."""
    ok = np.isfinite(gen).all(axis=(0, 2))
    if ok.all():
        return trajectory_w2(gen, ref)[0]
    return np.array([sliced_w2(gen[:, t], ref[:, t], 128, t) if ok[t] else np.inf for t in range(gen.shape[1])])


def evaluate(sname: str, var: Variant, cfg: LiftingReproConfig, seed: int) -> dict[str, Any]:
    """Fit ``var`` on system ``sname`` with ``seed`` and compare its rollouts with the simulator's."""
    system, dt, n_steps = SYSTEMS[sname]
    sde = make_system(system, dt_obs=dt)
    rng = np.random.default_rng(seed)
    x, y = transitions(sde.simulate(sde.initial(cfg.n_traj * var.n_traj_factor, rng), n_steps, rng))
    x0 = sde.initial(cfg.n_eval, rng)
    ref = sde.simulate(x0, n_steps, rng)
    torch.manual_seed(seed)
    model: torch.nn.Module = (GaussianHead(sde.dim, cfg.width, cfg.depth) if var.kind == "gaussian" else
                              LiftedMLP(sde.dim, var.label_dim, cfg.width, cfg.depth, inject=var.inject))
    tc = TrainConfig(steps=cfg.steps * var.steps_factor, lr=cfg.lr, batch=var.batch or cfg.batch, seed=seed,
                     val_frac=var.val_frac)
    with scope(f"{sname}/{var.name()}/traj{cfg.n_traj * var.n_traj_factor}/steps{tc.steps}/seed{seed}"):
        losses = fit(model, x, y, tc)
        gen = rollout(model, x0, n_steps, seed=seed + 1)
        w2 = _w2_or_inf(gen, ref)
        for t, value in enumerate(w2):
            track("rollout/w2", value, t)
    ok = bool(np.isfinite(gen).all())
    ed = per_time(energy_distance, gen, ref) if ok else np.full(n_steps + 1, np.inf)
    pick = np.random.default_rng(seed + 2)
    states = ref[pick.integers(0, cfg.n_eval, cfg.spread_states), pick.integers(1, n_steps + 1, cfg.spread_states)]
    spread = one_step_spread(model, sde, states, cfg.spread_draws, seed + 3) if ok else float("nan")
    rel = relative_train_error(model, x, y, seed) if var.kind != "gaussian" and tc.val_frac == 0 else None
    return {"w2": w2.tolist(), "w2_mean": float(w2.mean()), "energy_mean": float(ed.mean()), "spread": spread,
            "final_loss": losses[-1], "train_rel_err": rel, "n_transitions": len(x),
            "gen_last": gen[:, -1, 0], "ref_last": ref[:, -1, 0]}


def _evaluate_in_worker(args: tuple[str, Variant, LiftingReproConfig, int]) -> dict[str, Any]:
    torch.set_num_threads(1)
    return evaluate(*args)


class _Runner:
    """Fits (system, variant, seed) once each, in this process or in a pool of ``cfg.workers`` processes."""

    def __init__(self, cfg: LiftingReproConfig, progress: Progress) -> None:
        self.cfg, self.progress = cfg, progress
        self.cache: dict[tuple[str, Variant, int], dict[str, Any]] = {}
        self.pool: Any = None
        if cfg.workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.pool = ProcessPoolExecutor(cfg.workers, mp_context=multiprocessing.get_context("spawn"))

    def sweep(self, var: Variant, seeds: tuple[int, ...],
              systems: tuple[str, ...] | None = None) -> dict[str, list[dict[str, Any]]]:
        """Results per system (all systems unless ``systems``), one per seed (``s + 100 k`` on system ``k``)."""
        names = [s for s in SYSTEMS if systems is None or s in systems]
        keys = [(s, var, seed + 100 * list(SYSTEMS).index(s)) for s in names for seed in seeds]
        todo = [k for k in keys if k not in self.cache]
        if todo:
            self.progress(f"{var.name()} (x{var.n_traj_factor} data, x{var.steps_factor} steps): {len(todo)} fits")
            args = [(k[0], k[1], self.cfg, k[2]) for k in todo]
            results = (self.pool.map(_evaluate_in_worker, args) if self.pool is not None else
                       (evaluate(*a) for a in args))
            self.cache.update(zip(todo, results, strict=True))
        return {s: [self.cache[k] for k in keys if k[0] == s] for s in names}

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def _log_score(runs: dict[str, list[dict[str, Any]]]) -> float:
    return float(np.mean([math.log(max(r["w2_mean"], 1e-12)) for rs in runs.values() for r in rs]))


def _fig(values: list[float], seeds: tuple[int, ...], paper: str | None = None, note: str = "") -> Figure:
    m, se = _mean_se(values)
    spread = (f"± {se:.4f} (standard error over reported seeds {list(seeds)})" if len(values) > 1 else
              f"one reported seed {list(seeds)}, no standard error")
    return Figure(round(m, 4), paper=paper, note=spread + (f"; {note}" if note else ""))


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """The experiment; writes its plots into ``out``."""
    torch.set_num_threads(1)
    cfg = preset(quick)
    out.mkdir(parents=True, exist_ok=True)
    res = ReproResult(name="lifting", config={**asdict(cfg), "size_overrides": os.environ.get(ENV, "")})
    runner = _Runner(cfg, progress)
    try:
        return _run(out, cfg, runner, res)
    finally:
        runner.close()


def _run(out: Path, cfg: LiftingReproConfig, runner: _Runner, res: ReproResult) -> ReproResult:
    vs, rs = cfg.validation_seeds, cfg.reported_seeds

    # 1. choices on the validation seeds
    lifted_cands = [Variant("lifted", m) for m in cfg.label_dims] + [Variant("lifted", 64, inject="embed")]
    gauss_cands = [Variant("gaussian", val_frac=f) for f in cfg.gaussian_val_fracs]
    val_scores = {v.name(): _log_score(runner.sweep(v, vs)) for v in lifted_cands + gauss_cands}
    lifted = min(lifted_cands, key=lambda v: val_scores[v.name()])
    gauss = min(gauss_cands, key=lambda v: val_scores[v.name()])
    for name, score in val_scores.items():
        res.figures[f"validation_geomean_w2[{name}]"] = Figure(
            round(math.exp(score), 4), note=f"geometric mean over systems and validation seeds {list(vs)} "
                                            "(used to choose settings; not a reported result)")
    res.figures["chosen_lifted"] = Figure(lifted.name(), paper="label dimension 64, embedded (authors' wave demo)",
                                          note="injection/label dimension with the lowest validation score")
    res.figures["chosen_gaussian"] = Figure(gauss.name(), note="early stopping setting with the lowest validation "
                                                               "score")

    # 2. the comparison on the reported seeds
    main = {"deterministic": runner.sweep(Variant("deterministic"), rs), "gaussian": runner.sweep(gauss, rs),
            "lifted": runner.sweep(lifted, rs)}
    curves: dict[str, dict[str, list[float]]] = {}
    wins = 0
    for sname in SYSTEMS:
        curves[sname] = {k: np.mean([r["w2"] for r in main[k][sname]], axis=0).tolist() for k in MODELS}
        for k in MODELS:
            w = [r["w2_mean"] for r in main[k][sname]]
            res.figures[f"w2_mean[{sname}, {k}]"] = _fig(w, rs, PAPER if k == "lifted" else None,
                                                         f"{main[k][sname][0]['n_transitions']} training transitions")
            res.figures[f"one_step_spread[{sname}, {k}]"] = _fig([r["spread"] for r in main[k][sname]], rs, None,
                                                                 "model/simulator next-state std; 1 = calibrated")
        lift = [r["w2_mean"] for r in main["lifted"][sname]]
        det = [r["w2_mean"] for r in main["deterministic"][sname]]
        gau = [r["w2_mean"] for r in main["gaussian"][sname]]
        res.figures[f"lifted_over_deterministic[{sname}]"] = _fig(
            [a / b for a, b in zip(lift, det, strict=True)], rs, "< 1 (lifting avoids collapse to the mean)")
        ratio_g = [a / b for a, b in zip(lift, gau, strict=True)]
        wins += int(np.mean(ratio_g) < 1)
        res.figures[f"lifted_over_gaussian[{sname}]"] = _fig(
            ratio_g, rs, None, f"lifted better on {sum(r < 1 for r in ratio_g)} of {len(rs)} seeds")
        res.figures[f"lifted_train_rel_err[{sname}]"] = _fig(
            [r["train_rel_err"] for r in main["lifted"][sname]], rs, "near interpolation",
            "sum |F(x_i, xi_i) - y_i|^2 / sum |y_i - x_i|^2")
    res.figures["systems_where_lifting_beats_gaussian"] = Figure(wins, note=f"of {len(SYSTEMS)}, by mean ratio")

    # 3. diagnostics on the reported seeds
    diags = {"authors_settings": (Variant("lifted", 64, inject="embed", batch=cfg.authors_batch), gauss),
             "more_data": (replace(lifted, n_traj_factor=cfg.more_data), replace(gauss, n_traj_factor=cfg.more_data)),
             "more_steps": (replace(lifted, steps_factor=cfg.more_steps), None)}
    diag_extra: dict[str, Any] = {}
    for dname, (lv, gv) in diags.items():
        lr_ = runner.sweep(lv, rs, cfg.diag_systems)
        gr = runner.sweep(gv, rs, cfg.diag_systems) if gv is not None else main["gaussian"]
        diag_extra[dname] = {"lifted": lv.name(), "gaussian": gv.name() if gv else gauss.name(), "per_system": {}}
        for sname in cfg.diag_systems:
            lw, gw = [r["w2_mean"] for r in lr_[sname]], [r["w2_mean"] for r in gr[sname]]
            ratio = [a / b for a, b in zip(lw, gw, strict=True)]
            res.figures[f"diag_{dname}: w2_mean[{sname}, lifted]"] = _fig(
                lw, rs, None, f"{lv.name()}, {lr_[sname][0]['n_transitions']} transitions, x{lv.steps_factor} steps")
            res.figures[f"diag_{dname}: lifted_over_gaussian[{sname}]"] = _fig(ratio, rs)
            res.figures[f"diag_{dname}: one_step_spread[{sname}, lifted]"] = _fig(
                [r["spread"] for r in lr_[sname]], rs)
            diag_extra[dname]["per_system"][sname] = {"lifted_w2": lw, "gaussian_w2": gw,
                                                      "lifted_spread": [r["spread"] for r in lr_[sname]]}

    plot_w2_vs_time(out / "w2_vs_time.png", curves, {s: v[1] for s, v in SYSTEMS.items()})
    for sname in ("double_well dt=1.5", "ou"):
        _, dt, n_steps = SYSTEMS[sname]
        plot_samples(out / f"hist_{sname.split()[0]}_{'long' if dt > 1 else 'short'}.png",
                     main["lifted"][sname][0]["ref_last"], {k: main[k][sname][0]["gen_last"] for k in MODELS},
                     f"{sname}: law at t = {n_steps * dt:g} (seed {rs[0]})")
    dims = list(cfg.label_dims)
    plot_sweep(out / "w2_vs_label_dim.png", dims,
               {s: [float(np.mean([runner.cache[(s, Variant("lifted", m), v + 100 * i)]["w2_mean"] for v in vs]))
                    for m in dims] for i, s in enumerate(SYSTEMS)}, "label dimension (concat)",
               f"validation seeds {list(vs)}")
    res.plots = sorted(p.name for p in out.glob("*.png"))
    res.config.update({"chosen_lifted": asdict(lifted), "chosen_gaussian": asdict(gauss)})
    res.extra = {
        "definitions_matched": MATCHED, "definition_differences": DIFFERENCES, "w2_vs_time_mean": curves,
        "per_seed_w2_mean": {k: {s: [r["w2_mean"] for r in v] for s, v in d.items()} for k, d in main.items()},
        "validation_log_w2": val_scores, "diagnostics": diag_extra}
    return res
