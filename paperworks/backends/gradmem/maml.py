"""Meta-training of a memory writer on the key–value task, and its exact-match evaluation.

The outer loss is the cross-entropy of the target after ``[M_K; query]``, where ``M_K`` is the memory
the writer produced from the context. For :class:`~.memory.GradMem` the write keeps its ``K`` inner steps on
the graph (``second_order=True``: MAML with ``create_graph``; ``False``: first-order, the step gradients
treated as constants), so the outer gradient reaches ``M0`` — and the model, when it is trained too —
through the inner steps. For :class:`~.forward.ForwardWriter` the write is an ordinary forward pass and is
back-propagated through. :func:`lm_warm_start` trains the model as a plain LM on whole sequences (context,
query and target in one prompt) before any writer is meta-trained, the same start for every writer.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from paperworks.backends.gradmem.data import CharTokenizer, KVSample, KVTaskConfig, make_kv_batch, make_kv_sample
from paperworks.core.tracking import track


@dataclass
class MetaTrainConfig:
    """Outer-loop settings."""

    steps: int = 300
    """Outer optimiser steps."""
    batch: int = 16
    """Contexts per outer step (all with the same number of pairs)."""
    lr: float = 1e-3
    """AdamW learning rate of the outer loop."""
    pairs: tuple[int, ...] = (1, 2, 4, 8)
    """Numbers of pairs, one drawn per batch (see ``curriculum``)."""
    curriculum: str = "gated"
    """How ``pairs`` are drawn. ``gated``: start with ``pairs[0]`` only; unlock the next size once the
    training exact match of the newest size, averaged over its last ``gate_window`` batches, reaches
    ``gate_at``; half the batches are of the newest size, the rest uniform over the earlier ones.
    ``schedule``: unlock one more size every ``steps / len(pairs)`` steps, uniform over the unlocked.
    ``none``: uniform over all from the start."""
    gate_at: float = 0.6
    """Training exact match that unlocks the next size (``gated``)."""
    gate_window: int = 10
    """Batches of the newest size averaged for the gate."""
    second_order: bool = True
    """GradMem: differentiate through the inner gradients (``create_graph``); False = first-order MAML."""
    train_model: bool = True
    """Also train the model's weights (else only ``M0``)."""
    recon_weight: float = 0.0
    """Add this times the write's reconstruction loss (GradMem: its last inner step's; the forward writer:
    with ``recon_loss`` on) to the outer loss."""
    grad_clip: float = 1.0
    """Clip the outer gradient to this norm."""
    seed: int = 0
    """Seed of the training data."""


def kv_tensors(samples: Sequence[KVSample], tok: CharTokenizer,
               all_queries: bool = True) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(context ids ``(B, S)``, query ids ``(R, Q)``, target ids ``(R, T)``, row → context index ``(R,)``) of
    samples with equal context lengths. ``all_queries``: one read per pair of every context (reads are cheap
    next to writes, so every pair gives signal); else each sample's own query."""
    ctx = torch.tensor([tok.encode(s.context) for s in samples])
    rows = [(i, q, t) for i, s in enumerate(samples)
            for q, t in ((f"?!{k}:", f"{v}!") for k, v in s.pairs)] if all_queries else \
        [(i, s.query, s.target) for i, s in enumerate(samples)]
    qry = torch.tensor([tok.encode(q) for _, q, _ in rows])
    tgt = torch.tensor([tok.encode(t) for _, _, t in rows])
    return ctx, qry, tgt, torch.tensor([i for i, _, _ in rows])


def _params(writer: nn.Module, train_model: bool) -> list[nn.Parameter]:
    model_params = {id(p) for p in writer.model.parameters()}  # type: ignore[union-attr]
    return [p for p in writer.parameters() if train_model or id(p) not in model_params]


def outer_loss(writer: Any, ctx: Tensor, qry: Tensor, tgt: Tensor, owner: Tensor,
               cfg: MetaTrainConfig) -> tuple[Tensor, float, float]:
    """The meta-training loss of one batch (reads ``qry`` row ``r`` from the memory of context ``owner[r]``),
    its exact match and the write's largest inner gradient norm (0 for a forward writer)."""
    res = writer.write(ctx, create_graph=cfg.second_order, first_order_graph=not cfg.second_order)
    score = writer.score(res.memory[owner], qry, tgt)
    loss = score.loss.mean()
    if cfg.recon_weight and res.last_loss is not None:
        loss = loss + cfg.recon_weight * res.last_loss.mean()
    return loss, float(score.exact.float().mean()), max(res.grad_norms, default=0.0)


def meta_train(writer: Any, tok: CharTokenizer, task: KVTaskConfig, cfg: MetaTrainConfig,
               on_step: Callable[[int, float, float], None] | None = None) -> list[dict[str, float]]:
    """Meta-train ``writer`` (GradMem or ForwardWriter) in place; returns one row per step (``step, pairs,
    loss, exact, unlocked, inner_grad_norm, time_s``).

    ``on_step(step, loss, exact)`` is called after each step."""
    rng = random.Random(cfg.seed)
    opt = torch.optim.AdamW(_params(writer, cfg.train_model), lr=cfg.lr, weight_decay=0.0)
    writer.train()
    history: list[dict[str, float]] = []
    start = time.perf_counter()
    if cfg.curriculum not in ("gated", "schedule", "none"):
        raise ValueError(f"MetaTrainConfig.curriculum must be gated, schedule or none, got {cfg.curriculum!r}")
    unlocked = 1
    newest: list[float] = []
    for step in range(1, cfg.steps + 1):
        if cfg.curriculum == "gated":
            n = cfg.pairs[unlocked - 1] if unlocked == 1 or rng.random() < 0.5 else rng.choice(cfg.pairs[:unlocked - 1])
        else:
            unlocked = (step - 1) * len(cfg.pairs) // cfg.steps + 1 if cfg.curriculum == "schedule" else len(cfg.pairs)
            n = rng.choice(cfg.pairs[:unlocked])
        ctx, qry, tgt, owner = kv_tensors([make_kv_sample(rng, n, task) for _ in range(cfg.batch)], tok)
        loss, exact, gnorm = outer_loss(writer, ctx, qry, tgt, owner, cfg)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_([p for g in opt.param_groups for p in g["params"]], cfg.grad_clip)
        opt.step()
        history.append({"step": step, "pairs": n, "loss": float(loss.detach()), "exact": exact,
                        "unlocked": cfg.pairs[unlocked - 1], "inner_grad_norm": gnorm,
                        "time_s": time.perf_counter() - start})
        for key in ("loss", "exact", "unlocked", "inner_grad_norm"):
            track(f"meta_train/{key}", history[-1][key], step)
        if cfg.curriculum == "gated" and n == cfg.pairs[unlocked - 1]:
            newest.append(exact)
            window = newest[-cfg.gate_window:]
            if len(window) == cfg.gate_window and sum(window) / len(window) >= cfg.gate_at \
                    and unlocked < len(cfg.pairs):
                unlocked, newest = unlocked + 1, []
        if on_step is not None:
            on_step(step, float(loss.detach()), exact)
    writer.eval()
    return history


def lm_warm_start(model: nn.Module, tok: CharTokenizer, task: KVTaskConfig, steps: int, pairs: Sequence[int],
                  batch: int = 32, lr: float = 2e-3, seed: int = 0) -> list[float]:
    """Train ``model`` as a plain LM on ``context`` followed by every pair's query and target in a random
    order (loss on the next tokens after the context); returns the loss per step. Teaches the format and
    in-context retrieval; every writer then starts from it."""
    rng = random.Random(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    losses: list[float] = []
    for _ in range(steps):
        n = rng.choice(list(pairs))
        texts = []
        for _ in range(batch):
            s = make_kv_sample(rng, n, task)
            order = list(s.pairs)
            rng.shuffle(order)
            texts.append(s.context + "".join(f"?!{k}:{v}!" for k, v in order))
        ids = torch.tensor([tok.encode(t) for t in texts])
        start = len(texts[0]) - len(texts[0].split("|", 1)[1]) - 1  # predictions from '|' on
        logits = model(input_ids=ids[:, :-1]).logits[:, start:]
        loss = nn.functional.cross_entropy(logits.transpose(1, 2), ids[:, start + 1:])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
        track("lm_warm_start/loss", losses[-1], len(losses) - 1)
    model.eval()
    return losses


def kv_exact_match(writer: Any, tok: CharTokenizer, task: KVTaskConfig, n_pairs: int, n_samples: int,
                   seed: int, batch: int = 64, all_queries: bool = True, **write_options: Any) -> float:
    """Exact match of the targets (greedy, teacher-forced argmax) after writing each context and reading it
    with a query: every pair's when ``all_queries`` (the same expectation as one random query, less noise),
    else each sample's own. ``write_options`` go to ``writer.write`` (e.g. ``steps=5``)."""
    samples = make_kv_batch(seed, n_samples, n_pairs, task)
    hits = total = 0
    for i in range(0, n_samples, batch):
        ctx, qry, tgt, owner = kv_tensors(samples[i:i + batch], tok, all_queries)
        mem = writer.write(ctx, **write_options).memory
        with torch.no_grad():
            hits += int(writer.score(mem[owner], qry, tgt).exact.sum())
        total += len(owner)
    return hits / max(total, 1)


@torch.no_grad()
def in_context_exact_match(model: nn.Module, tok: CharTokenizer, task: KVTaskConfig, n_pairs: int,
                           n_samples: int, seed: int) -> float:
    """Exact match with the whole context in the prompt (no memory): the model's in-context ceiling."""
    samples = make_kv_batch(seed, n_samples, n_pairs, task)
    prompt = torch.tensor([tok.encode(s.context + s.query) for s in samples])
    tgt = torch.tensor([tok.encode(s.target) for s in samples])
    ids = torch.cat([prompt, tgt[:, :-1]], dim=1)
    logits = model(input_ids=ids).logits[:, prompt.shape[1] - 1:]
    return float((logits.argmax(-1) == tgt).all(1).float().mean())
