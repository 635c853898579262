"""``paperworks repro otb``: gradient variance per estimator, and reward against tokens for GRPO N=4,
OTB N=4 and GRPO N=32, on a tiny Llama policy warm-started (with noisy labels) on verifiable tasks.

Protocol. For each task a tiny policy is trained by :func:`sft_warm_start` on targets that are wrong half
the time, so it samples correct answers sometimes and wrong answers of varied lengths otherwise.
(a) :func:`gradient_variance` on that policy, all estimators on the same samples. (b) RL from that
policy: GRPO N=32 for ``steps_n32`` steps, the N=4 runs for ``n4_step_factor`` times as many steps
(about the same token budget at the default factor 8); every step the exact expected reward on held-out prompts
(probability of the correct answer, teacher-forced) is recorded against generated tokens. Token
savings = 1 − (tokens an N=4 run needs to first reach GRPO N=32's final reward) / (GRPO N=32's tokens).
"""

from __future__ import annotations

import copy
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from paperworks.backends.otb.plots import plot_reward_vs_tokens, plot_variance
from paperworks.backends.otb.policy import CharTokenizer, TokenizerLike, sft_warm_start, tiny_policy
from paperworks.backends.otb.tasks import ArithmeticTask, RepeatTask, VerifiableTask
from paperworks.backends.otb.trainer import PolicyGradientTrainer, RLConfig
from paperworks.backends.otb.variance import VarianceConfig, gradient_variance
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress
from paperworks.core.tracking import scope, track

RUNS: tuple[tuple[str, str, int], ...] = (("GRPO N=4", "grpo", 4), ("OTB N=4", "otb", 4), ("GRPO N=32", "grpo", 32))
"""(label, estimator, group size) of the training runs."""


@dataclass
class OTBReproConfig:
    """Sizes of the experiment (``quick`` and ``gpu`` presets in :func:`preset`)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3)
    """One training run per seed and setting; curves show the mean and min–max."""
    train_tasks: tuple[str, ...] = ("repeat", "arithmetic")
    """Tasks for the reward-vs-tokens runs."""
    variance_tasks: tuple[str, ...] = ("repeat", "arithmetic")
    """Tasks for the variance diagnostic."""
    hidden: int = 64
    """Tiny policy width."""
    layers: int = 2
    """Tiny policy depth."""
    sft_steps: int = 300
    """Warm-start steps."""
    sft_noise: float = 0.5
    """Fraction of warm-start targets that are wrong."""
    repeat_max_len: int = 12
    """Longest correct answer of the repeat task."""
    max_operand: int = 9
    """Largest operand of the arithmetic task."""
    max_new_tokens: int = 16
    """Longest response."""
    prompts_per_step: int = 8
    """Prompts per RL step."""
    steps_n32: int = 60
    """Steps of the N=32 runs."""
    n4_step_factor: int = 8
    """The N=4 runs take this many times more steps (same prompts per step; 8 = the same token budget)."""
    lr: float = 5e-4
    """RL learning rate (all runs)."""
    eval_prompts: int = 128
    """Held-out prompts for the expected reward."""
    eval_points: int = 50
    """Evaluations per run (evenly spaced in steps)."""
    variance_groups: int = 1024
    """Groups (of N=4) in the variance diagnostic."""


def preset(quick: bool, scale: str) -> OTBReproConfig:
    """Default (about 10 minutes on 2 CPU cores), ``quick`` (about a minute), or ``scale='gpu'``."""
    if quick:
        return OTBReproConfig(seeds=(0,), train_tasks=("repeat",), variance_tasks=("repeat",), sft_steps=120,
                              steps_n32=10, variance_groups=128, eval_prompts=64, lr=1e-3)
    if scale == "gpu":
        return OTBReproConfig(seeds=(0, 1, 2, 3, 4), hidden=256, layers=4, sft_steps=600, repeat_max_len=24,
                              max_new_tokens=28, steps_n32=150, variance_groups=4096, eval_prompts=512)
    return OTBReproConfig()


def make_task(name: str, cfg: OTBReproConfig) -> VerifiableTask:
    """The named task at the experiment's sizes."""
    return RepeatTask(max_len=cfg.repeat_max_len) if name == "repeat" else ArithmeticTask(max_operand=cfg.max_operand)


@torch.no_grad()
def expected_reward(model: nn.Module, tokenizer: TokenizerLike, task: VerifiableTask, prompts: list[str]) -> float:
    """Mean over ``prompts`` of P(correct answer then EOS), teacher-forced: the policy's exact expected
    reward at temperature 1 for these exact-match tasks."""
    eos = int(tokenizer.eos_token_id)
    rows = [(tokenizer.encode(p), tokenizer.encode(task.answer(p)) + [eos]) for p in prompts]
    width = max(len(p) + len(a) for p, a in rows)
    device = next(model.parameters()).device
    ids = torch.tensor([p + a + [eos] * (width - len(p) - len(a)) for p, a in rows], device=device)
    labels = torch.tensor([[-1] * len(p) + a + [-1] * (width - len(p) - len(a)) for p, a in rows],
                          device=device)[:, 1:]
    logp = torch.log_softmax(model(input_ids=ids).logits[:, :-1].float(), -1)
    tok = logp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1) * (labels >= 0)
    return float(tok.sum(-1).exp().mean())


def _train(base: nn.Module, tok: CharTokenizer, task: VerifiableTask, est: str, n: int, steps: int, seed: int,
           cfg: OTBReproConfig, eval_set: list[str]) -> dict[str, Any]:
    model = copy.deepcopy(base)
    rl = RLConfig(estimator=est, group_size=n, prompts_per_step=cfg.prompts_per_step, lr=cfg.lr,
                  max_new_tokens=cfg.max_new_tokens, seed=seed)
    trainer = PolicyGradientTrainer(model, tok, task, rl)
    tokens, rewards = [0], [expected_reward(model, tok, task, eval_set)]
    share: list[float] = []

    every = max(1, steps // cfg.eval_points)

    track("eval/expected_reward", rewards[0], 0)

    def record(s: Any) -> None:
        for key in ("reward_mean", "loss", "kl", "clip_frac"):
            track(f"train/{key}", getattr(s, key), s.step)
        if s.step % every == 0 or s.step == steps:
            tokens.append(s.tokens_total)
            rewards.append(expected_reward(model, tok, task, eval_set))
            track("eval/expected_reward", rewards[-1], s.step)
        step = sum(v for k, v in s.time_s.items() if k != "proxy")
        share.append((s.time_s["proxy"] + s.time_s["advantage"]) / max(step, 1e-9))

    trainer.train(task.prompts, steps, on_step=record)
    return {"tokens": tokens, "reward": rewards, "adv_share": sum(share) / max(len(share), 1)}


def _summarise(runs: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Mean/min/max over seeds at each step (token counts averaged)."""
    k = min(len(r["tokens"]) for r in runs)
    col = [[r["reward"][i] for r in runs] for i in range(k)]
    return {"tokens": [sum(r["tokens"][i] for r in runs) / len(runs) for i in range(k)],
            "mean": [sum(c) / len(c) for c in col], "lo": [min(c) for c in col], "hi": [max(c) for c in col]}


def _drawdown(rewards: list[float]) -> float:
    """Largest drop below the running maximum."""
    best, worst = float("-inf"), 0.0
    for r in rewards:
        best = max(best, r)
        worst = max(worst, best - r)
    return worst


def _tokens_to_reach(curve: dict[str, list[float]], target: float) -> float | None:
    for t, r in zip(curve["tokens"], curve["mean"], strict=True):
        if r >= target:
            return t
    return None


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment, write ``variance.png`` and ``reward_vs_tokens_<task>.png`` into ``out``
    (``progress`` hears of each stage)."""
    threads = torch.get_num_threads()
    if scale == "cpu":  # the tiny policy gains nothing from more threads, and they spin when cores are shared
        torch.set_num_threads(1)
    try:
        return _run(out, preset(quick, scale), scale, progress)
    finally:
        torch.set_num_threads(threads)


def _run(out: Path, cfg: OTBReproConfig, scale: str, progress: Progress) -> ReproResult:
    from paperworks.core.seeding import seed_everything

    out.mkdir(parents=True, exist_ok=True)
    device = "cuda" if scale == "gpu" and torch.cuda.is_available() else "cpu"
    tok = CharTokenizer()
    result = ReproResult(name="otb", config={**asdict(cfg), "device": device})
    bases: dict[str, nn.Module] = {}
    for name in dict.fromkeys(cfg.variance_tasks + cfg.train_tasks):
        progress(f"warm-starting the tiny policy on '{name}' ({cfg.sft_steps} steps, {cfg.sft_noise:.0%} wrong labels)")
        seed_everything(0)
        bases[name] = tiny_policy(tok.vocab_size, hidden=cfg.hidden, layers=cfg.layers, seed=0).to(device)
        sft_losses = sft_warm_start(bases[name], tok, make_task(name, cfg), steps=cfg.sft_steps, noise=cfg.sft_noise)
        for i, value in enumerate(sft_losses):
            track(f"{name}/sft/loss", value, i)
    claim_var = "OTB minimises gradient variance among baselines (no single ratio claimed); stabler training"
    variance: dict[str, dict[str, Any]] = {}
    for name in cfg.variance_tasks:
        task = make_task(name, cfg)
        progress(f"gradient variance on '{name}': {cfg.variance_groups} groups of 4, all estimators")
        vr = gradient_variance(bases[name], tok, task.prompts, task,
                               VarianceConfig(groups=cfg.variance_groups, max_new_tokens=cfg.max_new_tokens))
        variance[name] = asdict(vr)
        for est in ("none", "rloo", "dr_grpo", "otb"):
            blocks = vr.block_ratios["grpo"][est]
            for b, ratio in enumerate(blocks):
                track(f"{name}/variance/block_ratio_{est}_to_grpo", ratio, b)
            result.figures[f"var_ratio_{est}_to_grpo_{name}"] = Figure(
                round(vr.ratio_to["grpo"][est], 3), paper=claim_var if est == "otb" else None, unit="x",
                note=f"tr Cov ratio, N=4, {cfg.variance_groups} groups, {vr.tokens} tokens per estimator; "
                     f"blocks {min(blocks):.3f}-{max(blocks):.3f}")
        result.figures[f"var_ratio_otb_to_dr_grpo_{name}"] = Figure(
            round(vr.ratio_to["dr_grpo"]["otb"], 3), paper=claim_var, unit="x",
            note="same scale as OTB (GRPO's std division rescales its gradient); <1 means OTB is lower")
        result.figures[f"rel_var_otb_over_dr_grpo_{name}"] = Figure(
            round(vr.relative_variance["otb"] / vr.relative_variance["dr_grpo"], 3), unit="x",
            note="tr Cov / |mean gradient|^2, scale-free; OTB's mean gradient differs from Dr.GRPO's")
    plot_variance(variance, out / "variance.png")
    result.plots.append("variance.png")
    result.extra["variance"] = variance
    for name in cfg.train_tasks:
        task = make_task(name, cfg)
        eval_set = task.prompts(random.Random(10_000), cfg.eval_prompts)
        curves: dict[str, dict[str, list[float]]] = {}
        shares: dict[str, float] = {}
        drawdowns: dict[str, float] = {}
        for label, est, n in RUNS:
            steps = cfg.steps_n32 if n == 32 else cfg.steps_n32 * cfg.n4_step_factor
            progress(f"training {label} on '{name}': {len(cfg.seeds)} seeds x {steps} steps")
            runs: list[dict[str, Any]] = []
            for seed in cfg.seeds:
                with scope(f"{name}/{est}_n{n}/seed{seed}"):
                    runs.append(_train(bases[name], tok, task, est, n, steps, seed, cfg, eval_set))
            curves[label] = _summarise(runs)
            drawdowns[label] = sum(_drawdown(r["reward"]) for r in runs) / len(runs)
            shares[label] = sum(r["adv_share"] for r in runs) / len(runs)
        final32 = curves["GRPO N=32"]["mean"][-1]
        total32 = curves["GRPO N=32"]["tokens"][-1]
        for label in ("OTB N=4", "GRPO N=4"):
            for frac, suffix in ((1.0, ""), (0.95, "_95pct")):
                reach = _tokens_to_reach(curves[label], frac * final32)
                key = f"token_savings_{label.split()[0].lower()}_n4_vs_grpo_n32{suffix}_{name}"
                result.figures[key] = Figure(
                    None if reach is None else round(1 - reach / total32, 3),
                    paper=">0.65 (OTB N=4 matches GRPO N=32 with over 65% fewer tokens)" if "OTB" in label else None,
                    note=(f"tokens until the mean curve first reaches {frac:.0%} of GRPO N=32's final expected reward "
                          f"({frac * final32:.3f}): {'not reached' if reach is None else int(reach)} vs GRPO N=32's "
                          f"{int(total32)}; {len(cfg.seeds)} seeds"))
        for label in curves:
            result.figures[f"drawdown_{label.replace(' ', '_').replace('=', '').lower()}_{name}"] = Figure(
                round(drawdowns[label], 4), paper="OTB: stabler training" if label == "OTB N=4" else None,
                note="largest fall of expected reward below its running maximum, mean over seeds")
        for label in curves:
            result.figures[f"final_reward_{label.replace(' ', '_').replace('=', '').lower()}_{name}"] = Figure(
                round(curves[label]["mean"][-1], 3), note=f"after {int(curves[label]['tokens'][-1])} tokens")
        result.figures[f"otb_advantage_share_of_step_{name}"] = Figure(
            round(shares["OTB N=4"], 4), paper="negligible (forward-only proxy)", note=(
                f"proxy + advantage time / step time in the OTB N=4 runs; GRPO N=4: {shares['GRPO N=4']:.4f}"))
        plot_reward_vs_tokens(curves, out / f"reward_vs_tokens_{name}.png", final32,
                              f"(b) {name}: expected reward vs tokens", claim_tokens=0.35 * total32)
        result.plots.append(f"reward_vs_tokens_{name}.png")
        result.extra[f"curves_{name}"] = curves
    return result
