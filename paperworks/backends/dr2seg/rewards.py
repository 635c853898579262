"""Rewards of the two-stage rollout.

Stage 1: the policy reads the scene and the query and writes a description ending with a pointer ``@i``;
its mask is object ``i``'s (the MLLM's box handed to SAM). Stage 2: :func:`segment_description` reads the
scene and the description only (never the query) and returns a mask, the check that the description is
self-contained.

- ``iou`` — IoU of the stage-1 mask with the ground truth (the task reward the GRPO baseline uses).
- ``self`` — IoU of the stage-2 mask with the ground truth (self-containment; reconstructed: the paper
  verifies the description by segmenting from it in place of the query; comparing to the ground truth
  rather than to the stage-1 mask is our choice).
- ``len`` — brevity: ``1 − n_words / max_words``, paid only when the description is self-contained
  (stage-2 IoU is 1), so that an empty description never wins. Reconstructed: the paper's second
  self-reward targets redundant thinking; its exact form is not readable here.

The total is ``w_iou·iou + w_self·self + w_len·len`` (:class:`RewardWeights`).
"""

from __future__ import annotations

from dataclasses import dataclass

from paperworks.backends.dr2seg.scenes import COLOURS, SHAPES, SIZES, Scene, mask_of
from paperworks.core.errors import UserError

Mask = frozenset[tuple[int, int]]


def iou(a: Mask, b: Mask) -> float:
    """Intersection over union of two cell sets; two empty masks give 1.0."""
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union


def split(tokens: list[str]) -> tuple[list[str], int | None]:
    """Description words and the pointed object index (None when the sequence has no pointer, or when the
    pointer is malformed: ``@`` not followed by a non-negative integer, e.g. ``@-1`` or ``@x``)."""
    words: list[str] = []
    for t in tokens:
        if t.startswith("@"):
            digits = t[1:]
            return words, int(digits) if digits.isascii() and digits.isdigit() else None
        words.append(t)
    return words, None


def segment_description(scene: Scene, words: list[str]) -> Mask:
    """Stage-2 segmenter: the union of the masks of every object consistent with the description.

    For each attribute kind (colour, shape, size) the description mentions, an object must have one of
    the mentioned values; other words (relations, filler) carry no constraint. A description that names
    several objects' attributes, or none, matches several objects and its mask spreads over them."""
    keep = []
    for i, o in enumerate(scene.objects):
        ok = True
        for values, attr in ((COLOURS, o.colour), (SHAPES, o.shape), (SIZES, o.size)):
            said = {w for w in words if w in values}
            if said and attr not in said:
                ok = False
        if ok:
            keep.append(i)
    return mask_of(scene, keep)


@dataclass(frozen=True)
class RewardWeights:
    """Weights of the reward terms (0 switches a term off)."""

    iou: float = 1.0
    """Stage-1 mask IoU."""
    self_contained: float = 0.0
    """Stage-2 (description-only) mask IoU."""
    length: float = 0.0
    """Brevity of a self-contained description."""

    def __post_init__(self) -> None:
        for name in ("iou", "self_contained", "length"):
            v = getattr(self, name)
            if not 0 <= v < float("inf"):
                raise UserError(f"dr2seg reward weight '{name}' must be finite and >= 0, got {v}")


@dataclass(frozen=True)
class RewardParts:
    """The three terms and their weighted total, for one rollout."""

    iou: float
    self_contained: float
    length: float
    total: float
    n_words: int


def reward(scene: Scene, tokens: list[str], weights: RewardWeights, max_words: int) -> RewardParts:
    """Score one rollout (``tokens`` as written by the policy) against ``scene``'s target."""
    if max_words < 1:
        raise UserError(f"dr2seg: max_words must be >= 1, got {max_words}")
    gt = scene.objects[scene.target].cells()
    words, ptr = split(tokens)
    ok = ptr is not None and 0 <= ptr < len(scene.objects)  # a negative index must not pick the last object
    r_iou = iou(scene.objects[ptr].cells(), gt) if ok and ptr is not None else 0.0
    r_self = iou(segment_description(scene, words), gt)
    r_len = max(0.0, 1.0 - len(words) / max_words) if r_self == 1.0 else 0.0
    total = weights.iou * r_iou + weights.self_contained * r_self + weights.length * r_len
    return RewardParts(r_iou, r_self, r_len, total, len(words))
