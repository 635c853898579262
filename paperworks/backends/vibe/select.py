"""Choice of VIBE's constraint weight on validation seeds that the reported figures never use.

Every seed ``s`` (reported or validation) owns its data: training groups drawn with seed ``100 s + 1``, the
``in`` test with ``100 s + 2`` and the shortcut-broken ``out`` split with ``100 s + 3`` (:func:`data_seeds`),
and its network and batches use ``s``. For each validation seed and each weight of the grid, VIBE is trained on
that seed's training groups and scored on that seed's own shortcut-broken split; the weight with the highest
mean accuracy wins (ties: the first in the grid). The selection is refused when a validation seed is also a
reported seed, so the reported rows are measured on data and initialisations the choice never saw.

The criterion needs shortcut-broken validation groups, which a generator provides; with real data it would
need a held-out set whose scenes do not match the emotion.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from paperworks.backends.repro import Progress, no_progress
from paperworks.backends.vibe.data import GroupConfig, make_groups
from paperworks.backends.vibe.model import VIBEConfig
from paperworks.backends.vibe.train import VIBETrainConfig, accuracy, train_variant
from paperworks.core.errors import UserError


def data_seeds(seed: int) -> dict[str, int]:
    """The generator seeds of seed ``seed``'s training groups and its two test splits."""
    return {"train": 100 * seed + 1, "in": 100 * seed + 2, "out": 100 * seed + 3}


def select_constraint_weight(validation_seeds: tuple[int, ...], grid: tuple[float, ...],
                             reported_seeds: tuple[int, ...], groups: GroupConfig, model: VIBEConfig,
                             train: VIBETrainConfig, n_train: int, n_val: int, progress: Progress = no_progress,
                             ) -> tuple[float, dict[str, list[float]]]:
    """The grid's weight with the best mean shortcut-broken accuracy of VIBE over ``validation_seeds``, and
    every ``{weight: [accuracy per validation seed]}``; see the module docstring."""
    if not validation_seeds or not grid:
        raise UserError("vibe: the constraint-weight selection needs at least one validation seed and one weight")
    shared = sorted(set(validation_seeds) & set(reported_seeds))
    if shared:
        raise UserError(f"vibe: validation seeds {shared} are also reported seeds; choose disjoint seeds")
    if any(w < 0 for w in grid):
        raise UserError(f"vibe: constraint weights must be >= 0, got {list(grid)}")
    table: dict[str, list[float]] = {str(w): [] for w in grid}
    for seed in validation_seeds:
        ds = data_seeds(seed)
        tr = make_groups(n_train, "train", groups, ds["train"])
        val = make_groups(n_val, "out", groups, ds["out"])
        for w in grid:
            progress(f"validation seed {seed}: VIBE with constraint weight {w}")
            net, _ = train_variant("VIBE", tr, model, replace(train, seed=seed, constraint_weight=w))
            table[str(w)].append(accuracy(net, val))
    means = [float(np.mean(table[str(w)])) for w in grid]
    return grid[int(np.argmax(means))], table
