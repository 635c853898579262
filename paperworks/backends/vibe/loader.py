"""Real group-emotion features for users who have them (e.g. skeletons from a pose estimator, audio features
and tokenised captions extracted from GAF / VGAF clips).

Layout: one ``.npz`` file per split with arrays

- ``skeletons`` (groups, people, frames, joints, 2) float — joint coordinates per frame;
- ``audio`` (groups, frames, audio_dim) float;
- ``text`` (groups, tokens) int — token ids below the model's vocabulary size;
- ``background`` (groups, background_dim) float — a person-free scene feature (e.g. of the masked frame);
- ``y`` (groups,) int — emotion labels.

Missing ``bg`` texture ids are filled with -1 (unknown).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from paperworks.backends.vibe.data import Groups
from paperworks.core.errors import UserError

_NDIM = {"skeletons": 5, "audio": 3, "text": 2, "background": 2, "y": 1}


def load_groups(path: Path, vocab: int | None = None) -> Groups:
    """A :class:`~.data.Groups` split from an ``.npz`` file of the layout above."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: not found (expected an .npz with skeletons, audio, text, background, y)")
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise UserError(f"{path}: not a readable .npz file ({exc})") from None
    for key, ndim in _NDIM.items():
        if key not in arrays:
            raise UserError(f"{path}: missing array '{key}'")
        if arrays[key].ndim != ndim:
            raise UserError(f"{path}: '{key}' must have {ndim} dimensions, got shape {arrays[key].shape}")
    n = len(arrays["y"])
    if any(len(arrays[k]) != n for k in _NDIM):
        raise UserError(f"{path}: arrays disagree on the number of groups ({ {k: len(arrays[k]) for k in _NDIM} })")
    if arrays["skeletons"].shape[-1] != 2 or arrays["audio"].shape[1] != arrays["skeletons"].shape[2]:
        raise UserError(f"{path}: skeletons must end in 2 coordinates and share their frame count with audio")
    text = arrays["text"]
    if not np.issubdtype(text.dtype, np.integer) or text.min() < 0 or (vocab is not None and text.max() >= vocab):
        raise UserError(f"{path}: 'text' must hold integer token ids in [0, {vocab or 'vocab'})")
    return Groups(skeletons=arrays["skeletons"].astype(np.float32), audio=arrays["audio"].astype(np.float32),
                  text=text.astype(np.int64), background=arrays["background"].astype(np.float32),
                  y=arrays["y"].astype(np.int64), bg=arrays.get("bg", np.full(n, -1)).astype(np.int64))
