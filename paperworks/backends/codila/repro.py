"""``paperworks repro codila``: a tiny masked-diffusion LM, an AR baseline of the same size and CoDiLA's local AR
head, all trained here on CPU on the generated code-like language and arithmetic (:mod:`.data`); then code
validity, arithmetic accuracy, decoding steps and wall-clock throughput for the AR baseline, the DLM with
``k`` tokens per step (confidence-ordered and block-parallel unmasking) and CoDiLA at the same ``k``, and
the accuracy–speed (Pareto) plot. Nothing is cached outside ``--out``.

Scale against the paper: Dream-Coder-7B with a ~0.6B head on code benchmarks there; a ~270k-parameter DLM
with a ~77k-parameter head on a toy language here. The head's exact form and training recipe are
reconstructed from the paper's description (see :mod:`.model`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import torch

from paperworks.backends.codila.data import (
    CODE,
    MASK_ID,
    PAD,
    SEQ_LEN,
    VOCAB,
    Example,
    arith_example,
    encode,
    make_dataset,
    random_arith,
)
from paperworks.backends.codila.decode import ar_decode, codila_decode, dlm_decode
from paperworks.backends.codila.evaluate import Decoder, Score, evaluate
from paperworks.backends.codila.model import HeadConfig, LocalARHead, NetConfig, TinyTransformer, n_params
from paperworks.backends.codila.plots import pareto_front, plot_pareto, plot_training
from paperworks.backends.codila.train import TrainConfig, timed, train_ar, train_dlm, train_head
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress, with_torch_threads
from paperworks.core.errors import UserError
from paperworks.core.tracking import scope

PAPER_SPEED = ">= 2x throughput over the DLM and a new accuracy-speed Pareto frontier (Dream-Coder-7B + ~0.6B AR head)"
PAPER_STRUCT = "independent sampling of parallel marginals breaks multi-token structure; the AR head keeps it"


@dataclass
class CodilaReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    train_examples: int = 20000
    """Generated training sequences (half arithmetic)."""
    dim: int = 96
    """DLM and AR-baseline width."""
    layers: int = 3
    """DLM and AR-baseline depth."""
    head_dim: int = 64
    """Head width."""
    head_layers: int = 2
    """Head depth."""
    dlm_steps: int = 1600
    """DLM optimiser steps."""
    causal_share: float = 0.5
    """Share of DLM training sequences masked as ``clean prefix, masked rest`` instead of at a uniform
    noise level (see :func:`.model.diffusion_loss`); the same DLM serves every decoder."""
    ar_steps: int = 600
    """AR-baseline optimiser steps (next-token training converges in fewer steps than diffusion)."""
    head_steps: int = 600
    """Head optimiser steps."""
    batch: int = 64
    """Sequences per optimiser step."""
    lr: float = 3e-3
    """Peak learning rate of every run."""
    ks: tuple[int, ...] = (1, 2, 4, 8)
    """Tokens per DLM step (and CoDiLA block sizes)."""
    eval_code: int = 256
    """Programs generated per decoder (prompt: ``<c>`` only)."""
    eval_arith: int = 256
    """Arithmetic prompts per decoder."""
    code_temperature: float = 1.0
    """Sampling temperature for programs (sampling, so that the programs differ)."""
    arith_temperature: float = 0.0
    """Arithmetic: greedy."""
    seed: int = 0
    """Seed of the data, the weights and the sampling (evaluation data: ``seed + 1000``)."""
    threads: int = 1
    """torch CPU threads (1: the cores are shared)."""
    clock: str = "cpu"
    """Throughput behind the Pareto plot and the speed ratios: ``"cpu"`` (generated tokens per second of
    process CPU time, one thread: steady on a shared machine, where wall time swings with the other jobs) or
    ``"wall"``; both are recorded for every setting."""

    def __post_init__(self) -> None:
        if self.clock not in ("cpu", "wall"):
            raise UserError(f"clock must be 'cpu' or 'wall', got {self.clock!r}")
        if not self.ks or min(self.ks) < 1:
            raise UserError(f"ks must be tokens-per-step values >= 1, got {self.ks}")


def preset(quick: bool) -> CodilaReproConfig:
    """Default (about 5 CPU minutes on one thread) or ``quick`` (about a minute)."""
    if quick:
        return CodilaReproConfig(train_examples=4000, dlm_steps=250, ar_steps=100, head_steps=100, eval_code=64,
                                 eval_arith=64)
    return CodilaReproConfig()


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment into ``out``; see the module docstring."""
    return run_config(out, preset(quick), progress)


def run_config(out: Path, cfg: CodilaReproConfig, progress: Progress = no_progress) -> ReproResult:
    """Run the experiment with explicit sizes."""
    return with_torch_threads(cfg.threads, lambda: _run(out, cfg, progress))


def eval_sets(cfg: CodilaReproConfig) -> tuple[list[Example], list[Example]]:
    """Held-out prompts: ``<c>`` alone (code), and fresh arithmetic expressions (seed ``seed + 1000``)."""
    code = [Example(encode([CODE] + [PAD] * (SEQ_LEN - 1)), 1, SEQ_LEN, "code") for _ in range(cfg.eval_code)]
    rng = random.Random(cfg.seed + 1000)
    return code, [arith_example(*random_arith(rng)) for _ in range(cfg.eval_arith)]


def _run(out: Path, cfg: CodilaReproConfig, progress: Progress) -> ReproResult:
    out.mkdir(parents=True, exist_ok=True)
    res = ReproResult(name="codila", config=asdict(cfg))
    data = make_dataset(cfg.train_examples, cfg.seed)
    torch.manual_seed(cfg.seed)
    dlm = TinyTransformer(NetConfig(len(VOCAB), SEQ_LEN, cfg.dim, cfg.layers))
    torch.manual_seed(cfg.seed + 1)
    ar = TinyTransformer(NetConfig(len(VOCAB), SEQ_LEN, cfg.dim, cfg.layers, causal=True))
    torch.manual_seed(cfg.seed + 2)
    head = LocalARHead(HeadConfig(len(VOCAB), max(cfg.ks), cfg.head_dim, cfg.head_layers))
    tc = {name: TrainConfig(steps=s, batch=cfg.batch, lr=cfg.lr, seed=cfg.seed)
          for name, s in (("DLM", cfg.dlm_steps), ("AR", cfg.ar_steps), ("head", cfg.head_steps))}
    progress(f"training the DLM ({cfg.dlm_steps} steps, {n_params(dlm)} parameters)")
    curves, secs = {}, {}
    with scope("DLM"):
        curves["DLM"], secs["DLM"] = timed(lambda: train_dlm(dlm, data, tc["DLM"], MASK_ID, cfg.causal_share))
    progress(f"training the AR baseline ({cfg.ar_steps} steps)")
    with scope("AR"):
        curves["AR"], secs["AR"] = timed(lambda: train_ar(ar, data, tc["AR"]))
    progress(f"training the CoDiLA head ({cfg.head_steps} steps, {n_params(head)} parameters)")
    with scope("head"):
        curves["head"], secs["head"] = timed(lambda: train_head(head, dlm, data, tc["head"], MASK_ID))
    code, arith = eval_sets(cfg)
    scores: dict[str, dict[int, tuple[Score, Score]]] = {}

    def both(label: str, k: int, make: Callable[[float], Decoder]) -> None:
        progress(f"decoding: {label}, k={k}")
        scores.setdefault(label, {})[k] = (evaluate(make(cfg.code_temperature), code, cfg.seed + 7),
                                           evaluate(make(cfg.arith_temperature), arith, cfg.seed + 7))

    both("AR", 1, partial(_ar, ar))
    for k in cfg.ks:
        both("DLM (confidence)", k, partial(_dlm, dlm, k, order="confidence"))
        both("DLM (blocks)", k, partial(_dlm, dlm, k, order="blocks"))
        both("CoDiLA", k, partial(_codila, dlm, head, k))
    points = {label: {k: {"valid": c.valid, "tokens_per_s": c.tokens_per_s,
                          "tokens_per_cpu_s": c.tokens_per_cpu_s, "acc": a.correct,
                          "arith_valid": a.valid, "code_steps": c.steps, "arith_steps": a.steps}
                      for k, (c, a) in by_k.items()} for label, by_k in scores.items()}
    plot_pareto(points, out / "pareto.png", "tokens_per_cpu_s" if cfg.clock == "cpu" else "tokens_per_s",
                f"toy code language, {n_params(dlm) // 1000}k-param DLM + {n_params(head) // 1000}k head, "
                f"{cfg.eval_code} programs per point")
    plot_training(curves, out / "training.png", {k: v.log_every for k, v in tc.items()})
    res.plots += ["pareto.png", "training.png"]
    _figures(res, cfg, points, curves, secs, n_params(dlm), n_params(head))
    res.extra.update({"points": {lb: {str(k): v for k, v in row.items()} for lb, row in points.items()},
                      "train_loss": curves, "train_wall_s": secs})
    return res


def frontier(pts: dict[str, dict[int, dict[str, float]]], speed: str) -> list[str]:
    """``"decoder k=K"`` for each setting on the Pareto frontier of code validity against ``speed``."""
    every = [(f"{lb} k={k}", p[speed], p["valid"]) for lb, by_k in pts.items() for k, p in by_k.items()]
    front = set(pareto_front([(s, v) for _, s, v in every]))
    return [name for name, s, v in every if (s, v) in front]


def matched_speedup(pts: dict[str, dict[int, dict[str, float]]], speed: str) -> tuple[float, int, str] | None:
    """The largest ratio, over CoDiLA's settings, of its ``speed`` to that of the fastest DLM setting (either
    order, any ``k``) with at least its code validity: ``(ratio, CoDiLA's k, the DLM setting)``; ``None`` when
    no DLM setting is as valid as any CoDiLA setting."""
    dlm_pts = [(p[speed], p["valid"], f"{lb} k={k}") for lb in ("DLM (confidence)", "DLM (blocks)")
               for k, p in pts[lb].items()]
    out = []
    for k, p in pts["CoDiLA"].items():
        rivals = [(s, name) for s, v, name in dlm_pts if v >= p["valid"]]
        if rivals:
            s, name = max(rivals)
            out.append((p[speed] / s, k, name))
    return max(out) if out else None


def _ar(ar: TinyTransformer, t: float) -> Decoder:
    return lambda ids, s, e, g: ar_decode(ar, ids, s, e, g, MASK_ID, t)


def _dlm(dlm: TinyTransformer, k: int, t: float, order: str) -> Decoder:
    return lambda ids, s, e, g: dlm_decode(dlm, ids, s, e, k, g, MASK_ID, t, order)


def _codila(dlm: TinyTransformer, head: LocalARHead, k: int, t: float) -> Decoder:
    return lambda ids, s, e, g: codila_decode(dlm, head, ids, s, e, k, g, MASK_ID, t)


def _figures(res: ReproResult, cfg: CodilaReproConfig, pts: dict[str, dict[int, dict[str, float]]],
             curves: dict[str, list[float]], secs: dict[str, float], dlm_params: int, head_params: int) -> None:
    f = res.figures
    n = f"{cfg.eval_code} programs sampled at T={cfg.code_temperature}"
    for label, by_k in pts.items():
        for k, p in by_k.items():
            f[f"code_valid[{label}, k={k}]"] = Figure(round(p["valid"], 4), paper=PAPER_STRUCT if (
                label == "CoDiLA" and k == max(cfg.ks)) else None,
                note=f"{n}; {p['code_steps']:.0f} steps per program")
            f[f"arith_acc[{label}, k={k}]"] = Figure(round(p["acc"], 4), note=(
                f"{cfg.eval_arith} fresh draws, greedy; {p['arith_steps']:.0f} steps for the 4-token answer slot; "
                f"well-formed answers {p['arith_valid']:.3f}; only 7000 distinct expressions exist, so most "
                "were also drawn for training: this measures fit more than generalisation"))
            f[f"tokens_per_s[{label}, k={k}]"] = Figure(
                round(p["tokens_per_s"], 1), unit="tokens/s",
                note=f"code decoding, batch 128, wall clock, 1 thread (per CPU second: {p['tokens_per_cpu_s']:.0f})")
    kmax = max(cfg.ks)
    cod, blk, conf = pts["CoDiLA"], pts["DLM (blocks)"], pts["DLM (confidence)"]
    f[f"codila_minus_dlm_blocks_valid[k={kmax}]"] = Figure(
        round(cod[kmax]["valid"] - blk[kmax]["valid"], 4), paper=PAPER_STRUCT,
        note="same DLM, same block order and steps; CoDiLA's head decodes each block instead of independent "
             "sampling; per k: " + ", ".join(f"k={k}: {cod[k]['valid'] - blk[k]['valid']:+.3f}" for k in cfg.ks))
    f[f"codila_minus_dlm_confidence_valid[k={kmax}]"] = Figure(
        round(cod[kmax]["valid"] - conf[kmax]["valid"], 4), paper=PAPER_STRUCT,
        note="against the stronger DLM unmasking order (most confident positions first)")
    sp = "tokens_per_cpu_s" if cfg.clock == "cpu" else "tokens_per_s"
    other, other_name = ("tokens_per_s", "wall clock") if cfg.clock == "cpu" else ("tokens_per_cpu_s", "CPU time")
    clock = "per CPU second (1 thread)" if cfg.clock == "cpu" else "per wall-clock second"
    best, best_o = matched_speedup(pts, sp), matched_speedup(pts, other)
    f["codila_speedup_at_matched_validity"] = Figure(
        round(best[0], 3) if best else None, unit="x", paper=PAPER_SPEED,
        note=(f"CoDiLA k={best[1]} tokens {clock} over the fastest DLM setting (either order, any k) whose "
              f"validity is at least as high ({best[2]})" if best else
              "no DLM setting reaches any CoDiLA point's validity")
        + (f"; by {other_name}: {best_o[0]:.3f}x (CoDiLA k={best_o[1]} vs {best_o[2]})" if best_o else "")
        + "; measured in the same run on this CPU")
    on = frontier(pts, sp)
    f["pareto_frontier"] = Figure(", ".join(on), paper=PAPER_SPEED,
                                  note=f"settings on the validity vs tokens {clock} Pareto frontier of all points; "
                                       f"by {other_name}: " + ", ".join(frontier(pts, other)))
    f["codila_points_on_frontier"] = Figure(sum(x.startswith("CoDiLA") for x in on), unit=f"of {len(cfg.ks)}",
                                            paper=PAPER_SPEED, note=f"CoDiLA settings not dominated ({clock})")
    f[f"throughput_codila_k{kmax}_over_ar"] = Figure(
        round(cod[kmax][sp] / pts["AR"][1][sp], 3), unit="x",
        note=f"tokens {clock}; by {other_name}: {cod[kmax][other] / pts['AR'][1][other]:.3f}x; same-size AR "
             "baseline without KV cache (it re-reads its prefix each step, the DLM the whole sequence)")
    f[f"head_overhead[k={kmax}]"] = Figure(
        round(blk[kmax][sp] / cod[kmax][sp], 3), unit="x",
        note=f"DLM (blocks) tokens {clock} over CoDiLA's at the same k: the cost of the head's sequential "
             f"steps; by {other_name}: {blk[kmax][other] / cod[kmax][other]:.3f}x")
    f["dlm_loss_first_last"] = Figure(f"{curves['DLM'][0]:.3f} -> {curves['DLM'][-1]:.3f}",
                                      note=f"masked-diffusion loss over {cfg.dlm_steps} steps, "
                                           f"{secs['DLM']:.0f} s wall")
    f["params"] = Figure(f"DLM {dlm_params}, AR {dlm_params}, head {head_params}",
                         paper="Dream-Coder-7B DLM, ~0.6B AR head")
