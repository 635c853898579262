"""Rewards of the two-stage rollout, and how they stand against the authors' definitions.

Stage 1: the policy reads the scene and the query and writes a description ending with a pointer ``@i``;
its mask is object ``i``'s (the MLLM's box handed to SAM). Stage 2: :func:`segment_description` reads the
scene and the description only (never the query) and returns a mask, the check that the description is
self-contained.

Terms (each in [0, 1]):

- ``iou`` — IoU of the stage-1 mask with the ground truth (the task reward the GRPO baseline uses).
- ``self_contained`` — the description self-reward: 1 when the stage-2 answer, made from the description
  alone, is correct (its IoU with the ground truth is at least ``correct_iou``, 1.0 by default: the
  description singles out the target), else 0.
- ``length`` — the length self-reward: ``1 − n_words / max_words``, paid only when the description
  self-reward is (so that an empty or cut-down description never wins).

The total is ``w_iou·iou + w_self·self_contained + w_len·length`` (:class:`RewardWeights`).
``RewardParts.self_iou`` keeps the continuous stage-2 IoU as a metric (it is not a reward term).

Hand-worked example (the one the tests use). Scene: a large red circle at (0,0) (4 cells), a small blue
square, a small red triangle and a small blue circle; query "the object right of the red circle"; target:
the blue circle (1 cell). ``max_words = 9``, weights (1, 1, 1):

- ``blue circle @3``: iou 1, stage 2 keeps the blue circle only → self 1, length 1 − 2/9 = 7/9,
  total 2 + 7/9;
- ``think right red circle so blue circle @3``: iou 1; stage 2 keeps both circles (colour red or blue,
  shape circle): IoU 1/5 < 1 → self 0 and no length pay; total 1;
- ``circle @3``: iou 1; stage 2 keeps both circles → self 0, length 0, total 1 (with ``correct_iou`` 0.2
  the answer counts as correct: self 1, length 1 − 1/9, total 2 + 8/9);
- ``blue circle @0``: iou 0 (disjoint), self 1, length 7/9: total 1 + 7/9.

What the authors define, and what differs here. Their repository (github.com/harrylin-hyl/DR2Seg) could not
be read from this machine (no stored snapshot) and neither could the paper's method section; what follows is
from the authors' model card (huggingface.co/ylh22/DR2Seg) and the abstract, and :data:`DEFINITION_DIFFERENCES`
lists each difference with its reason (the repro writes it into results.json):

- the second pass is the same MLLM run on (image, description) in place of (image, query), giving its own
  reasoning and answer; the description self-reward is paid to the first pass when that second-pass answer
  is correct. Here the second pass is a fixed rule-based reader (no reasoning, no learning), and "correct"
  means the stage-2 mask reaches ``correct_iou`` against the ground truth;
- the length self-reward pushes the second-pass reasoning to be shorter than the first pass's. Here the
  second pass writes no reasoning, so the length reward is an absolute budget on the description words,
  gated on the description self-reward;
- the authors add both to GRPO's accuracy and format rewards (weights and thresholds not readable here);
  here there is no format reward (every rollout ends in one pointer by construction) and the weights are
  1 (IoU), 1 (self-containment) and 0.2 (length) in the repro, fixed before any of its seeds ran.
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
    """The description self-reward (stage-2 answer correct from the description alone)."""
    length: float = 0.0
    """The length self-reward (brevity of a self-contained description)."""
    correct_iou: float = 1.0
    """Stage-2 IoU with the ground truth at or above which the stage-2 answer counts as correct (in (0, 1])."""

    def __post_init__(self) -> None:
        for name in ("iou", "self_contained", "length"):
            v = getattr(self, name)
            if not 0 <= v < float("inf"):
                raise UserError(f"dr2seg reward weight '{name}' must be finite and >= 0, got {v}")
        if not 0 < self.correct_iou <= 1:
            raise UserError(f"dr2seg correct_iou must be in (0, 1], got {self.correct_iou}")


@dataclass(frozen=True)
class RewardParts:
    """The three terms and their weighted total, for one rollout, plus the stage-2 IoU and the length."""

    iou: float
    self_contained: float
    length: float
    total: float
    n_words: int
    self_iou: float
    """Stage-2 mask IoU with the ground truth (a metric; the reward term is ``self_contained``)."""


def reward(scene: Scene, tokens: list[str], weights: RewardWeights, max_words: int) -> RewardParts:
    """Score one rollout (``tokens`` as written by the policy) against ``scene``'s target."""
    if max_words < 1:
        raise UserError(f"dr2seg: max_words must be >= 1, got {max_words}")
    gt = scene.objects[scene.target].cells()
    words, ptr = split(tokens)
    ok = ptr is not None and 0 <= ptr < len(scene.objects)  # a negative index must not pick the last object
    r_iou = iou(scene.objects[ptr].cells(), gt) if ok and ptr is not None else 0.0
    s_iou = iou(segment_description(scene, words), gt)
    r_self = 1.0 if s_iou >= weights.correct_iou else 0.0
    r_len = max(0.0, 1.0 - len(words) / max_words) if r_self == 1.0 else 0.0
    total = weights.iou * r_iou + weights.self_contained * r_self + weights.length * r_len
    return RewardParts(r_iou, r_self, r_len, total, len(words), s_iou)


DEFINITION_DIFFERENCES: list[dict[str, str]] = [
    {"item": "source of the authors' definitions",
     "authors": "repository github.com/harrylin-hyl/DR2Seg and the paper's method section",
     "ours": "the authors' model card (huggingface.co/ylh22/DR2Seg) and abstract only",
     "reason": "the repository had no stored snapshot to read and the method section could not be retrieved "
               "here; exact formulas, weights and thresholds below are therefore not compared line by line"},
    {"item": "second pass",
     "authors": "the same MLLM, given (image, description) in place of (image, query), reasons again and answers "
                "with boxes and points handed to SAM",
     "ours": "a fixed rule-based reader (segment_description): the union of the objects consistent with the "
             "attribute words of the description",
     "reason": "the toy policy reads a structured query, not text, so it cannot be re-run on its own description; "
               "a fixed reader keeps the check that the description alone recovers the target"},
    {"item": "description self-reward",
     "authors": "paid to the first-pass description when the second-pass answer is correct",
     "ours": "1 when the stage-2 mask's IoU with the ground truth is >= correct_iou (1.0: exactly the target), "
             "else 0 (before this change: the continuous stage-2 IoU)",
     "reason": "made to match the authors' 'correct second-pass answer' gate; the threshold is 1.0 because the "
               "stage-2 answer here is a union of objects, and a union that also covers another object is not "
               "the right answer (the authors' IoU threshold for a correct box is not readable here)"},
    {"item": "length self-reward",
     "authors": "rewards second-pass reasoning that is shorter than the first pass's (a length comparison "
                "between the two passes of the same model)",
     "ours": "1 - n_words / max_words for the first-pass description, paid only when the description "
             "self-reward is",
     "reason": "the stage-2 reader writes no reasoning, so there is no second-pass length to compare with; an "
               "absolute budget gated on self-containment has the same optimum (the shortest description that "
               "still singles out the target) and cannot be won by an empty description"},
    {"item": "combination and weights",
     "authors": "self-rewards added to GRPO's accuracy and format rewards (weights not readable here)",
     "ours": "w_iou*iou + w_self*self + w_len*length with 1, 1, 0.2 in the repro; no format reward",
     "reason": "every rollout here ends in exactly one pointer by construction, so a format reward would be "
               "constant; 0.2 keeps the length term below one unit of IoU or self-containment, fixed before "
               "the reported seeds ran (nothing tuned on them)"},
    {"item": "accuracy reward",
     "authors": "IoU/L1-style rewards on the predicted boxes and points (Seg-Zero lineage)",
     "ours": "IoU of the pointed object's cells with the target's cells",
     "reason": "the toy answer is a pointer to an object, not a box"},
]
"""Each difference between the authors' definitions and ours, with its reason (written into results.json)."""
