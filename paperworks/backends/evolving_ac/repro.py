"""``paperworks repro evolving_ac``: ``(1/T) sum_t |grad J_t(theta_t)|^2`` against ``T`` on log–log axes over
seeds, for four reward schedules, with fitted slopes (the claim: about -0.5 when the reward is static or
evolves slowly, also when it is gradient-updated on the same timescale; fast switching should break it).

Protocol. One random MDP (8 states, 3 actions; Dirichlet transitions, so every policy mixes), a tabular softmax
actor and a one-hot (tabular) linear critic, both started at zero; for each horizon ``T`` every run uses step sizes
``alpha0/sqrt(T)``, ``beta0/sqrt(T)``, ... for all ``T`` steps of one Markov chain. The actor's error is measured
exactly (stationary law, Poisson equation) at 100 geometrically spaced times per run and averaged by the trapezoidal
rule; the critic's error likewise. Slopes are least-squares fits of log error against log T over the horizons, per
seed (the figure is their mean, its spread their standard error). A linear-feature actor and a random-feature critic
(full rank) repeat the static case. The paper's log^2 T gain in the static case is not measured: it is a statement
about bounds, invisible over two decades of T.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from paperworks.backends.evolving_ac.ac import ACConfig, fit_slope, run_actor_critic
from paperworks.backends.evolving_ac.mdp import SoftmaxPolicy, random_mdp
from paperworks.backends.evolving_ac.plots import plot_curves, plot_rates
from paperworks.backends.evolving_ac.schedules import KINDS, Schedule
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress
from paperworks.core.tracking import scope

CLAIM = {"static": "≈ -0.5 (O(1/√T))", "drift": "≈ -0.5 (slowly evolving reward)",
         "gradient": "≈ -0.5 (reward updated by a bounded gradient rule, same timescale)",
         "switching": "no O(1/√T) guarantee: the slow-drift condition fails (issue: fast drift should break it)",
         "static, linear features": "≈ -0.5 (O(1/√T))"}


@dataclass
class EvolvingACReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    n_states: int = 8
    """States of the random MDP."""
    n_actions: int = 3
    """Actions."""
    Ts: tuple[int, ...] = (1000, 3000, 10000, 30000, 100000)
    """Horizons; each is a separate run with step sizes ∝ 1/sqrt(T)."""
    n_runs: int = 10
    """Seeds per horizon (runs advance together, vectorised)."""
    alpha0: float = 10.0
    """Actor step constant."""
    beta0: float = 2.0
    """Critic step constant."""
    gamma0: float = 2.0
    """Average-reward step constant."""
    zeta0: float = 2.0
    """Reward-parameter step constant (gradient schedule)."""
    n_eval: int = 100
    """Exact-gradient measurements per run."""
    linear_k: int = 6
    """Policy features of the linear-feature actor."""
    mdp_seed: int = 0
    """Seed of the MDP and the random features."""
    seed: int = 1
    """Seed of the runs."""


def preset(quick: bool) -> EvolvingACReproConfig:
    """Full (about 4 minutes on 2 cores) or quick (about 20 s) sizes."""
    if quick:
        return EvolvingACReproConfig(Ts=(1000, 3000, 10000), n_runs=6, n_eval=50)
    return EvolvingACReproConfig()


def measure(cfg: EvolvingACReproConfig, kind: str, linear: bool = False,
            progress: Progress = no_progress) -> dict[str, np.ndarray]:
    """Per-seed average actor and critic errors ``(n_runs, len(Ts))`` for one schedule, and the curve along
    the longest run."""
    mdp = random_mdp(cfg.n_states, cfg.n_actions, seed=cfg.mdp_seed)
    S, A = cfg.n_states, cfg.n_actions
    if linear:
        policy = SoftmaxPolicy.linear(S, A, cfg.linear_k, seed=cfg.mdp_seed + 1)
        phi = np.random.default_rng(cfg.mdp_seed + 2).normal(size=(S, S)) / np.sqrt(S)
    else:
        policy, phi = SoftmaxPolicy.tabular(S, A), np.eye(S)
    ac = ACConfig(alpha0=cfg.alpha0, beta0=cfg.beta0, gamma0=cfg.gamma0, zeta0=cfg.zeta0, n_eval=cfg.n_eval)
    actor, critic = [], []
    out: dict[str, np.ndarray] = {}
    for T in cfg.Ts:
        progress(f"{kind}{' (linear)' if linear else ''}: T = {T}")
        with scope(f"{kind}{'_linear' if linear else ''}/T{T}"):
            out = run_actor_critic(mdp, policy, phi, Schedule(kind), T, cfg.n_runs, ac, seed=cfg.seed + T)
        actor.append(out["avg_grad_sq"])
        critic.append(out["avg_critic_sq"])
    return {"actor": np.stack(actor, 1), "critic": np.stack(critic, 1), "times": out["times"],
            "curve": out["grad_sq"].mean(0), "J_end": out["J"][:, -1], "phi_cond": np.linalg.cond(phi)}


def _slopes(Ts: tuple[int, ...], v: np.ndarray) -> tuple[float, float]:
    per_seed = np.array([fit_slope(np.array(Ts), row) for row in v])
    return float(per_seed.mean()), float(per_seed.std(ddof=1) / np.sqrt(len(per_seed))) if len(per_seed) > 1 \
        else 0.0


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """The experiment; writes its plots into ``out``."""
    cfg = preset(quick)
    out.mkdir(parents=True, exist_ok=True)
    res = ReproResult(name="evolving_ac", config=asdict(cfg))
    runs = {kind: measure(cfg, kind, progress=progress) for kind in KINDS}
    runs["static, linear features"] = measure(cfg, "static", linear=True, progress=progress)
    actor_slopes, critic_slopes = {}, {}
    for name, r in runs.items():
        a, a_se = _slopes(cfg.Ts, r["actor"])
        c, c_se = _slopes(cfg.Ts, r["critic"])
        actor_slopes[name], critic_slopes[name] = a, c
        if name == "switching":
            verdict = "breaks the rate, as expected" if a > -0.35 else "does NOT break the rate here"
        else:
            verdict = "within 0.15 of -0.5" if abs(a + 0.5) <= 0.15 else "NOT within 0.15 of -0.5"
        res.figures[f"actor_slope[{name}]"] = Figure(
            round(a, 3), paper=CLAIM[name],
            note=f"± {a_se:.3f} (s.e. over {cfg.n_runs} seeds); T in {list(cfg.Ts)}; {verdict}")
        res.figures[f"critic_slope[{name}]"] = Figure(
            round(c, 3), paper="≈ -0.5 (critic also O(1/√T))" if name != "switching" else None,
            note=f"± {c_se:.3f}; error Var_d(phi.w - V) + (eta - J)^2 averaged over the run"
                 + (f"; random critic features of condition number {float(r['phi_cond']):.0f}: the error "
                    "flattens near 0.008, short of the claim; with the actor frozen the same critic's average "
                    "error fell from 0.0077 (T = 3000) to 0.0029 (T = 30000) in a trial run, so the floor comes "
                    "from tracking the moving actor through ill-conditioned features"
                    if name.endswith("linear features") else ""))
        res.figures[f"actor_avg_grad_sq[{name}, T={cfg.Ts[-1]}]"] = Figure(
            float(f"{r['actor'][:, -1].mean():.4g}"), note="(1/T) sum_t |grad J_t(theta_t)|^2, mean over seeds")
    plot_rates(out / "actor_rate.png", list(cfg.Ts), {k: v["actor"] for k, v in runs.items()}, actor_slopes,
               "(1/T) Σ |∇J_t(θ_t)|²", "actor: average squared gradient norm")
    plot_rates(out / "critic_rate.png", list(cfg.Ts), {k: v["critic"] for k, v in runs.items()}, critic_slopes,
               "(1/T) Σ critic error", "critic: Var_d(φᵀω − V) + (η − J)²")
    plot_curves(out / "grad_along_run.png", {k: (v["times"], v["curve"]) for k, v in runs.items()}, cfg.Ts[-1])
    res.plots = sorted(p.name for p in out.glob("*.png"))
    res.extra = {"Ts": list(cfg.Ts),
                 "actor_avg_grad_sq": {k: v["actor"].tolist() for k, v in runs.items()},
                 "critic_avg_err": {k: v["critic"].tolist() for k, v in runs.items()},
                 "J_end_longest": {k: v["J_end"].tolist() for k, v in runs.items()}}
    return res
