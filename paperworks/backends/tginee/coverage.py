"""Coverage diagnostic of the T-GINEE Wald intervals: many replications of one fixed truth.

The repro's coverage is the share of one network's ``Theta`` entries inside their 95% sandwich intervals.
A shortfall there can come from (a) a sandwich that underestimates the estimator's variance, (b) bias of
``Theta``-hat (the ridge shrinks it; finite-sample bias of a nonlinear fit), or (c) a non-normal estimator.
Here the truth (factors, communities, held-out pairs) is drawn once per size and only the edges are redrawn
``replications`` times (:func:`.data.make_network` with ``edge_seed``); each replication is fitted with
T-GINEE (exchangeable) and its sandwich. Across replications each entry then has an empirical standard
deviation ``sd`` and mean ``Theta``-bar, which separate the three causes:

- ``coverage_sandwich``: ``|Theta-hat - Theta| <= z se`` (what the repro reports);
- ``coverage_empirical_sd``: ``|Theta-hat - Theta| <= z sd`` (a perfect variance estimate; misses only
  through bias and non-normality);
- ``coverage_sandwich_centred``: ``|Theta-hat - Theta-bar| <= z se`` (bias removed; misses only through
  the variance estimate and non-normality);
- ``coverage_empirical_centred``: ``|Theta-hat - Theta-bar| <= z sd`` (normality alone: 0.95 if normal);
- ``se_over_sd``: median over entries of mean ``se`` / ``sd`` (1 for a calibrated sandwich);
- ``abs_bias_over_sd``: median over entries of ``|Theta-bar - Theta| / sd``.

Each coverage has a Monte-Carlo 95% interval: the replications are independent, so the mean over
replications of each replication's coverage (a share of entries) gets a normal interval; for single
entries (``replications`` Bernoulli draws each) the Wilson interval is reported as the share of entries whose
Wilson interval lies wholly below / above 0.95. The interval of ``coverage_empirical_*`` treats ``sd`` and
``Theta-bar`` as known (they are estimated from the same replications).
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.repro import Progress, no_progress
from paperworks.backends.tginee.data import NetworkConfig, make_network
from paperworks.backends.tginee.inference import sandwich, theta_se
from paperworks.backends.tginee.model import TGineeConfig, fit
from paperworks.core.errors import UserError

Z95 = 1.959963984540054
ENV_REPS = "PAPERWORKS_TGINEE_COVERAGE_REPS"
ENV_NODES = "PAPERWORKS_TGINEE_COVERAGE_NODES"
ENV_CACHE = "PAPERWORKS_TGINEE_COVERAGE_CACHE"
ENV_BUDGET = "PAPERWORKS_TGINEE_COVERAGE_BUDGET_S"


@dataclass
class CoverageConfig:
    """Sizes of the coverage diagnostic (overridable by environment variables, see :func:`from_env`)."""

    nodes: tuple[int, ...] = (40, 80)
    """Network sizes ``n`` (the repro's size first, then a larger one)."""
    replications: tuple[int, ...] = (200, 200)
    """Edge draws per size (one fixed truth each): one number per size, or one for all sizes."""
    rho: float = 0.6
    """Latent cross-layer correlation of the replications."""
    truth_seed: int = 500
    """Seed of the truth of size ``nodes[k]``: ``truth_seed + k``."""
    edge_seed: int = 100_000
    """Replication ``r`` of size ``nodes[k]`` draws its edges with ``edge_seed + 10_000 k + r``."""
    cache: str = ""
    """Folder where each replication's estimates are kept (``""``: none). A rerun with the same sizes and
    seeds reads the finished replications back instead of refitting them (they are deterministic)."""
    budget_s: float = 0.0
    """Wall-clock seconds (from the start of the experiment) after which no replication is fitted any more;
    only those already fitted or in the cache count (``0``: no limit). The summaries report how many."""
    deadline: float = 0.0
    """``time.time()`` at which ``budget_s`` runs out (set by :func:`from_env`; 0: none)."""

    def reps(self, k: int) -> int:
        """Replications of size ``nodes[k]``."""
        return self.replications[k] if len(self.replications) > 1 else self.replications[0]


def _ints(name: str, low: int) -> tuple[int, ...] | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() and int(p) >= low for p in parts):
        raise UserError(f"{name} must be comma-separated integers >= {low}, got '{text}'")
    return tuple(int(p) for p in parts)


def from_env(base: CoverageConfig) -> CoverageConfig:
    """``base`` with ``PAPERWORKS_TGINEE_COVERAGE_NODES`` (sizes, comma-separated integers >= 8),
    ``PAPERWORKS_TGINEE_COVERAGE_REPS`` (replications >= 2: one for all sizes or one per size) and
    ``PAPERWORKS_TGINEE_COVERAGE_CACHE`` (a folder) applied where set."""
    cfg = base
    nodes, reps = _ints(ENV_NODES, 8), _ints(ENV_REPS, 2)
    if nodes is not None:
        cfg = replace(cfg, nodes=nodes)
    if reps is not None:
        cfg = replace(cfg, replications=reps)
    if len(cfg.replications) not in (1, len(cfg.nodes)):
        raise UserError(f"{ENV_REPS} needs one value or one per size ({len(cfg.nodes)}), got {len(cfg.replications)}")
    cache = os.environ.get(ENV_CACHE, "").strip()
    if cache:
        cfg = replace(cfg, cache=cache)
    budget = os.environ.get(ENV_BUDGET, "").strip()
    if budget:
        try:
            seconds = float(budget)
        except ValueError:
            seconds = -1.0
        if not seconds > 0:
            raise UserError(f"{ENV_BUDGET} must be a positive number of seconds, got '{budget}'")
        cfg = replace(cfg, budget_s=seconds, deadline=time.time() + seconds)
    return cfg


def wilson(hits: np.ndarray | int, n: int, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval ``(low, high)`` of a binomial proportion ``hits / n`` (elementwise)."""
    if n < 1:
        raise UserError(f"wilson: need at least one trial, got {n}")
    p = np.asarray(hits, dtype=float) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _mc(per_rep: np.ndarray) -> dict[str, float]:
    """Mean of independent per-replication shares with its normal 95% Monte-Carlo interval."""
    m = float(per_rep.mean())
    se = float(per_rep.std(ddof=1) / np.sqrt(per_rep.size)) if per_rep.size > 1 else float("nan")
    return {"mean": round(m, 4), "mc_low": round(m - Z95 * se, 4), "mc_high": round(m + Z95 * se, 4)}


def summarise(theta_hat: np.ndarray, se: np.ndarray, theta: np.ndarray) -> dict[str, Any]:
    """The diagnostic's figures from ``theta_hat`` and ``se`` (replications x entries) and the true
    ``theta`` (entries); see the module docstring."""
    reps = theta_hat.shape[0]
    if reps < 2 or se.shape != theta_hat.shape or theta.shape != theta_hat.shape[1:]:
        raise UserError(f"coverage: need >= 2 replications and matching shapes, got {theta_hat.shape}, "
                        f"{se.shape}, {theta.shape}")
    bar = theta_hat.mean(axis=0)
    sd = theta_hat.std(axis=0, ddof=1)
    ok = sd > 0
    err, cerr = np.abs(theta_hat - theta), np.abs(theta_hat - bar)
    hits = {"coverage_sandwich": err <= Z95 * se,
            "coverage_empirical_sd": err <= Z95 * sd,
            "coverage_sandwich_centred": cerr <= Z95 * se,
            "coverage_empirical_centred": cerr <= Z95 * sd}
    out: dict[str, Any] = {"replications": reps, "entries": int(ok.sum())}
    for k, h in hits.items():
        out[k] = _mc(h[:, ok].mean(axis=1))
    low, high = wilson(hits["coverage_sandwich"][:, ok].sum(axis=0), reps)
    out["entries_wilson_below_0.95"] = round(float((high < 0.95).mean()), 4)
    out["entries_wilson_above_0.95"] = round(float((low > 0.95).mean()), 4)
    ratio = se[:, ok].mean(axis=0) / sd[ok]
    bias = (bar - theta)[ok] / sd[ok]
    out["se_over_sd"] = {"median": round(float(np.median(ratio)), 4), "mean": round(float(ratio.mean()), 4),
                         "q10": round(float(np.quantile(ratio, 0.1)), 4),
                         "q90": round(float(np.quantile(ratio, 0.9)), 4)}
    out["abs_bias_over_sd"] = {"median": round(float(np.median(np.abs(bias))), 4),
                               "mean": round(float(np.abs(bias).mean()), 4),
                               "rms": round(float(np.sqrt(np.mean(bias ** 2))), 4)}
    # the coverage a normal estimator with this bias and a calibrated sd would have, averaged over entries
    from scipy.stats import norm

    expected = norm.cdf(Z95 - bias) - norm.cdf(-Z95 - bias)
    out["normal_coverage_implied_by_bias"] = round(float(expected.mean()), 4)
    out["shrinkage_slope"] = round(float(np.polyfit(theta[ok], bar[ok], 1)[0]), 4)
    return out


def replicate(net_cfg: NetworkConfig, fit_cfg: TGineeConfig, cfg: CoverageConfig, k: int,
              progress: Progress = no_progress) -> dict[str, Any]:
    """Fit ``cfg.replications`` edge draws of size ``cfg.nodes[k]``'s fixed truth; returns :func:`summarise`
    plus the fits' convergence and the seeds used."""
    n = cfg.nodes[k]
    ncfg = replace(net_cfg, nodes=n, rho=cfg.rho)
    truth = make_network(ncfg, cfg.truth_seed + k)
    off = truth.train | truth.test
    fcfg = replace(fit_cfg, corr="exchangeable")
    reps = cfg.reps(k)
    seeds = [cfg.edge_seed + 10_000 * k + r for r in range(reps)]
    th, ses, conv, used = [], [], [], []
    hits = 0
    for r, es in enumerate(seeds):
        if r % 10 == 0:
            progress(f"coverage diagnostic n={n}: replication {r + 1}/{reps}")
        over = cfg.deadline > 0 and time.time() > cfg.deadline
        got = replicate_one(ncfg, fcfg, cfg, k, es, off, cached_only=over)
        if got is None:
            continue
        t, e, c, cached = got
        used.append(es)
        th.append(t)
        ses.append(e)
        conv.append(c)
        hits += cached
    if len(th) < 2:
        out: dict[str, Any] = {"replications": len(th), "summary": "skipped: fewer than 2 replications in the budget"}
    else:
        out = summarise(np.stack(th), np.stack(ses), truth.theta[off])
    out.update({"nodes": n, "converged_share": round(float(np.mean(conv)), 4), "truth_seed": cfg.truth_seed + k,
                "edge_seeds_planned": [seeds[0], seeds[-1]], "replications_planned": reps,
                "edge_seeds_used": used, "read_from_cache": hits})
    return out


def replicate_one(ncfg: NetworkConfig, fcfg: TGineeConfig, cfg: CoverageConfig, k: int, edge_seed: int,
                  off: np.ndarray, cached_only: bool = False) -> tuple[np.ndarray, np.ndarray, bool, bool] | None:
    """One replication: ``(Theta-hat[off], se[off], converged, read from the cache)``; None when
    ``cached_only`` and it is not in the cache."""
    n = ncfg.nodes
    path = Path(cfg.cache) / f"n{n}_t{cfg.truth_seed + k}_e{edge_seed}_{_key(ncfg, fcfg)}.npz" if cfg.cache else None
    if path is not None and path.is_file():
        with np.load(path) as z:
            return z["theta"], z["se"], bool(z["converged"]), True
    if cached_only:
        return None
    net = make_network(ncfg, cfg.truth_seed + k, edge_seed=edge_seed)
    f = fit(net.y, net.train, fcfg)
    cov, _, _ = sandwich(f, net.y, net.train)
    theta, se = f.theta[off], theta_se(f, cov)[off]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        np.savez(tmp, theta=theta, se=se, converged=f.converged)
        tmp.replace(path)
    return theta, se, f.converged, False


def _key(ncfg: NetworkConfig, fcfg: TGineeConfig) -> str:
    """A short digest of the settings, so a cache never mixes replications of different settings."""
    import hashlib

    return hashlib.sha1(repr((asdict(ncfg), asdict(fcfg))).encode()).hexdigest()[:10]


def run_diagnostic(net_cfg: NetworkConfig, fit_cfg: TGineeConfig, cfg: CoverageConfig,
                   progress: Progress = no_progress) -> list[dict[str, Any]]:
    """:func:`replicate` at every size of ``cfg.nodes``."""
    return [replicate(net_cfg, fit_cfg, cfg, k, progress) for k in range(len(cfg.nodes))]
