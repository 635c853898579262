"""A policy-gradient trainer over any transformers causal LM: sample N responses per prompt, score them
with a reward function ``(prompt, response) -> float``, compute advantages with the chosen estimator,
and take a clipped-surrogate step (optionally with a k3 KL penalty to a reference policy).

One step: sample (no grad) → score → one no-grad pass for the old log-probabilities (and, for OTB, the
logit-gradient proxy from the same logits) → advantages → ``updates_per_batch`` optimiser updates over
micro-batches. Tokens are counted exactly: generated tokens (EOS included, padding excluded) and prompt
tokens, per step and cumulatively.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field

import torch
from torch import Tensor, nn

from paperworks.backends.otb.estimators import (
    ESTIMATORS,
    compute_advantages,
    logit_gradient_proxy,
    outcome_token_rewards,
    token_logprobs,
)
from paperworks.backends.otb.lora import apply_lora, lora_disabled
from paperworks.backends.otb.policy import TokenizerLike
from paperworks.backends.otb.rollout import Rollout, response_logits, sample_groups
from paperworks.core.seeding import seed_everything

RewardFn = Callable[[str, str], float]
"""A reward: ``(prompt, response) -> float``."""


@dataclass
class RLConfig:
    """Settings of :class:`PolicyGradientTrainer`."""

    estimator: str = "otb"
    """Advantage estimator: none, grpo, dr_grpo, rloo or otb."""
    group_size: int = 4
    """Responses sampled per prompt (N)."""
    prompts_per_step: int = 8
    """Prompts per training step."""
    max_new_tokens: int = 16
    """Longest response; longer ones are cut (and carry no EOS)."""
    temperature: float = 1.0
    """Sampling temperature; log-probabilities use the same temperature."""
    lr: float = 1e-3
    """AdamW learning rate (no weight decay)."""
    clip_eps: float = 0.2
    """PPO ratio clip range."""
    kl_coef: float = 0.0
    """Weight of the k3 KL estimate to the reference policy (0 disables it and skips the reference pass)."""
    updates_per_batch: int = 1
    """Optimiser updates per sampled batch (1 = on-policy, the ratio is 1)."""
    micro_batch_size: int = 64
    """Rows per forward/backward pass (gradients accumulate across micro-batches)."""
    lora_rank: int = 0
    """0 = full fine-tuning; otherwise the rank of PEFT LoRA adapters on ``lora_targets`` (needs ``peft``)."""
    lora_alpha: float = 16.0
    """LoRA scaling numerator (update scaled by alpha / rank)."""
    lora_targets: tuple[str, ...] = ("q_proj", "v_proj")
    """Attribute names of the linear layers that get adapters."""
    max_grad_norm: float = 1.0
    """Gradient clipping by global norm (0 disables it)."""
    otb_zero_tail: bool = False
    """OTB only: baseline 0 where a single response of the group is still running (verl's handle_zero_tail)."""
    loss_agg: str = "token-mean"
    """How token losses combine: token-mean (over all batch tokens) or seq-mean-token-mean."""
    seed: int = 0
    """Seeds prompt order and sampling."""


@dataclass
class StepStats:
    """What one step did and cost."""

    step: int
    reward_mean: float
    response_tokens: int
    """Tokens generated this step."""
    prompt_tokens: int
    tokens_total: int
    """Tokens generated since the trainer started (this step included)."""
    mean_response_len: float
    loss: float
    kl: float
    clip_frac: float
    time_s: dict[str, float] = field(default_factory=dict)
    """Wall time per phase: sample, score, old_pass, proxy (inside old_pass), advantage, update."""


class PolicyGradientTrainer:
    """Clipped policy-gradient RL with a pluggable advantage estimator."""

    def __init__(self, model: nn.Module, tokenizer: TokenizerLike, reward_fn: RewardFn, config: RLConfig,
                 ref_model: nn.Module | None = None) -> None:
        if config.estimator not in ESTIMATORS:
            raise ValueError(f"RLConfig.estimator: {config.estimator!r}; expected one of {', '.join(ESTIMATORS)}")
        if config.loss_agg not in ("token-mean", "seq-mean-token-mean"):
            raise ValueError(f"RLConfig.loss_agg: {config.loss_agg!r}; expected token-mean or seq-mean-token-mean")
        self.model, self.tokenizer, self.reward_fn, self.config = model, tokenizer, reward_fn, config
        seed_everything(config.seed)
        if config.lora_rank > 0:
            self.params = apply_lora(model, config.lora_rank, config.lora_alpha, config.lora_targets)
        else:
            self.params = [p for p in model.parameters() if p.requires_grad]
        self.ref_model = ref_model
        if config.kl_coef > 0 and ref_model is None and config.lora_rank == 0:
            self.ref_model = copy.deepcopy(model).requires_grad_(False)
        self.optimizer = torch.optim.AdamW(self.params, lr=config.lr, weight_decay=0.0)
        self.generator = torch.Generator(device=next(model.parameters()).device).manual_seed(config.seed)
        self.rng = random.Random(config.seed)
        self.steps_done = 0
        self.tokens_total = 0
        model.eval()

    def _reference(self) -> tuple[nn.Module, AbstractContextManager[None]]:
        """The reference policy and the context to run it in."""
        if self.ref_model is not None:
            return self.ref_model, nullcontext()
        return self.model, lora_disabled(self.model)

    def _chunks(self, b: int) -> list[slice]:
        size = max(1, self.config.micro_batch_size)
        return [slice(i, min(i + size, b)) for i in range(0, b, size)]

    @torch.no_grad()
    def _old_pass(self, ro: Rollout, times: dict[str, float]) -> tuple[Tensor, Tensor | None, Tensor | None]:
        """Old log-probs ``(B, T)``, the logit-gradient proxy (OTB only) and reference log-probs (KL only)."""
        cfg, tokens = self.config, ro.response_ids
        logps, proxies, refs = [], [], []
        for sl in self._chunks(tokens.shape[0]):
            logits = response_logits(self.model, ro.input_ids[sl], ro.attention_mask[sl], ro.prompt_len,
                                     cfg.temperature)
            logp, lse = token_logprobs(logits, tokens[sl])
            logps.append(logp)
            if cfg.estimator == "otb":
                t0 = time.perf_counter()
                proxies.append(logit_gradient_proxy(logits, tokens[sl], lse))
                times["proxy"] += time.perf_counter() - t0
            if cfg.kl_coef > 0:
                ref, ctx = self._reference()
                with ctx:
                    ref_logits = response_logits(ref, ro.input_ids[sl], ro.attention_mask[sl], ro.prompt_len,
                                                 cfg.temperature)
                refs.append(token_logprobs(ref_logits, tokens[sl])[0])
        return (torch.cat(logps), torch.cat(proxies) if proxies else None, torch.cat(refs) if refs else None)

    def step(self, prompts: list[str]) -> StepStats:
        """One RL step on ``prompts`` (each sampled ``group_size`` times)."""
        cfg = self.config
        times = dict.fromkeys(("sample", "score", "old_pass", "proxy", "advantage", "update"), 0.0)
        t0 = time.perf_counter()
        ro = sample_groups(self.model, self.tokenizer, prompts, cfg.group_size, cfg.max_new_tokens,
                           cfg.temperature, self.generator)
        t1 = time.perf_counter()
        scores = torch.tensor([float(self.reward_fn(p, r)) for p, r in zip(ro.prompts, ro.responses, strict=True)],
                              device=ro.response_mask.device)
        t2 = time.perf_counter()
        old_logp, proxy, ref_logp = self._old_pass(ro, times)
        t3 = time.perf_counter()
        mask = ro.response_mask.float()
        adv = compute_advantages(cfg.estimator, outcome_token_rewards(scores, mask), mask, ro.group_ids,
                                 proxy=proxy, zero_tail=cfg.otb_zero_tail)
        t4 = time.perf_counter()
        loss_v, kl_v, clip_v = self._update(ro, old_logp, ref_logp, adv, mask)
        t5 = time.perf_counter()
        times.update(sample=t1 - t0, score=t2 - t1, old_pass=t3 - t2, advantage=t4 - t3, update=t5 - t4)
        self.steps_done += 1
        self.tokens_total += ro.response_tokens
        return StepStats(step=self.steps_done, reward_mean=float(scores.mean()), response_tokens=ro.response_tokens,
                         prompt_tokens=ro.prompt_tokens, tokens_total=self.tokens_total,
                         mean_response_len=ro.response_tokens / len(ro.responses), loss=loss_v, kl=kl_v,
                         clip_frac=clip_v, time_s={k: round(v, 5) for k, v in times.items()})

    def _update(self, ro: Rollout, old_logp: Tensor, ref_logp: Tensor | None, adv: Tensor,
                mask: Tensor) -> tuple[float, float, float]:
        """``updates_per_batch`` clipped-surrogate updates; returns mean loss, KL and clip fraction."""
        cfg = self.config
        b = mask.shape[0]
        n_tok = mask.sum().clamp(min=1)
        seq_len = mask.sum(-1).clamp(min=1)
        loss_sum = kl_sum = clip_sum = 0.0
        for _ in range(cfg.updates_per_batch):
            self.optimizer.zero_grad(set_to_none=True)
            for sl in self._chunks(b):
                logits = response_logits(self.model, ro.input_ids[sl], ro.attention_mask[sl], ro.prompt_len,
                                         cfg.temperature)
                logp, _ = token_logprobs(logits, ro.response_ids[sl])
                ratio = torch.exp(logp - old_logp[sl])
                a, m = adv[sl], mask[sl]
                clipped = torch.clamp(ratio, 1 - cfg.clip_eps, 1 + cfg.clip_eps)
                tok_loss = -torch.minimum(ratio * a, clipped * a)
                if ref_logp is not None:
                    d = ref_logp[sl] - logp
                    kl = torch.exp(d) - d - 1
                    tok_loss = tok_loss + cfg.kl_coef * kl
                    kl_sum += float((kl.detach() * m).sum() / n_tok)
                if cfg.loss_agg == "token-mean":
                    loss = (tok_loss * m).sum() / n_tok
                else:
                    loss = ((tok_loss * m).sum(-1) / seq_len[sl]).sum() / b
                loss.backward()
                loss_sum += float(loss.detach())
                clip_sum += float((((ratio - clipped).abs() > 0).float() * m).sum().detach() / n_tok)
            if cfg.max_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
            self.optimizer.step()
        k = cfg.updates_per_batch
        return loss_sum / k, kl_sum / k, clip_sum / k

    def train(self, make_prompts: Callable[[random.Random, int], list[str]], steps: int,
              token_budget: int | None = None, on_step: Callable[[StepStats], None] | None = None) -> list[StepStats]:
        """Run up to ``steps`` steps (stopping once ``token_budget`` generated tokens are spent), drawing
        ``prompts_per_step`` prompts from ``make_prompts(rng, n)`` each step (a task's ``prompts`` fits)."""
        history: list[StepStats] = []
        for _ in range(steps):
            if token_budget is not None and self.tokens_total >= token_budget:
                break
            stats = self.step(make_prompts(self.rng, self.config.prompts_per_step))
            history.append(stats)
            if on_step is not None:
                on_step(stats)
        return history

    def config_dict(self) -> dict[str, object]:
        """The config as plain data (for results files)."""
        return asdict(self.config)
