"""Real (pre-extracted) video features for users who have them, e.g. UCF101 / HMDB51 frame features.

Layout of a split folder::

    <root>/labels.csv        header ``clip,label``; one row per clip, ``label`` an integer class id
    <root>/<clip>.npy        float array (frames, feature_dim) for that clip

Clips are resampled to ``frames`` frames (uniformly spaced indices, repeating frames of shorter clips), so a
split loads as one ``(clips, frames, feature_dim)`` array that :func:`~.train.train_variant` takes.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from paperworks.core.errors import UserError


def resample(x: np.ndarray, frames: int) -> np.ndarray:
    """``frames`` rows of ``x`` at uniformly spaced indices (first and last kept)."""
    idx = np.linspace(0, len(x) - 1, frames).round().astype(int)
    return x[idx]


def load_split(root: Path, frames: int = 8) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Features (clips, frames, dim) float32, labels (clips,) int64 and clip names from ``root``."""
    root = Path(root)
    csv_path = root / "labels.csv"
    if not csv_path.is_file():
        raise UserError(f"{csv_path}: not found (expected a labels.csv with columns clip,label)")
    if frames < 1:
        raise UserError(f"frames must be >= 1, got {frames}")
    with csv_path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"clip", "label"} <= set(reader.fieldnames):
            raise UserError(f"{csv_path}: header must name columns 'clip' and 'label', got {reader.fieldnames}")
        rows = list(reader)
    if not rows:
        raise UserError(f"{csv_path}: no clips listed")
    xs: list[np.ndarray] = []
    ys: list[int] = []
    names: list[str] = []
    dim: int | None = None
    for n, row in enumerate(rows, start=2):
        name, label = row["clip"], row["label"]
        try:
            y = int(label)
        except (TypeError, ValueError):
            raise UserError(f"{csv_path}, line {n}: label must be an integer, got {label!r}") from None
        path = root / f"{name}.npy"
        if not path.is_file():
            raise UserError(f"{csv_path}, line {n}: clip file {path} not found")
        try:
            arr = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise UserError(f"{path}: not a readable .npy array ({exc})") from None
        if arr.ndim != 2 or len(arr) == 0 or (dim is not None and arr.shape[1] != dim):
            raise UserError(f"{path}: expected shape (frames >= 1, {dim or 'dim'}), got {arr.shape}")
        dim = arr.shape[1]
        xs.append(resample(arr.astype(np.float32), frames))
        ys.append(y)
        names.append(name)
    return np.stack(xs), np.asarray(ys, dtype=np.int64), names
