"""VIBE: synchrony against hand-computed cases, data rules, attention modulation, the background constraint,
gradients, seeded training, the loader and the quick repro."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.vibe.data import FILLERS, GroupConfig, kuramoto, make_groups  # noqa: E402
from paperworks.backends.vibe.loader import load_groups  # noqa: E402
from paperworks.backends.vibe.model import VIBE, VIBEConfig, background_penalty  # noqa: E402
from paperworks.backends.vibe.sync import hilbert_phase, phase_locking  # noqa: E402
from paperworks.backends.vibe.train import VIBETrainConfig, accuracy, train_variant  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


def test_phase_and_plv_hand_computed() -> None:
    n = 64
    t = torch.arange(n, dtype=torch.float64)
    w3, w5 = 2 * math.pi * 3 / n, 2 * math.pi * 5 / n  # whole cycles: the Hilbert transform is exact
    x = torch.stack([torch.cos(w3 * t), torch.cos(w3 * t + 1.0), torch.cos(w5 * t)])
    phi = hilbert_phase(x)
    expect = torch.remainder(w3 * t + math.pi, 2 * math.pi) - math.pi
    assert torch.allclose(torch.remainder(phi[0] - expect + math.pi, 2 * math.pi) - math.pi,
                          torch.zeros(n, dtype=torch.float64), atol=1e-9)
    plv = phase_locking(x)
    # same tone shifted by 1 rad: |mean exp(-i)| = 1; 3 vs 5 cycles: mean of exp(-i 2 pi 2 t / n) over t = 0
    assert plv[0, 1].item() == pytest.approx(1.0, abs=1e-9)
    assert plv[0, 2].item() == pytest.approx(0.0, abs=1e-9)
    assert torch.allclose(plv.diagonal(), torch.ones(3, dtype=torch.float64))
    # phase differences 0 for the first half of frames, pi/2 for the second: |(1 + i) / 2| = 1 / sqrt(2)
    a = torch.cos(w3 * t)
    b = torch.where(t < n // 2, torch.cos(w3 * t), torch.cos(w3 * t - math.pi / 2))
    assert phase_locking(torch.stack([a, b]))[0, 1].item() == pytest.approx(1 / math.sqrt(2), abs=0.05)


def test_phase_matches_scipy_hilbert() -> None:
    signal = pytest.importorskip("scipy.signal")
    x = np.random.default_rng(0).normal(size=(3, 37))
    ours = hilbert_phase(torch.from_numpy(x)).numpy()
    assert np.allclose(ours, np.angle(signal.hilbert(x, axis=-1)), atol=1e-9)


def test_kuramoto_and_group_rules() -> None:
    rng = np.random.default_rng(0)
    omega = np.array([1.0, 2.0, 3.0])
    phi = kuramoto(omega, 0.0, 200, 0.1, rng)
    assert np.allclose(np.diff(phi, axis=1).mean(axis=1), omega * 0.1, atol=0.005)
    locked = kuramoto(np.array([1.0, 1.2, 0.9]), 10.0, 200, 0.1, rng)
    assert np.ptp(np.angle(np.exp(1j * (locked[:, -1] - locked[0, -1])))) < 0.2
    cfg = GroupConfig(spurious=0.8)
    g = make_groups(2000, "in", cfg, 1)
    assert abs((g.bg == g.y).mean() - (0.8 + 0.2 / 4)) < 0.03
    assert not np.any(make_groups(400, "out", cfg, 2).bg == make_groups(400, "out", cfg, 2).y)
    assert g.skeletons.shape == (2000, 5, 40, 5, 2) and g.text.max() < FILLERS + 4
    cues = (g.text >= FILLERS)
    assert np.all(g.text[cues] - FILLERS == np.broadcast_to(g.y[:, None], g.text.shape)[cues])
    with pytest.raises(UserError):
        make_groups(4, "test", cfg, 0)


def test_attention_modulation_and_gradients() -> None:
    torch.manual_seed(0)
    g = make_groups(6, "train", GroupConfig(), 3)
    args = [torch.from_numpy(a) for a in (g.skeletons, g.audio, g.text, g.background)]
    m = VIBE(VIBEConfig(sync_modulation=False))
    tok = torch.randn(6, 5, 32)
    plv = torch.rand(6, 5, 5)
    att = m.attention(tok, plv)
    assert torch.allclose(att.sum(-1), torch.ones(6, 5)) and att.diagonal(dim1=1, dim2=2).abs().max() == 0
    m.cfg.sync_modulation = True
    assert torch.allclose(m.attention(tok, plv), att * plv)
    logits, mu, kl = m(*args)
    assert logits.shape == (6, 4) and mu.shape == (6, 32) and kl.item() > 0
    (logits.logsumexp(1).sum() + kl).backward()
    for mod in (m.person, m.q, m.k, m.v, m.scene, m.audio, m.words, m.to_text):
        assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in mod.parameters())


def test_background_penalty_values() -> None:
    y = torch.tensor([0, 0, 1, 1])
    b = torch.tensor([[1.0], [-1.0], [4.0], [0.0]])  # class means 0 and 2
    z_class = torch.tensor([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    assert background_penalty(z_class, b, y, 2).item() == pytest.approx(0.0, abs=1e-9)
    # b standardised: mean 1, sample std sqrt(14/3); centred within class: [1, -1, 2, -2] / sqrt(14/3).
    # z's first feature = class part + [1, -1, 2, -2] (class means stay +-1, between-class variance 1)
    z = z_class + torch.tensor([[1.0, 0.0], [-1.0, 0.0], [2.0, 0.0], [-2.0, 0.0]])
    cov = 10.0 / math.sqrt(14 / 3) / 4
    assert background_penalty(z, b, y, 2).item() == pytest.approx(cov ** 2 / 1.0, rel=1e-4)
    assert background_penalty(3 * z, b, y, 2).item() == pytest.approx(cov ** 2, rel=1e-4)  # scale-free


def test_training_is_seeded(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    g = make_groups(48, "train", GroupConfig(frames=16), 1)
    runs = [train_variant("VIBE", g, VIBEConfig(), VIBETrainConfig(steps=5, batch=16, seed=2))[1] for _ in range(2)]
    assert runs[0] == runs[1]
    other = train_variant("VIBE", g, VIBEConfig(), VIBETrainConfig(steps=5, batch=16, seed=3))[1]
    assert other != runs[0]
    with pytest.raises(UserError):
        train_variant("nope", g, VIBEConfig(), VIBETrainConfig(steps=1))


def test_loader_round_trip_and_errors(tmp_path: Path) -> None:
    g = make_groups(8, "train", GroupConfig(frames=16), 1)
    path = tmp_path / "split.npz"
    np.savez(path, skeletons=g.skeletons, audio=g.audio, text=g.text, background=g.background, y=g.y)
    back = load_groups(path, vocab=FILLERS + 4)
    assert np.array_equal(back.skeletons, g.skeletons) and np.array_equal(back.y, g.y)
    assert back.bg.tolist() == [-1] * 8
    m = VIBE(VIBEConfig())
    assert 0.0 <= accuracy(m, back) <= 1.0
    np.savez(path, skeletons=g.skeletons, audio=g.audio, text=g.text, background=g.background)
    with pytest.raises(UserError, match="missing array 'y'"):
        load_groups(path)
    np.savez(path, skeletons=g.skeletons, audio=g.audio, text=g.text + 100, background=g.background, y=g.y)
    with pytest.raises(UserError, match="token ids"):
        load_groups(path, vocab=FILLERS + 4)
    path.write_text("not a zip")
    with pytest.raises(UserError, match="readable"):
        load_groups(path)


@pytest.mark.slow
def test_repro_quick(tmp_path: Path) -> None:
    from paperworks.backends.repro import run_repro

    _, path = run_repro("vibe", tmp_path, quick=True)
    data = json.loads(path.read_text())
    figs = data["figures"]
    for v in ("VIBE", "VIBE w/o synchrony", "VIBE w/o constraint", "plain"):
        for split in ("in", "out"):
            assert 0.0 <= figs[f"acc_{split}[{v}]"]["value"] <= 100.0
    assert figs["acc_out[VIBE]"]["paper"]
    plv = data["extra"]["plv_by_emotion"]
    assert min(plv["calm"], plv["excited"]) > max(plv["tense"], plv["disengaged"])  # coupling sets synchrony
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
    assert data["elapsed_s"] < 600  # a hang guard; speed is a benchmark's job


@pytest.mark.slow
def test_constraint_weight_selection_never_sees_reported_seeds(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The repro chooses the constraint weight with data and initialisations of the validation seeds only: every
    generator seed and network seed the selection touches belongs to a validation seed, none to a reported one,
    and the reported variants are trained with the chosen weight."""
    from paperworks.backends.vibe import repro, select

    seen: dict[str, list[int]] = {"select_data": [], "select_init": [], "repro_data": [], "repro_weight": []}

    def groups_recorder(key: str):  # type: ignore[no-untyped-def]
        def record(n, split, cfg, seed):  # type: ignore[no-untyped-def]
            seen[key].append(seed)
            return make_groups(n, split, cfg, seed)
        return record

    def select_train(variant, train, model_cfg, cfg):  # type: ignore[no-untyped-def]
        seen["select_init"].append(cfg.seed)
        return train_variant(variant, train, model_cfg, cfg)

    def repro_train(variant, train, model_cfg, cfg):  # type: ignore[no-untyped-def]
        seen["repro_weight"].append(cfg.constraint_weight)
        return train_variant(variant, train, model_cfg, cfg)

    monkeypatch.setattr(select, "make_groups", groups_recorder("select_data"))
    monkeypatch.setattr(select, "train_variant", select_train)
    monkeypatch.setattr(repro, "make_groups", groups_recorder("repro_data"))
    monkeypatch.setattr(repro, "train_variant", repro_train)
    cfg = repro.VIBEReproConfig(train=VIBETrainConfig(steps=2, batch=8), n_train=16, n_test=16, seeds=(0, 1),
                                validation_seeds=(5,), constraint_grid=(1.0, 3.0), reference=())
    monkeypatch.setattr(repro, "_plv_by_emotion", lambda cfg: {"calm": 0.0})  # not under test here
    res = repro.with_torch_threads(1, lambda: repro._run(tmp_path, cfg, lambda text: None))
    assert sorted(seen["select_data"]) == [501, 503] and seen["select_init"] == [5, 5]
    reported_data = {100 * s + k for s in cfg.seeds for k in (1, 2, 3)}
    assert reported_data <= set(seen["repro_data"])
    assert not set(seen["select_data"]) & reported_data
    chosen = res.config["constraint_weight_selected"]
    assert chosen in (1.0, 3.0) and res.figures["constraint_weight_selected"].value == chosen
    assert set(seen["repro_weight"]) == {chosen}
    assert res.config["reported_seeds"] == [0, 1] and res.config["validation_seeds"] == [5]
    assert set(res.extra["validation_accuracy_out"]) == {"1.0", "3.0"}
    with pytest.raises(UserError, match="also reported"):
        select.select_constraint_weight((1, 5), (1.0,), (0, 1), cfg.groups, cfg.model, cfg.train, 16, 16)


def test_repro_parts_must_include_the_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.vibe import repro

    monkeypatch.setenv("PAPERWORKS_VIBE_PARTS", "table")  # reported rows without a clean weight choice
    with pytest.raises(UserError, match="PAPERWORKS_VIBE_PARTS"):
        repro.run(tmp_path, quick=True)
