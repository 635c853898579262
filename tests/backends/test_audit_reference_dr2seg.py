"""Audit: dr2seg's rewards against independent references (IoU on numpy grids, the reward total recomputed
from its definition), and hostile policy outputs: a negative or malformed pointer scores 0, never picks an
object by Python's negative indexing or crashes the reward."""

from __future__ import annotations

import random

import numpy as np
import pytest

from paperworks.backends.dr2seg.rewards import RewardWeights, iou, reward, split
from paperworks.backends.dr2seg.scenes import Obj, Query, Scene, resolve
from paperworks.core.errors import UserError

OBJS = (Obj("red", "circle", "large", 0, 0), Obj("blue", "square", "small", 4, 0),
        Obj("red", "triangle", "small", 6, 0), Obj("blue", "circle", "small", 2, 5))
Q = Query("right", "red", "circle")
SCENE = Scene(OBJS, 8, Q, resolve(OBJS, Q) or 0)  # target: the blue circle (index 3)


def test_iou_matches_numpy_grids() -> None:
    rng = random.Random(0)
    for _ in range(300):
        a = frozenset((rng.randrange(6), rng.randrange(6)) for _ in range(rng.randrange(0, 12)))
        b = frozenset((rng.randrange(6), rng.randrange(6)) for _ in range(rng.randrange(0, 12)))
        ga, gb = np.zeros((6, 6), bool), np.zeros((6, 6), bool)
        for x, y in a:
            ga[x, y] = True
        for x, y in b:
            gb[x, y] = True
        union = (ga | gb).sum()
        assert iou(a, b) == pytest.approx(1.0 if union == 0 else (ga & gb).sum() / union)
        assert iou(a, b) == iou(b, a)


@pytest.mark.parametrize("pointer", ["@-1", "@-4", "@x", "@", "@1.5", "@٣", "@99"])
def test_bad_pointer_scores_zero_and_does_not_crash(pointer: str) -> None:
    # "@-1" used to score the last object (the target here) as a perfect hit; "@x" raised a bare ValueError
    parts = reward(SCENE, ["blue", "circle", pointer], RewardWeights(), max_words=9)
    assert parts.iou == 0.0 and parts.total == 0.0


def test_reward_total_is_the_weighted_sum() -> None:
    rng = random.Random(1)
    vocab = ["red", "blue", "circle", "square", "triangle", "small", "large", "right", "think"]
    for _ in range(200):
        words = [rng.choice(vocab) for _ in range(rng.randrange(0, 6))]
        ptr = rng.randrange(0, 4)
        w = RewardWeights(rng.random(), rng.random(), rng.random())
        p = reward(SCENE, [*words, f"@{ptr}"], w, max_words=7)
        assert split([*words, f"@{ptr}"]) == (words, ptr)
        assert p.iou == iou(OBJS[ptr].cells(), OBJS[3].cells())
        assert p.self_contained == (1.0 if p.self_iou == 1.0 else 0.0)  # correct_iou 1.0: exactly the target
        assert p.length == (max(0.0, 1 - len(words) / 7) if p.self_contained == 1.0 else 0.0)
        assert p.total == pytest.approx(w.iou * p.iou + w.self_contained * p.self_contained + w.length * p.length)


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), -1.0])
def test_bad_weights_raise(bad: float) -> None:
    with pytest.raises(UserError, match="finite and >= 0"):
        RewardWeights(length=bad)
