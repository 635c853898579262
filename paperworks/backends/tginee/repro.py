"""``paperworks repro tginee``: T-GINEE against pooled CP (independence) and per-layer logistic MF on
synthetic multilayer networks with a known ``Theta``, at several cross-layer correlation levels.

Protocol. For each latent correlation ``rho`` and replicate, one network (:mod:`.data`: ``n`` nodes, ``L``
layers, rank-``R`` CP truth, ``K`` communities, Gaussian-copula correlation ``rho`` across a pair's
layers); 20% of node pairs (all their layers) are held out. Every method (:mod:`.baselines`) is fitted on
the rest with the same rank, link scale and ridge, then scored on: the relative Frobenius error of
``Theta``-hat over all off-diagonal entries; the AUC of its probabilities on the held-out pairs; the share of
off-diagonal entries whose true ``Theta`` lies in the 95% sandwich Wald interval; the adjusted Rand index of
spectral communities from ``Theta``-hat; and the relative error of the edge probabilities ``mu``. The model
is a reconstruction (no authors' code): see :mod:`.model`.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress
from paperworks.backends.tginee.baselines import METHODS, run_methods
from paperworks.backends.tginee.coverage import CoverageConfig, from_env, run_diagnostic
from paperworks.backends.tginee.data import NetworkConfig, make_network
from paperworks.backends.tginee.heads import adjusted_rand, auc, communities
from paperworks.backends.tginee.inference import wald_coverage
from paperworks.backends.tginee.model import TGineeConfig
from paperworks.backends.tginee.plots import plot_alpha, plot_metrics
from paperworks.core.errors import UserError

RECON = "Reconstructed T-GINEE (no authors' code): CP mean tensor + GEE across layers, sandwich variance. "


@dataclass
class TGineeReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    network: NetworkConfig = field(default_factory=NetworkConfig)
    """The synthetic network (its ``rho`` is replaced by each of ``rhos``)."""
    rhos: tuple[float, ...] = (0.0, 0.3, 0.6, 0.9)
    """Latent cross-layer correlations tried."""
    replicates: int = 6
    """Networks per correlation level."""
    fit: TGineeConfig = field(default_factory=lambda: TGineeConfig(rank=3, link_scale=0.8))
    """Fitting settings shared by every method (rank and link scale match the truth)."""
    seed: int = 0
    """Network ``k`` of level ``rho_i`` uses seed ``seed + 1000 i + k`` (fixed before any run; nothing in the
    experiment is tuned on them)."""
    coverage: CoverageConfig = field(default_factory=CoverageConfig)
    """The coverage diagnostic (:mod:`.coverage`); its sizes can be set by environment variables."""

    def reported_seeds(self) -> list[int]:
        """The seeds of the networks behind the reported table, in order."""
        return [self.seed + 1000 * i + k for i in range(len(self.rhos)) for k in range(self.replicates)]


def preset(quick: bool) -> TGineeReproConfig:
    """Default (a few minutes on one core, plus the coverage diagnostic) or ``quick`` (well under a minute).
    The diagnostic's sizes follow ``PAPERWORKS_TGINEE_COVERAGE_REPS`` / ``..._NODES`` where set."""
    if quick:
        cfg = TGineeReproConfig(network=NetworkConfig(nodes=30, layers=3), rhos=(0.0, 0.8), replicates=1,
                                fit=TGineeConfig(rank=3, link_scale=0.8, max_sweeps=100),
                                coverage=CoverageConfig(nodes=(20,), replications=(8,)))
    else:
        cfg = TGineeReproConfig()
    return replace(cfg, coverage=from_env(cfg.coverage))


def _mean_se(vals: list[float]) -> list[float]:
    a = np.asarray(vals, dtype=float)
    a = a[np.isfinite(a)]
    if a.size == 0:
        return [float("nan"), float("nan")]
    se = float(a.std(ddof=1) / np.sqrt(a.size)) if a.size > 1 else 0.0
    return [round(float(a.mean()), 4), round(se, 4)]


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment into ``out``; see the module docstring. ``PAPERWORKS_TGINEE_PARTS`` (default
    ``table,coverage``) picks the parts: the method table and/or the coverage diagnostic."""
    if scale != "cpu":
        raise UserError(f"repro tginee offers only --scale cpu (plain numpy), got '{scale}'")
    parts = _parts()
    cfg = preset(quick)
    out.mkdir(parents=True, exist_ok=True)
    net_cfg, fit_cfg = cfg.network, replace(cfg.fit, rank=cfg.network.rank, link_scale=cfg.network.link_scale)
    config = asdict(cfg)
    config.update({"parts": list(parts), "reported_seeds": cfg.reported_seeds() if "table" in parts else [],
                   "validation_seeds": [],
                   "tuning": "none on seeds: ridge, var_floor and the sweep caps are fixed defaults of "
                             "TGineeConfig, not chosen by any result of this experiment"})
    res = ReproResult(name="tginee", config=config)
    if "table" in parts:
        _table(res, cfg, out, net_cfg, fit_cfg, progress)
    if "coverage" in parts:
        diag = run_diagnostic(net_cfg, fit_cfg, cfg.coverage, progress)
        _coverage_figures(res.figures, diag)
        res.extra["coverage_diagnostic"] = diag
    return res


def _parts() -> tuple[str, ...]:
    text = os.environ.get("PAPERWORKS_TGINEE_PARTS", "table,coverage")
    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    if not parts or any(p not in ("table", "coverage") for p in parts):
        raise UserError(f"PAPERWORKS_TGINEE_PARTS must list table and/or coverage, got '{text}'")
    return parts


def _table(res: ReproResult, cfg: TGineeReproConfig, out: Path, net_cfg: NetworkConfig, fit_cfg: TGineeConfig,
           progress: Progress) -> None:
    metrics = ("rel_error", "mu_rel_error", "auc", "coverage", "ari")
    raw: dict[str, dict[str, dict[str, list[float]]]] = {m: {k: {} for k in METHODS} for m in metrics}
    conv: dict[str, list[bool]] = {k: [] for k in METHODS}
    secs: dict[str, list[float]] = {k: [] for k in METHODS}
    resid: dict[str, list[float]] = {k: [] for k in METHODS}
    alphas: list[list[float]] = []
    oracle: list[float] = []
    for i, rho in enumerate(cfg.rhos):
        key = str(rho)
        for m in metrics:
            for k in METHODS:
                raw[m][k][key] = []
        alpha_row, oracle_row = [], []
        for rep in range(cfg.replicates):
            progress(f"rho={rho}: network {rep + 1}/{cfg.replicates}, {len(METHODS)} methods")
            net = make_network(replace(net_cfg, rho=rho), cfg.seed + 1000 * i + rep)
            off = net.train | net.test
            norm = float(np.linalg.norm(net.theta[off]))
            oracle_row.append(auc(net.mu[net.test], net.y[net.test]))
            for k, fitted in run_methods(net.y, net.train, fit_cfg).items():
                raw["rel_error"][k][key].append(float(np.linalg.norm((fitted.theta - net.theta)[off])) / norm)
                raw["mu_rel_error"][k][key].append(float(np.linalg.norm((fitted.mean - net.mu)[off])
                                                         / np.linalg.norm(net.mu[off])))
                raw["auc"][k][key].append(auc(fitted.mean[net.test], net.y[net.test]))
                raw["coverage"][k][key].append(wald_coverage(fitted.theta, fitted.se, net.theta, off))
                raw["ari"][k][key].append(adjusted_rand(net.labels, communities(fitted.theta, net_cfg.communities,
                                                                                 net_cfg.rank)))
                conv[k].append(fitted.converged)
                secs[k].append(fitted.seconds)
                resid[k].append(fitted.score_norm)
                if k == "T-GINEE (exchangeable)" and fitted.alpha is not None:
                    alpha_row.append(fitted.alpha)
        alphas.append(alpha_row)
        oracle.append(float(np.mean(oracle_row)))
    table = {m: {k: {r: _mean_se(v) for r, v in by.items()} for k, by in raw[m].items()} for m in metrics}
    rhos = list(cfg.rhos)
    title = (f"{RECON}\nn={net_cfg.nodes}, L={net_cfg.layers}, R={net_cfg.rank}, K={net_cfg.communities}, "
             f"link scale {net_cfg.link_scale}, {cfg.replicates} networks per rho (mean +- se)")
    plot_metrics(table, rhos, out / "tginee_metrics.png", oracle, title)
    plot_alpha(rhos, alphas, out / "tginee_alpha.png")
    res.plots += ["tginee_metrics.png", "tginee_alpha.png"]
    _figures(res, cfg, table, conv, secs, alphas, oracle)
    for k in METHODS:
        res.figures[f"median_equation_residual[{k}]"] = Figure(
            float(f"{np.median(resid[k]):.3g}"), note="max |estimating function| at the returned solution, "
            f"relative to its value at the start; median over networks (the sweep cap is {fit_cfg.max_sweeps})")
    res.extra.update({"table": table, "raw": raw, "oracle_auc": dict(zip(map(str, rhos), oracle, strict=True)),
                      "alpha_exchangeable": dict(zip(map(str, rhos), alphas, strict=True))})


def _figures(res: ReproResult, cfg: TGineeReproConfig, table: dict[str, dict[str, dict[str, list[float]]]],
             conv: dict[str, list[bool]], secs: dict[str, list[float]], alphas: list[list[float]],
             oracle: list[float]) -> None:
    f = res.figures
    reps = f"{cfg.replicates} networks per rho"
    notes = {"rel_error": f"||Theta-hat - Theta||_F / ||Theta||_F over off-diagonal entries; mean over {reps}",
             "mu_rel_error": f"||mu-hat - mu||_F / ||mu||_F (edge probabilities); mean over {reps}",
             "auc": f"AUC of fitted probabilities on held-out node pairs (all layers); mean over {reps}",
             "coverage": f"share of off-diagonal Theta_ijl inside 95% sandwich Wald intervals; mean over {reps}",
             "ari": f"adjusted Rand index of spectral+k-means communities from Theta-hat; mean over {reps}"}
    for metric, by_method in table.items():
        for k, by_rho in by_method.items():
            for rho_key, (m, _) in by_rho.items():
                f[f"{metric}[{k}, rho={rho_key}]"] = Figure(m, note=notes[metric])
    for i, r in enumerate(cfg.rhos):
        f[f"oracle_auc[rho={r}]"] = Figure(round(oracle[i], 4), note="AUC of the true probabilities (ceiling)")
        f[f"alpha_exchangeable[rho={r}]"] = Figure(round(float(np.mean(alphas[i])), 4) if alphas[i] else None,
                                                   note="moment estimate of the exchangeable working "
                                                        "correlation of Pearson residuals (latent rho is the "
                                                        "copula's, not the binary edges' correlation)")
    for k in METHODS:
        f[f"converged_share[{k}]"] = Figure(round(float(np.mean(conv[k])), 3),
                                            note="fits whose equations' residual fell below the tolerance")
        f[f"fit_cpu_s[{k}]"] = Figure(round(float(np.mean(secs[k])), 2), unit="s",
                                      note="process CPU time per network, with the sandwich")
    _headline(f, cfg, table)


def _avg(table: dict[str, dict[str, dict[str, list[float]]]], metric: str, method: str,
         rhos: tuple[float, ...]) -> float:
    return float(np.nanmean([table[metric][method][str(r)][0] for r in rhos]))


def _headline(f: dict[str, Figure], cfg: TGineeReproConfig, table: dict[str, dict[str, dict[str, list[float]]]],
              ) -> None:
    tg, pooled, lmf = "T-GINEE (exchangeable)", "Pooled CP (independence)", "Per-layer LMF"
    high = tuple(r for r in cfg.rhos if r >= 0.5) or cfg.rhos
    e_tg, e_pool, e_lmf = (_avg(table, "rel_error", m, high) for m in (tg, pooled, lmf))
    f["rel_error_ratio_tginee_over_pooled[rho>=0.5]"] = Figure(
        round(e_tg / e_pool, 4), paper="modelling inter-layer correlation (GEE working covariance) improves "
        "estimation over treating layers independently / aggregating them",
        note=RECON + f"mean Theta error, T-GINEE exchangeable {e_tg:.3f} vs pooled independence {e_pool:.3f} "
        f"at rho in {list(high)}; < 1 means T-GINEE is better" + ("" if e_tg < e_pool else
                                                                  " (here it is NOT better)"))
    f["rel_error_ratio_tginee_over_per_layer"] = Figure(
        round(_avg(table, "rel_error", tg, cfg.rhos) / _avg(table, "rel_error", lmf, cfg.rhos), 4),
        paper="shared CP factors capture cross-layer structure better than per-layer methods",
        note=RECON + f"mean over all rho; per-layer LMF error {e_lmf:.3f} at high rho; < 1 means T-GINEE is "
        "better")
    a_tg, a_pool, a_lmf = (_avg(table, "auc", m, cfg.rhos) for m in (tg, pooled, lmf))
    f["auc_tginee_minus_best_baseline"] = Figure(
        round(a_tg - max(a_pool, a_lmf), 4), paper="T-GINEE outperforms baselines in link prediction",
        note=RECON + f"held-out AUC averaged over rho: T-GINEE {a_tg:.3f}, pooled {a_pool:.3f}, per-layer "
        f"{a_lmf:.3f}; > 0 means T-GINEE is better" + ("" if a_tg > max(a_pool, a_lmf) else
                                                       " (here it is NOT better)"))
    r_tg, r_pool, r_lmf = (_avg(table, "ari", m, cfg.rhos) for m in (tg, pooled, lmf))
    f["ari_tginee_minus_best_baseline"] = Figure(
        round(r_tg - max(r_pool, r_lmf), 4), paper="T-GINEE outperforms baselines in community detection",
        note=RECON + f"ARI averaged over rho: T-GINEE {r_tg:.3f}, pooled {r_pool:.3f}, per-layer {r_lmf:.3f}"
        + (" (a tie: differences under 0.02 are within the replicate noise here)"
           if abs(r_tg - max(r_pool, r_lmf)) < 0.02 else ""))
    c_tg, c_pool = (_avg(table, "coverage", m, cfg.rhos) for m in (tg, pooled))
    f["coverage_tginee"] = Figure(
        round(c_tg, 4), paper="consistency and asymptotic normality: Wald intervals attain nominal 95%",
        note=RECON + f"mean over rho (pooled independence {c_pool:.3f}); share of one network's entries "
        "covered, " + ("short of 95%" if c_tg < 0.93 else "near 95%") + "; the diag_* figures (replications of "
        "a fixed truth) split the shortfall into variance estimate, bias and non-normality")


def _coverage_figures(f: dict[str, Figure], diag: list[dict[str, Any]]) -> None:
    for d in diag:
        if "coverage_sandwich" not in d:
            continue
        tag = f"n={d['nodes']}"
        reps = (f"{d['replications']} replications (of {d['replications_planned']} planned) of one truth (rho fixed), "
                "T-GINEE exchangeable")
        for key, what in (("coverage_sandwich", "true Theta inside Theta-hat +- 1.96 sandwich se"),
                          ("coverage_empirical_sd", "true Theta inside Theta-hat +- 1.96 empirical sd across "
                                                    "replications (a perfect variance; misses = bias/non-normality)"),
                          ("coverage_sandwich_centred", "mean Theta-hat inside Theta-hat +- 1.96 sandwich se "
                                                        "(bias removed; misses = variance estimate)")):
            c = d[key]
            f[f"diag_{key}[{tag}]"] = Figure(
                c["mean"], paper="asymptotic normality: 95%" if key == "coverage_sandwich" else None,
                note=f"{what}; {reps}; Monte-Carlo 95% interval [{c['mc_low']}, {c['mc_high']}]")
        f[f"diag_se_over_sd[{tag}]"] = Figure(
            d["se_over_sd"]["median"], note=f"median over entries of mean sandwich se / empirical sd; {reps}; "
            "1 = calibrated, < 1 = the sandwich underestimates the variance")
        f[f"diag_abs_bias_over_sd[{tag}]"] = Figure(
            d["abs_bias_over_sd"]["median"], note=f"median over entries of |mean Theta-hat - Theta| / empirical "
            f"sd; {reps}; shrinkage slope of mean Theta-hat on Theta {d['shrinkage_slope']}")
