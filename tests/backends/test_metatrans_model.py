"""MetaTrans: data generator, subtraction module, alignment terms, loader, training determinism, repro."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.metatrans.align import gaussian_mmd2, grad_reverse  # noqa: E402
from paperworks.backends.metatrans.data import ClipConfig, make_clips, trajectory  # noqa: E402
from paperworks.backends.metatrans.loader import load_split, resample  # noqa: E402
from paperworks.backends.metatrans.model import MetaTrans, MetaTransConfig  # noqa: E402
from paperworks.backends.metatrans.train import TrainConfig, accuracy, train_variant  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


def test_trajectories_and_domains() -> None:
    assert trajectory(0, 2.0, 1.0, 4).tolist() == [2, 3, 4, 5]
    assert trajectory(1, 0.0, 2.0, 4).tolist() == [6, 4, 2, 0]
    assert trajectory(2, 0.0, 1.0, 6).tolist() == [0, 1, 2, 2, 1, 0]
    assert trajectory(3, 0.0, 1.0, 6).tolist() == [2, 1, 0, 0, 1, 2]
    cfg = ClipConfig(spurious=0.8, noise=0.0, background_scale=0.0, target_shift=0.0)
    src = make_clips(2000, "source", cfg, 1)
    assert abs((src.bg == src.y).mean() - (0.8 + 0.2 / 4)) < 0.03  # 80% + a random pick hitting the class
    tgt = make_clips(2000, "target", cfg, 2)
    assert abs((tgt.bg == tgt.y).mean() - 0.25) < 0.03
    # no background and no noise: each frame's peak is the sprite; step between peaks = the speed
    peaks = src.x[src.y == 0].argmax(axis=2)
    assert np.all(np.diff(peaks, axis=1) == 1)
    peaks_t = tgt.x[tgt.y == 1].argmax(axis=2)
    assert np.all(np.diff(peaks_t, axis=1) == -2)
    with pytest.raises(UserError):
        make_clips(4, "target", ClipConfig(target_speed=5.0), 0)


def test_static_stream_is_frame_order_invariant_and_temporal_is_not() -> None:
    torch.manual_seed(0)
    for shared in (True, False):
        m = MetaTrans(MetaTransConfig(shared=shared))
        x = torch.randn(3, 8, 24)
        perm = torch.randperm(8)
        s, s_perm = m.static_estimate(x), m.static_estimate(x[:, perm])
        assert torch.allclose(s, s_perm, atol=1e-5)
        f, f_perm = m.features(x), m.features(x[:, perm])
        assert (f - f_perm).abs().max() > 1e-3  # the residual sees the order
    # the residual is the order-aware output minus the static estimate
    h, st = m.streams(x)
    assert st is not None and torch.allclose(m.features(x), h.mean(1) - st, atol=1e-6)


def test_shapes_and_gradients_reach_both_streams() -> None:
    torch.manual_seed(0)
    m = MetaTrans(MetaTransConfig(shared=False))
    logits = m(torch.randn(5, 8, 24))
    assert logits.shape == (5, 4)
    logits.logsumexp(1).sum().backward()
    assert m.static is not None
    for mod in (m.embed, m.temporal, m.static, m.head):
        assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in mod.parameters())
    assert m.pos.grad is not None and m.pos.grad[:8].abs().sum() > 0 and m.pos.grad[8:].abs().sum() == 0
    no_sub = MetaTrans(MetaTransConfig(subtract=False))
    assert no_sub.static is None
    with pytest.raises(ValueError):
        no_sub.static_estimate(torch.randn(1, 8, 24))


def test_mmd_against_hand_computed_value_and_grl() -> None:
    a = torch.tensor([[0.0], [1.0]])
    b = torch.tensor([[3.0]])
    # pairwise squared distances of [0, 1, 3]: mean over the 3x3 matrix = (2*(1 + 9 + 4)) / 9
    scale = 28.0 / 9.0
    k = lambda d2: float(np.exp(-d2 / (2 * scale)))  # noqa: E731
    expect = (2 * k(0) + 2 * k(1)) / 4 + k(0) - 2 * (k(9) + k(4)) / 2
    assert gaussian_mmd2(a, b, bandwidths=(1.0,)).item() == pytest.approx(expect, rel=1e-5)
    assert gaussian_mmd2(a, a.clone()).item() == pytest.approx(0.0, abs=1e-6)
    x = torch.ones(3, requires_grad=True)
    (grad_reverse(x, 0.5) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [-0.5, -1.0, -1.5]


def test_training_is_seeded_and_learns_source() -> None:
    torch.set_num_threads(1)
    cfg = ClipConfig()
    s, t = make_clips(64, "source", cfg, 1), make_clips(64, "target", cfg, 2)
    runs = [train_variant("MetaTrans", s.x, s.y, t.x, MetaTransConfig(), TrainConfig(steps=30, batch=16, seed=3))
            for _ in range(2)]
    assert [h["ce"] for h in runs[0][1]] == [h["ce"] for h in runs[1][1]]
    other = train_variant("MetaTrans", s.x, s.y, t.x, MetaTransConfig(), TrainConfig(steps=30, batch=16, seed=4))
    assert [h["ce"] for h in other[1]] != [h["ce"] for h in runs[0][1]]
    learner, hist = train_variant("MetaTrans w/o alignment", s.x, s.y, t.x, MetaTransConfig(),
                                  TrainConfig(steps=30, batch=16, seed=3))
    assert hist[-1]["ce"] < hist[0]["ce"] and accuracy(learner, s.x, s.y) > 0.8
    dann = train_variant("DANN", s.x, s.y, t.x, MetaTransConfig(), TrainConfig(steps=3, batch=8))[1]
    assert dann[0]["align"] == pytest.approx(np.log(2), abs=0.2)  # an untrained discriminator: BCE ~ log 2
    with pytest.raises(UserError):
        train_variant("nope", s.x, s.y, t.x, MetaTransConfig(), TrainConfig(steps=1))


def test_loader_reads_layout_and_rejects_bad_input(tmp_path: Path) -> None:
    rows = [("a", 0, 10), ("b", 2, 3)]
    for name, _, frames in rows:
        np.save(tmp_path / f"{name}.npy", np.arange(frames * 2, dtype=np.float64).reshape(frames, 2))
    with (tmp_path / "labels.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["clip", "label"])
        w.writerows([(n, y) for n, y, _ in rows])
    x, y, names = load_split(tmp_path, frames=4)
    assert x.shape == (2, 4, 2) and x.dtype == np.float32 and y.tolist() == [0, 2] and names == ["a", "b"]
    assert x[0, :, 0].tolist() == [0, 6, 12, 18]  # frames 0, 3, 6, 9 of 10
    assert resample(np.arange(3)[:, None], 5)[:, 0].tolist() == [0, 0, 1, 2, 2]
    (tmp_path / "labels.csv").write_text("clip,label\na,x\n")
    with pytest.raises(UserError, match="line 2"):
        load_split(tmp_path)
    (tmp_path / "labels.csv").write_text("clip,label\nmissing,1\n")
    with pytest.raises(UserError, match="not found"):
        load_split(tmp_path)
    (tmp_path / "labels.csv").write_text("name,y\n")
    with pytest.raises(UserError, match="header"):
        load_split(tmp_path)


@pytest.mark.slow
def test_repro_quick(tmp_path: Path) -> None:
    from paperworks.backends.repro import run_repro

    _, path = run_repro("metatrans", tmp_path, quick=True)
    data = json.loads(path.read_text())
    figs = data["figures"]
    for v in ("source-only", "DANN", "MetaTrans", "MetaTrans w/o subtraction", "MetaTrans w/o alignment"):
        assert 0.0 <= figs[f"target_acc[{v}]"]["value"] <= 100.0
        assert figs[f"target_acc[{v}]"]["paper"]
    assert "87.78" in figs["target_acc[MetaTrans]"]["paper"]
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
    assert data["elapsed_s"] < 90
