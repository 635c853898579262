"""Loader for ReasonSeg-style annotations (for users who have the real data), and its metrics.

ReasonSeg (LISA) ships one labelme-style JSON per image: ``text`` (a query or a list of them),
``is_sentence``, and ``shapes`` — polygons with ``label`` and ``points``. Following LISA's reader, a shape
labelled ``flag`` is skipped, one whose label contains ``ignore`` marks pixels left out of scoring, and
every other polygon is target. Images are not read here: the mask size comes from ``imageHeight`` /
``imageWidth`` in the JSON or from the caller.

gIoU is the mean of per-image IoUs; cIoU is cumulative intersection over cumulative union (both as the
paper reports them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperworks.core.errors import UserError


@dataclass
class ReasonSegSample:
    """One annotated image: its queries, the target mask and the ignore mask (both ``(H, W)`` bool)."""

    queries: list[str]
    is_sentence: bool
    target: np.ndarray
    ignore: np.ndarray


def _polygon_mask(points: list[list[float]], height: int, width: int) -> np.ndarray:
    from matplotlib.path import Path as MplPath

    ys, xs = np.mgrid[0:height, 0:width]
    centres = np.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], axis=1)
    return np.asarray(MplPath(points).contains_points(centres).reshape(height, width))


def load_reasonseg_json(path: Path, height: int | None = None, width: int | None = None) -> ReasonSegSample:
    """Read one annotation file; raises :class:`UserError` naming the file and field when it is malformed."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not a readable JSON annotation ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object")
    h = height or data.get("imageHeight")
    w = width or data.get("imageWidth")
    if not isinstance(h, int) or not isinstance(w, int) or h < 1 or w < 1:
        raise UserError(f"{path}: image size unknown (give height/width or imageHeight/imageWidth)")
    text = data.get("text")
    queries = [text] if isinstance(text, str) else text
    if not isinstance(queries, list) or not queries or not all(isinstance(q, str) for q in queries):
        raise UserError(f"{path}: field 'text' must be a string or a non-empty list of strings")
    shapes = data.get("shapes")
    if not isinstance(shapes, list):
        raise UserError(f"{path}: field 'shapes' must be a list")
    target = np.zeros((h, w), dtype=bool)
    ignore = np.zeros((h, w), dtype=bool)
    for k, shape in enumerate(shapes):
        label = str(shape.get("label", "")) if isinstance(shape, dict) else ""
        pts = shape.get("points") if isinstance(shape, dict) else None
        if label == "flag":
            continue
        if not isinstance(pts, list) or len(pts) < 3:
            raise UserError(f"{path}: shapes[{k}].points must list at least 3 [x, y] points")
        poly = _polygon_mask([[float(x), float(y)] for x, y in pts], h, w)
        if "ignore" in label.lower():
            ignore |= poly
        else:
            target |= poly
    return ReasonSegSample(queries, bool(data.get("is_sentence", False)), target & ~ignore, ignore)


def giou_ciou(preds: list[np.ndarray], samples: list[ReasonSegSample]) -> tuple[float, float]:
    """(gIoU, cIoU) of predicted boolean masks against the samples, ignore pixels excluded; an image whose
    prediction and target are both empty counts IoU 1 in gIoU."""
    if len(preds) != len(samples) or not preds:
        raise UserError(f"giou_ciou: {len(preds)} predictions for {len(samples)} samples")
    ious, inter_sum, union_sum = [], 0, 0
    for p, s in zip(preds, samples, strict=True):
        if p.shape != s.target.shape:
            raise UserError(f"giou_ciou: prediction shape {p.shape} != target shape {s.target.shape}")
        keep = ~s.ignore
        inter = int((p & s.target & keep).sum())
        union = int(((p | s.target) & keep).sum())
        ious.append(1.0 if union == 0 else inter / union)
        inter_sum, union_sum = inter_sum + inter, union_sum + union
    return float(np.mean(ious)), (1.0 if union_sum == 0 else inter_sum / union_sum)
