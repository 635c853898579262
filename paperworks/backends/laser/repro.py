"""``paperworks repro laser``: relative L2 reconstruction error of a moving-source field for K ∈ {4, 8, 16}
sensors — random static layout, QR-pivoted POD layout, greedy uncertainty heuristic and LASER, all on one shared
reconstructor (the world model); plus QR-POD with its own least-squares POD reconstruction.

The loop is reconstructed (the paper's body and code are not public), Dreamer-style:
(1) world model trained on training episodes observed along static, QR and random-walk tracks;
(2) actor and critic trained in latent imagination from filtered training states;
(3) ``rounds − 1`` times: the greedy and the (noisy) LASER tracks on training episodes join the track bank,
the world model is fine-tuned on it, and the actor–critic continues.
Evaluation on held-out episodes; the active methods start from the QR layout.

Oracle reconstructor. Every method's sensor tracks are also scored with :mod:`~paperworks.backends.laser.oracle`'s
linear MMSE reconstruction of the true field from the same readings (covariances from the training episodes;
``window`` 1: each frame alone, and a space–time window that credits what moving sensors saw before), so that
the placement is measured apart from the learned world model: if LASER beats the static layouts under the
oracle, the shared reconstructor is what holds it back; if not, the placement itself is no better.

Seeds. The whole experiment (training episodes, world model, actor–critic, test episodes ``test_seed + s``) is
repeated for each reported seed ``s`` (``config["reported_seeds"]``, fixed before the runs); figures are means ±
standard errors over seeds (over test episodes when only one seed ran). Nothing is tuned on them
(``validation_seeds`` is empty: the oracle window and nugget were fixed in advance).
``PAPERWORKS_LASER_SEEDS`` (a count) runs only the first seeds where time is short.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from paperworks.backends.laser.agent import ACConfig, Actor, Critic, train_actor_critic
from paperworks.backends.laser.field import FieldConfig, make_dataset
from paperworks.backends.laser.oracle import field_stats, oracle_reconstruct
from paperworks.backends.laser.plots import plot_error_over_time, plot_error_vs_k, plot_sensor_paths, plot_training
from paperworks.backends.laser.policies import (
    Chooser,
    greedy_chooser,
    laser_chooser,
    relative_l2,
    run_method,
    static_chooser,
)
from paperworks.backends.laser.sensors import pixel_positions, pod_basis, pod_reconstruct, qr_sensors, random_layout
from paperworks.backends.laser.train import TrackBank, WMTrainConfig, initial_bank, train_world_model
from paperworks.backends.laser.world import WorldModel, WorldModelConfig
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress, with_torch_threads
from paperworks.core.errors import UserError

PAPER = "LASER's active sensors beat static and offline-optimised layouts in reconstruction error"
ENV_SEEDS = "PAPERWORKS_LASER_SEEDS"
ENV_SIZE = "PAPERWORKS_LASER_SIZE"
METHODS = ("random static", "QR-POD static", "greedy uncertainty", "LASER")


@dataclass
class LaserReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    field: FieldConfig = dataclasses.field(default_factory=FieldConfig)
    """The field family."""
    ks: tuple[int, ...] = (4, 8, 16)
    """Sensor counts."""
    train_episodes: int = 160
    """Training episodes (POD snapshots, world-model and imagination data)."""
    test_episodes: int = 32
    """Held-out episodes scored."""
    max_step: float = 2.0
    """Largest sensor move per frame, cells (sources move 0.6–1.2 cells per frame)."""
    wm: WorldModelConfig = dataclasses.field(default_factory=WorldModelConfig)
    """World-model sizes."""
    basis_rank: int = 64
    """POD modes of the training snapshots that span the world model's decoded mean."""
    wm_train: WMTrainConfig = dataclasses.field(default_factory=lambda: WMTrainConfig(steps=1200))
    """First world-model training."""
    wm_finetune_steps: int = 300
    """World-model steps in each later round."""
    ac: ACConfig = dataclasses.field(default_factory=lambda: ACConfig(steps=300))
    """Actor–critic training per round."""
    rounds: int = 2
    """Rounds of (collect tracks, fine-tune world model, train actor–critic); 1 = no re-collection."""
    collect_episodes: int = 48
    """Training episodes on which the greedy and LASER tracks are collected per later round."""
    start_states: int = 48
    """Training episodes filtered per K for imagination start states."""
    seeds: tuple[int, ...] = (0, 1, 2)
    """Reported seeds, fixed before the runs: the whole experiment runs once per seed."""
    test_seed: int = 1000
    """Test episodes of seed ``s`` are drawn with ``test_seed + s`` (disjoint from every training seed)."""
    oracle_windows: tuple[int, ...] = (1, 4)
    """Frames of readings the oracle reconstructor uses per estimate (1: the current frame only)."""
    oracle_nugget: float = 1e-3
    """Oracle nugget ν as a fraction of the mean pixel variance (keeps Cov(y, y) well conditioned)."""
    threads: int = 1
    """torch CPU threads (the cores are shared)."""


def preset(quick: bool) -> LaserReproConfig:
    """Default (several minutes on a free CPU core), ``quick`` (about a minute), or with ``PAPERWORKS_LASER_SIZE=small``
    a reduced default (one round, half the world-model steps) for a machine too busy for the full size."""
    if quick:
        return LaserReproConfig(field=FieldConfig(steps=16), train_episodes=48, test_episodes=8,
                                wm_train=WMTrainConfig(steps=150), ac=ACConfig(steps=60, batch=32, horizon=6),
                                rounds=1, start_states=16, seeds=(0,), oracle_windows=(1, 3))
    size = os.environ.get(ENV_SIZE, "").strip()
    if size not in ("", "full", "small"):
        raise UserError(f"{ENV_SIZE} must be 'full' or 'small', got '{size}'")
    if size == "small":  # about half the CPU time of the full size, for a machine too busy for it
        return seeds_from_env(LaserReproConfig(train_episodes=96, test_episodes=16, wm_train=WMTrainConfig(steps=600),
                                               ac=ACConfig(steps=200), rounds=1, start_states=32))
    return seeds_from_env(LaserReproConfig())


def seeds_from_env(cfg: LaserReproConfig) -> LaserReproConfig:
    """``cfg`` with only its first ``PAPERWORKS_LASER_SEEDS`` seeds (an integer >= 1) where that is set."""
    raw = os.environ.get(ENV_SEEDS, "").strip()
    if not raw:
        return cfg
    if not raw.isdigit() or not 1 <= int(raw) <= len(cfg.seeds):
        raise UserError(f"{ENV_SEEDS} must be an integer in 1..{len(cfg.seeds)}, got '{raw}'")
    return dataclasses.replace(cfg, seeds=cfg.seeds[: int(raw)])


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment into ``out``; see the module docstring."""
    if scale != "cpu":
        raise UserError(f"repro laser offers only --scale cpu, got '{scale}'")
    return run_config(out, preset(quick), progress)


def run_config(out: Path, cfg: LaserReproConfig, progress: Progress = no_progress) -> ReproResult:
    """The experiment under any :class:`LaserReproConfig` (torch limited to ``cfg.threads`` meanwhile)."""
    if cfg.rounds < 1 or not cfg.ks or min(cfg.ks) < 1 or not cfg.seeds:
        raise UserError(f"LaserReproConfig needs rounds >= 1, sensor counts >= 1 and a seed, got {cfg.rounds}, "
                        f"{cfg.ks}, {cfg.seeds}")
    if not cfg.oracle_windows or not 1 <= min(cfg.oracle_windows) <= max(cfg.oracle_windows) <= cfg.field.steps:
        raise UserError(f"LaserReproConfig.oracle_windows must lie in 1..{cfg.field.steps}, got {cfg.oracle_windows}")
    return with_torch_threads(cfg.threads, lambda: _run(out, cfg, progress))


def _start_states(wm: WorldModel, fields: np.ndarray, bank: TrackBank, cfg: LaserReproConfig,
                  rng: np.random.Generator) -> list[tuple[torch.Tensor, torch.Tensor]]:
    starts = []
    with torch.no_grad():
        for k in cfg.ks:
            tracks, eps = bank.sample(k, cfg.start_states, rng)
            pos = torch.from_numpy(tracks).float()
            post = wm.filter(torch.from_numpy(fields[eps]), pos)["post"]
            starts.append((post.flatten(0, 1), pos.flatten(0, 1)))
    return starts


def _run(out: Path, cfg: LaserReproConfig, progress: Progress) -> ReproResult:
    out.mkdir(parents=True, exist_ok=True)
    res = ReproResult(name="laser", config={**asdict(cfg), "reported_seeds": list(cfg.seeds), "validation_seeds": [],
                                            ENV_SEEDS: os.environ.get(ENV_SEEDS) or None,
                                            ENV_SIZE: os.environ.get(ENV_SIZE) or None,
                                            "tuned": "nothing (oracle window and nugget fixed in advance)"})
    runs = [_one_seed(cfg, seed, _prefixed(progress, f"seed {seed}: ")) for seed in cfg.seeds]
    _report(res, out, cfg, runs)
    return res


def _prefixed(progress: Progress, prefix: str) -> Progress:
    def report(text: str) -> None:
        progress(prefix + text)

    return report


def _one_seed(cfg: LaserReproConfig, seed: int, progress: Progress) -> dict:
    """Train and evaluate everything for one seed; returns the test fields, per-method errors, tracks, curves."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = cfg.field.grid
    progress(f"fields: {cfg.train_episodes} training and {cfg.test_episodes} test episodes")
    train = make_dataset(cfg.field, cfg.train_episodes, seed)
    test = make_dataset(cfg.field, cfg.test_episodes, cfg.test_seed + seed)
    snaps = train.reshape(-1, n * n).astype(np.float64)
    pod_mean, pod_modes = pod_basis(snaps, max(cfg.basis_rank, *cfg.ks))  # one SVD, sliced per rank
    pods = {k: (pod_mean, pod_modes[:, :k]) for k in cfg.ks}
    qr_idx = {k: qr_sensors(pods[k][1], k) for k in cfg.ks}
    bank = initial_bank(n, cfg.train_episodes, cfg.field.steps, cfg.ks, cfg.max_step, qr_idx, rng)
    wm = WorldModel(n, cfg.wm, basis=(pod_mean, pod_modes[:, :cfg.basis_rank]))
    actor = Actor(cfg.wm.latent, n, cfg.max_step)
    critic = Critic(cfg.wm.latent, n)
    wm_hist: list[dict[str, float]] = []
    ac_hist: list[dict[str, float]] = []
    for rnd in range(cfg.rounds):
        if rnd > 0:
            progress(f"round {rnd + 1}: collecting greedy and LASER tracks")
            eps = rng.choice(cfg.train_episodes, size=min(cfg.collect_episodes, cfg.train_episodes), replace=False)
            for k in cfg.ks:
                start = np.stack([pixel_positions(qr_idx[k], n)] * len(eps))
                for chooser in (greedy_chooser(wm, cfg.max_step), laser_chooser(wm, actor, noise=True)):
                    bank.add(k, run_method(wm, train[eps], start, chooser)["tracks"].astype(np.float64), eps)
        steps = cfg.wm_train.steps if rnd == 0 else cfg.wm_finetune_steps
        progress(f"round {rnd + 1}: world model ({steps} steps)")
        wcfg = WMTrainConfig(**{**asdict(cfg.wm_train), "steps": steps,
                                "lr": cfg.wm_train.lr if rnd == 0 else cfg.wm_train.lr / 3})
        wm_hist += train_world_model(wm, train, bank, wcfg, rng)
        progress(f"round {rnd + 1}: actor-critic in imagination ({cfg.ac.steps} updates)")
        ac_hist += train_actor_critic(wm, actor, critic, _start_states(wm, train, bank, cfg, rng), cfg.ac, rng)
    progress("evaluation on held-out episodes (world model and oracle reconstructors)")
    stats = field_stats(train, max(cfg.oracle_windows))
    results, tracks = _evaluate(wm, actor, test, pods, qr_idx, cfg, rng)
    nugget = cfg.oracle_nugget * float(np.mean(np.diag(stats.blocks[0, 0])))
    for win in cfg.oracle_windows:
        for label in METHODS:
            results[f"{label} | oracle w={win}"] = {
                k: relative_l2(oracle_reconstruct(test, tracks[k][label], stats, win, nugget), test) for k in cfg.ks}
    return {"test": test, "results": results, "tracks": tracks, "wm_hist": wm_hist, "ac_hist": ac_hist}


def _evaluate(wm: WorldModel, actor: Actor, test: np.ndarray, pods: dict[int, tuple[np.ndarray, np.ndarray]],
              qr_idx: dict[int, np.ndarray], cfg: LaserReproConfig,
              rng: np.random.Generator) -> tuple[dict[str, dict[int, np.ndarray]], dict[int, dict[str, np.ndarray]]]:
    """Per method and K the per-episode, per-frame errors ``(E, T)``; per K the tracks ``(E, T, K, 2)``."""
    n, e = cfg.field.grid, len(test)
    results: dict[str, dict[int, np.ndarray]] = {}
    tracks: dict[int, dict[str, np.ndarray]] = {}
    for k in cfg.ks:
        qr = np.stack([pixel_positions(qr_idx[k], n)] * e)
        rand = np.stack([random_layout(n, k, rng) for _ in range(e)])
        methods: dict[str, tuple[np.ndarray, Chooser]] = {
            "random static": (rand, static_chooser()), "QR-POD static": (qr, static_chooser()),
            "greedy uncertainty": (qr, greedy_chooser(wm, cfg.max_step)), "LASER": (qr, laser_chooser(wm, actor))}
        tracks[k] = {}
        for label, (start, chooser) in methods.items():
            t0 = time.process_time()
            out = run_method(wm, test, start, chooser)
            results.setdefault(label, {})[k] = out["rel_l2"]
            tracks[k][label] = out["tracks"]
            results.setdefault(f"{label} [cpu s]", {})[k] = np.array([[time.process_time() - t0]])
        mean, modes = pods[k]
        vals = test.reshape(e, test.shape[1], -1)[..., qr_idx[k]]
        recon = pod_reconstruct(vals, qr_idx[k], mean, modes).reshape(test.shape)
        results.setdefault("QR-POD, own least-squares reconstructor", {})[k] = relative_l2(recon, test)
    return results, tracks


def _mean_se(xs: list[np.ndarray]) -> tuple[float, float]:
    """Mean over seeds of each seed's mean error and its standard error over seeds; with one seed, the standard
    error over that seed's test episodes."""
    if len(xs) > 1:
        means = np.array([float(x.mean()) for x in xs])
        return round(float(means.mean()), 4), round(float(means.std(ddof=1) / np.sqrt(len(means))), 4)
    per_episode = xs[0].mean(1)
    se = per_episode.std(ddof=1) / np.sqrt(len(per_episode)) if len(per_episode) > 1 else 0.0
    return round(float(per_episode.mean()), 4), round(float(se), 4)


def _paired(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[float, float]:
    """``a − b`` paired by seed (by test episode when only one seed ran): mean and standard error."""
    diff = np.array([float(x.mean() - y.mean()) for x, y in zip(a, b, strict=True)]) if len(a) > 1 \
        else a[0].mean(1) - b[0].mean(1)
    se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else 0.0
    return round(float(diff.mean()), 4), round(float(se), 4)


def _verdict(gap: float, se: float, what: str) -> str:
    return (f"LASER beats {what}" if gap < -2 * se else f"LASER is within 2 paired s.e. of {what}" if gap < 2 * se
            else f"LASER does NOT beat {what}")


def _report(res: ReproResult, out: Path, cfg: LaserReproConfig, runs: list[dict]) -> None:
    f = res.figures
    labels = [lb for lb in runs[0]["results"] if not lb.endswith("[cpu s]")]
    err = {lb: {k: [r["results"][lb][k] for r in runs] for k in cfg.ks} for lb in labels}
    table = {lb: {k: _mean_se(err[lb][k]) for k in cfg.ks} for lb in labels}
    over = (f"{len(cfg.seeds)} reported seed(s) {list(cfg.seeds)}" if len(cfg.seeds) > 1 else
            f"seed {cfg.seeds[0]}, ± over test episodes")
    recon_note = (f"‖û−u‖/‖u‖, mean over {cfg.test_episodes} held-out episodes × {cfg.field.steps} frames on the "
                  f"shared world-model reconstructor; ± is the standard error over {over}")
    for label, by_k in table.items():
        for k, (m, se) in by_k.items():
            if "own" in label:
                note = f"least squares on the first {k} POD modes at the QR pixels, per frame"
            elif "oracle" in label:
                note = (f"oracle reconstructor (linear MMSE from the same readings, {label.split('w=')[1]} frame(s) "
                        "of readings, covariances from the training episodes) on this method's tracks")
            else:
                note = recon_note
            f[f"rel_l2[{label}, K={k}]"] = Figure(m, paper=PAPER if label == "LASER" else None,
                                                  note=f"± {se}; {note}; ± over {over}")
    statics = ("random static", "QR-POD static")
    verdicts = []
    for k in cfg.ks:
        best = min(statics, key=lambda lb: table[lb][k][0])
        gap, se = _paired(err["LASER"][k], err[best][k])
        f[f"laser_minus_best_static[K={k}]"] = Figure(
            gap, paper="negative (LASER better than static and offline-optimised layouts)",
            note=f"± {se}; {_verdict(gap, se, f'the better static layout ({best})')} on the shared world-model "
                 "reconstructor at this CPU scale (paired by seed); the loop is reconstructed (no public body or "
                 "code), so this tests the reconstruction, not the authors' system")
        for win in cfg.oracle_windows:
            o = f" | oracle w={win}"
            best_o = min(statics, key=lambda lb: table[lb + o][k][0])
            gap_o, se_o = _paired(err["LASER" + o][k], err[best_o + o][k])
            v = _verdict(gap_o, se_o, f"the better static layout ({best_o})")
            f[f"laser_minus_best_static_oracle_w{win}[K={k}]"] = Figure(gap_o, note=(
                f"± {se_o}; {v} when every layout is scored by the oracle reconstructor ({win} frame(s) of "
                "readings): negative would mean the placement is better and the learned reconstructor the "
                "bottleneck"))
            if win == max(cfg.oracle_windows):
                verdicts.append(f"K={k}: {v} under the oracle ({gap_o:+.4f} ± {se_o})")
        f[f"laser_minus_qr_pod_lsq[K={k}]"] = Figure(
            round(table["LASER"][k][0] - table["QR-POD, own least-squares reconstructor"][k][0], 4),
            note="LASER on the world model minus QR-POD with its classical least-squares POD reconstructor (a "
                 "different reconstructor: this compares whole pipelines, not layouts)")
        f[f"laser_minus_greedy[K={k}]"] = Figure(round(table["LASER"][k][0] - table["greedy uncertainty"][k][0], 4),
                                                 note="negative: LASER better than the greedy uncertainty heuristic")
    beats = [v for v in verdicts if "LASER beats" in v]
    f["reconstructor_is_bottleneck"] = Figure(
        "yes" if beats and len(beats) == len(verdicts) else "partly" if beats else "no",
        note="does LASER's placement beat the static layouts once the learned reconstructor is replaced by the "
             f"oracle (window {max(cfg.oracle_windows)})? " + "; ".join(verdicts))
    wm_mse = [float(np.mean([h["mse"] for h in r["wm_hist"][-50:]])) for r in runs]
    f["world_model_final_mse"] = Figure(round(float(np.mean(wm_mse)), 4), note=(
        f"posterior MSE, last 50 steps, mean over seeds (field variance {runs[0]['test'].var():.3f})"))
    _plots(res, out, cfg, runs[0], table)
    res.extra.update({
        "table": {label: {str(k): v for k, v in by_k.items()} for label, by_k in table.items()},
        "per_seed": {label: {str(k): [round(float(x.mean()), 4) for x in xs] for k, xs in by_k.items()}
                     for label, by_k in err.items()},
        "eval_cpu_s": {label[:-8]: {str(k): float(v[0, 0]) for k, v in by_k.items()}
                       for label, by_k in runs[0]["results"].items() if label.endswith("[cpu s]")},
        "wm_mse": [round(h["mse"], 5) for h in runs[0]["wm_hist"]],
        "ac_reward": [round(h["reward"], 5) for h in runs[0]["ac_hist"]]})


def _plots(res: ReproResult, out: Path, cfg: LaserReproConfig, run: dict,
           table: dict[str, dict[int, tuple[float, float]]]) -> None:
    """The four PNGs, from the first seed's run (the error-vs-K plot from the table over seeds)."""
    test, results, tracks = run["test"], run["results"], run["tracks"]
    k_plot = cfg.ks[len(cfg.ks) // 2]
    ep = 0
    own = "QR-POD, own least-squares reconstructor"
    w = max(cfg.oracle_windows)
    shown = [*METHODS, own, f"QR-POD static | oracle w={w}", f"LASER | oracle w={w}"]
    plot_error_vs_k({lb: table[lb] for lb in shown}, out / "error_vs_k.png",
                    f"{cfg.field.grid}² moving-source field: error vs sensors (LASER loop reconstructed)")
    plot_sensor_paths(test[ep], {lb: tracks[k_plot][lb][ep] for lb in METHODS},
                      {lb: float(results[lb][k_plot][ep].mean()) for lb in METHODS}, out / "sensor_paths.png",
                      f"test episode {ep}, K={k_plot}: time-mean field, sensor paths (o start, x end)")
    plot_error_over_time({lb: results[lb][k_plot].mean(0) for lb in (*METHODS, own)},
                         out / "error_over_time.png", f"K={k_plot}: error per frame, mean over test episodes")
    plot_training({"world model posterior MSE": [h["mse"] for h in run["wm_hist"]],
                   "imagined intrinsic reward (scaled)": [h["reward"] for h in run["ac_hist"]],
                   "critic loss": [h["critic_loss"] for h in run["ac_hist"]]}, out / "training.png")
    res.plots += ["error_vs_k.png", "sensor_paths.png", "error_over_time.png", "training.png"]
    res.extra["sensor_paths_episode0"] = {lb: np.round(tracks[k_plot][lb][ep], 2).tolist() for lb in METHODS}
