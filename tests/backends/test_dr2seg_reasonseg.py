"""The ReasonSeg annotation loader and gIoU/cIoU against hand-computed cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paperworks.backends.dr2seg.reasonseg import ReasonSegSample, giou_ciou, load_reasonseg_json
from paperworks.core.errors import UserError


def _write(tmp_path: Path, data: object) -> Path:
    p = tmp_path / "a.json"
    p.write_text(json.dumps(data))
    return p


def test_loader_rasterises_target_ignore_and_skips_flag(tmp_path: Path) -> None:
    data = {"text": ["what keeps you dry?"], "is_sentence": True, "imageHeight": 6, "imageWidth": 8,
            "shapes": [{"label": "target", "points": [[1, 1], [5, 1], [5, 4], [1, 4]]},  # 4 x 3 pixels
                       {"label": "ignore", "points": [[4, 1], [5, 1], [5, 4], [4, 4]]},  # its last column
                       {"label": "flag", "points": [[0, 0]]}]}
    s = load_reasonseg_json(_write(tmp_path, data))
    assert s.queries == ["what keeps you dry?"] and s.is_sentence
    assert s.target.shape == (6, 8) and int(s.target.sum()) == 9 and int(s.ignore.sum()) == 3
    assert s.target[1:4, 1:4].all() and not s.target[:, 4].any()


def test_giou_ciou_by_hand() -> None:
    t1 = np.zeros((2, 4), bool)
    t1[0, :2] = True  # 2 pixels
    t2 = np.zeros((2, 4), bool)
    t2[1, :] = True  # 4 pixels
    none = np.zeros((2, 4), bool)
    s1, s2 = ReasonSegSample(["a"], False, t1, none), ReasonSegSample(["b"], False, t2, none)
    p1 = np.zeros((2, 4), bool)
    p1[0, 0] = True  # IoU 1/2
    p2 = np.ones((2, 4), bool)  # IoU 4/8
    g, c = giou_ciou([p1, p2], [s1, s2])
    assert g == pytest.approx(0.5) and c == pytest.approx((1 + 4) / (2 + 8))
    p2b = t2.copy()  # IoU 1
    g, c = giou_ciou([p1, p2b], [s1, s2])
    assert g == pytest.approx(0.75) and c == pytest.approx(5 / 6)


def test_malformed_annotations_raise_user_error(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    with pytest.raises(UserError, match="b.json"):
        load_reasonseg_json(bad)
    with pytest.raises(UserError, match="image size"):
        load_reasonseg_json(_write(tmp_path, {"text": "x", "shapes": []}))
    with pytest.raises(UserError, match="'text'"):
        load_reasonseg_json(_write(tmp_path, {"text": 3, "shapes": []}), 4, 4)
    with pytest.raises(UserError, match=r"shapes\[0\]"):
        load_reasonseg_json(_write(tmp_path, {"text": "x", "shapes": [{"label": "t", "points": [[0, 0]]}]}), 4, 4)
