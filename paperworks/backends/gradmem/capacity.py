"""Seeds and the capacity diagnostic of ``paperworks repro gradmem``.

Capacity (exact match against the number of pairs) of the GradMem K = 2 writer against the memory size ``m``
and the number of meta-training steps: one writer per (``m``, reported seed) is meta-trained once up to the
largest step count and evaluated at every checkpoint on the way (the training data and curriculum do not
depend on the total number of steps, so the checkpoint at ``s`` steps is the writer trained for ``s`` steps).
The grid is set by the environment variable :data:`GRID_ENV` (else the preset), e.g.
``m=4,8,16,32;steps=100,300+m=8;steps=1000`` (every m at 100 and 300 steps, m = 8 also at 1000; ``off``: none).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from paperworks.backends._validate import BackendInputError
from paperworks.backends.gradmem.data import CharTokenizer, KVTaskConfig
from paperworks.backends.gradmem.maml import MetaTrainConfig, kv_exact_match, meta_train

GRID_ENV = "PAPERWORKS_GRADMEM_GRID"
"""Environment variable that sets the diagnostic grid: ``m=...;steps=...`` or ``off``."""


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample standard deviation / sqrt(n); 0 for one value)."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_se needs at least one value")
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def parse_grid(text: str) -> dict[int, tuple[int, ...]]:
    """A grid spec → ``{m: checkpoint steps}``. A spec is rectangles joined by ``+``, each
    ``m=4,8,...;steps=100,300,...``; an ``m`` in several rectangles gets the union of their steps.
    ``"m=4,8;steps=100,300+m=8;steps=1000"`` → ``{4: (100, 300), 8: (100, 300, 1000)}``; ``"off"`` → ``{}``."""
    if text.strip().lower() in ("off", "none", "0", ""):
        return {}
    grid: dict[int, set[int]] = {}
    for rect in text.split("+"):
        parts: dict[str, tuple[int, ...]] = {}
        for chunk in rect.split(";"):
            key, sep, vals = chunk.partition("=")
            key = key.strip()
            if not sep or key not in ("m", "steps"):
                raise BackendInputError(f"{GRID_ENV}: expected 'm=4,8,...;steps=100,300,...' rectangles joined "
                                        f"by '+', or 'off'; got {text!r}")
            try:
                nums = tuple(sorted({int(v) for v in vals.split(",") if v.strip()}))
            except ValueError:
                raise BackendInputError(f"{GRID_ENV}: {key} must be integers separated by commas, got {vals!r}") \
                    from None
            if not nums or nums[0] < 1:
                raise BackendInputError(f"{GRID_ENV}: {key} must list integers >= 1, got {vals!r}")
            parts[key] = nums
        if set(parts) != {"m", "steps"}:
            raise BackendInputError(f"{GRID_ENV}: each rectangle needs m=... and steps=..., got {rect!r}")
        for m in parts["m"]:
            grid.setdefault(m, set()).update(parts["steps"])
    return {m: tuple(sorted(steps)) for m, steps in sorted(grid.items())}


def grid_spec() -> str | None:
    """The value of :data:`GRID_ENV` (None when unset)."""
    return os.environ.get(GRID_ENV)


def train_with_checkpoints(writer: Any, tok: CharTokenizer, task: KVTaskConfig, train_cfg: MetaTrainConfig,
                           checkpoints: Sequence[int], eval_pairs: Sequence[int], eval_contexts: int,
                           eval_seed: int, at_checkpoint: Callable[[int], None] | None = None
                           ) -> tuple[list[dict[str, float]], dict[int, dict[int, float]], dict[int, float]]:
    """Meta-train ``writer`` for ``max(checkpoints)`` steps (``train_cfg.steps`` is ignored); at each checkpoint
    evaluate exact match on ``eval_pairs`` (held-out contexts from ``eval_seed``) and call ``at_checkpoint``.
    Returns (history, ``em[step][pairs]``, process CPU seconds of training up to each checkpoint)."""
    marks = sorted(set(checkpoints))
    em: dict[int, dict[int, float]] = {}
    cpu: dict[int, float] = {}
    spent = [0.0]
    start = [time.process_time()]

    def on_step(step: int, _loss: float, _exact: float) -> None:
        if step not in marks:
            return
        spent[0] += time.process_time() - start[0]
        cpu[step] = spent[0]
        writer.eval()
        em[step] = {n: kv_exact_match(writer, tok, task, n, eval_contexts, eval_seed) for n in eval_pairs}
        if at_checkpoint is not None:
            at_checkpoint(step)
        writer.train()
        start[0] = time.process_time()

    cfg = MetaTrainConfig(**{**train_cfg.__dict__, "steps": marks[-1]})
    history = meta_train(writer, tok, task, cfg, on_step=on_step)
    return history, em, cpu


def summarise(per_seed: dict[int, dict[int, float]]) -> tuple[dict[int, float], dict[int, float]]:
    """``per_seed[seed][pairs]`` → (mean over seeds per pairs, standard error per pairs)."""
    seeds = sorted(per_seed)
    pairs = sorted(per_seed[seeds[0]])
    stats = {n: mean_se([per_seed[s][n] for s in seeds]) for n in pairs}
    return {n: m for n, (m, _) in stats.items()}, {n: se for n, (_, se) in stats.items()}


def capacity(row: dict[int, float], threshold: float = 0.5) -> int:
    """The largest number of pairs whose exact match is at least ``threshold`` (0 when none)."""
    return max((n for n, v in row.items() if v >= threshold), default=0)
