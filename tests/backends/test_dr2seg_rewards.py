"""DR2Seg scenes and rewards against hand-built scenes."""

from __future__ import annotations

import random

import pytest

from paperworks.backends.dr2seg.rewards import RewardWeights, iou, reward, segment_description, split
from paperworks.backends.dr2seg.scenes import Obj, Query, Scene, make_scene, minimal_description, resolve
from paperworks.core.errors import UserError

# red circle (large, 2x2 at 0,0), blue square small at (4,0), red triangle small at (6,0), blue circle small at (2,5)
OBJS = (Obj("red", "circle", "large", 0, 0), Obj("blue", "square", "small", 4, 0),
        Obj("red", "triangle", "small", 6, 0), Obj("blue", "circle", "small", 2, 5))


def scene() -> Scene:
    q = Query("right", "red", "circle")
    return Scene(OBJS, 8, q, resolve(OBJS, q) or 0)


def test_resolve_relations_and_superlatives() -> None:
    # centres x: 0.5, 4, 6, 2 -> right of the red circle (0.5) the nearest is the blue circle (2)
    assert resolve(OBJS, Query("right", "red", "circle")) == 3
    assert resolve(OBJS, Query("left", "red", "circle")) is None  # nothing left of it
    # triangle cy 0; the large circle (cy 0.5) and the blue circle (cy 5) are below: the nearer one wins
    assert resolve(OBJS, Query("below", "red", "triangle")) == 0
    assert resolve(OBJS, Query("rightmost", "red")) == 2
    assert resolve(OBJS, Query("topmost", "blue")) == 1
    # the square and the triangle (cy 0) are both 0.5 above the large circle (cy 0.5): a tie, no answer
    assert resolve(OBJS, Query("above", "red", "circle")) is None
    assert resolve(OBJS, Query("leftmost", "green")) is None  # fewer than two green objects


def test_iou_by_hand() -> None:
    a = frozenset({(0, 0), (0, 1), (1, 0), (1, 1)})
    assert iou(a, frozenset({(0, 0)})) == pytest.approx(0.25)
    assert iou(a, frozenset({(0, 0), (5, 5)})) == pytest.approx(1 / 5)
    assert iou(frozenset(), frozenset()) == 1.0
    assert iou(a, frozenset()) == 0.0


def test_segmenter_matches_mentioned_attributes_only() -> None:
    s = scene()
    assert segment_description(s, ["blue", "circle"]) == OBJS[3].cells()
    assert segment_description(s, ["think", "so", "small", "circle"]) == OBJS[3].cells()
    # naming the anchor's colour too spreads the mask over both circles: 4 + 1 cells
    both = segment_description(s, ["red", "blue", "circle"])
    assert both == OBJS[0].cells() | OBJS[3].cells() and len(both) == 5
    # no attribute at all -> every object
    assert len(segment_description(s, ["right", "think"])) == 4 + 1 + 1 + 1


def test_reward_terms_by_hand() -> None:
    # the worked example of the rewards module's docstring (max_words 9, weights 1, 1, 1)
    s = scene()
    w = RewardWeights(iou=1.0, self_contained=1.0, length=1.0)
    good = reward(s, ["blue", "circle", "@3"], w, max_words=9)
    assert (good.iou, good.self_contained, good.self_iou, good.n_words) == (1.0, 1.0, 1.0, 2)
    assert good.length == pytest.approx(1 - 2 / 9) and good.total == pytest.approx(2 + 7 / 9)
    # verbose: right pointer, but the description also names the red circle -> stage-2 IoU 1/5: the stage-2
    # answer is wrong, so no description self-reward and no length pay
    verbose = reward(s, ["think", "right", "red", "circle", "so", "blue", "circle", "@3"], w, 9)
    assert verbose.iou == 1.0 and verbose.self_iou == pytest.approx(1 / 5)
    assert verbose.self_contained == 0.0 and verbose.length == 0.0 and verbose.total == pytest.approx(1.0)
    # "circle" alone keeps both circles (IoU 1/5): wrong at the default threshold 1.0, right at 0.2
    short = reward(s, ["circle", "@3"], w, 9)
    assert (short.self_contained, short.length, short.total) == (0.0, 0.0, 1.0)
    loose = reward(s, ["circle", "@3"], RewardWeights(1.0, 1.0, 1.0, correct_iou=0.2), 9)
    assert loose.self_contained == 1.0 and loose.length == pytest.approx(8 / 9)
    assert loose.total == pytest.approx(2 + 8 / 9)
    # self-contained description but pointing at the large red circle: IoU 0 (disjoint); the self-rewards
    # judge the description, not the pointer
    wrong = reward(s, ["blue", "circle", "@0"], w, 9)
    assert wrong.iou == 0.0 and wrong.self_contained == 1.0 and wrong.total == pytest.approx(1 + 7 / 9)
    assert reward(s, ["blue", "circle", "@0"], RewardWeights(), 9).total == 0.0
    assert reward(s, ["blue", "circle"], w, 9).iou == 0.0  # no pointer
    assert split(["a", "@2", "b"]) == (["a"], 2)


def test_bad_weights_raise_user_error() -> None:
    with pytest.raises(UserError, match="self_contained"):
        RewardWeights(self_contained=-1.0)
    with pytest.raises(UserError, match="correct_iou"):
        RewardWeights(correct_iou=0.0)
    with pytest.raises(UserError, match="max_words"):
        reward(scene(), ["@3"], RewardWeights(), 0)
    with pytest.raises(UserError, match="max_objects"):
        make_scene(random.Random(0), max_objects=9)


def test_generated_scenes_have_unique_answers_and_descriptions() -> None:
    rng = random.Random(0)
    for _ in range(200):
        s = make_scene(rng)
        assert resolve(s.objects, s.query) == s.target
        cells = [c for o in s.objects for c in o.cells()]
        assert len(cells) == len(set(cells))  # no overlap
        assert all(0 <= x < 8 and 0 <= y < 8 for x, y in cells)
        d = minimal_description(s)
        assert segment_description(s, d) == s.objects[s.target].cells()
