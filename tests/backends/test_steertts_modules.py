"""AgentSteerTTS's torch modules and rules without the engine: fusion and surrogate shapes and gradients,
gradient reversal, the cross-covariance penalty's numbers, perceptual pruning, the cue mapping, the critic."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from paperworks.backends.steertts import cues
from paperworks.backends.steertts.critic import add_missing, critique
from paperworks.backends.steertts.disentangle import Disentangler, cross_covariance_penalty, grad_reverse
from paperworks.backends.steertts.fusion import GatedAttentionFusion
from paperworks.backends.steertts.index import PrototypeIndex
from paperworks.backends.steertts.library import PrototypeLibrary
from paperworks.backends.steertts.surrogate import Surrogate, ideal_profile
from paperworks.tools.speech import ControlVector
from paperworks.tools.speech.intent import Intent, intent_to_control


def _batch(b: int = 3, k: int = 5, seed: int = 0) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    target = torch.randn(b, 8, generator=g) * 2
    prof = target[:, None, :] + torch.randn(b, k, 8, generator=g)
    ctrl = torch.rand(b, k, 9, generator=g) * 0.8 + 0.1
    weight = torch.full((b, k), 0.5)
    return target, prof, ctrl, weight


def test_fusion_shapes_attention_and_mask() -> None:
    model = GatedAttentionFusion()
    target, prof, ctrl, weight = _batch()
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[0, 3:] = False
    out, attn, gate = model(target, prof, ctrl, weight, mask)
    assert out.shape == (3, 9) and attn.shape == (3, 5) and gate.shape == (3, 9)
    assert bool(((out > 0) & (out < 1)).all()) and bool(((gate > 0) & (gate < 1)).all())
    assert torch.allclose(attn.sum(1), torch.ones(3))
    assert float(attn[0, 3:].detach().abs().sum()) == 0.0  # padded anchors get no attention


def test_fusion_gradients_gradcheck_and_fit() -> None:
    torch.manual_seed(0)
    model = GatedAttentionFusion().double()
    target, prof, ctrl, weight = (t.double() for t in _batch(1, 2))
    target.requires_grad_(True)
    prof.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda t, p: model(t, p, ctrl, weight)[0], (target, prof), eps=1e-6, atol=1e-5)
    model = GatedAttentionFusion()
    target, prof, ctrl, weight = _batch(8, 4, seed=1)
    goal = torch.rand(8, 9) * 0.6 + 0.2
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(80):
        loss = ((model(target, prof, ctrl, weight)[0] - goal) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in model.parameters())
        opt.step()
        losses.append(float(loss.detach()))
    assert losses[-1] < 0.3 * losses[0]


def test_surrogate_starts_at_its_prior_and_learns() -> None:
    torch.manual_seed(0)
    model = Surrogate()
    u, ctx = torch.rand(6, 9), torch.randn(6, 8) * 0.3
    out = model(u, ctx)
    assert out.shape == (6, 9)
    assert torch.allclose(out, ideal_profile(u, ctx))  # the MLP's last layer starts at zero
    u.requires_grad_(True)
    model(u, ctx).sum().backward()
    assert u.grad is not None and float(u.grad.abs().sum()) > 0
    goal = ideal_profile(u.detach(), ctx) + torch.randn(6, 9)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    first = last = 0.0
    for step in range(150):
        loss = ((model(u.detach(), ctx) - goal) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        first, last = (float(loss.detach()), last) if step == 0 else (first, float(loss.detach()))
    assert last < 0.5 * first


def test_ideal_prior_without_context_is_the_commanded_profile() -> None:
    rng = np.random.default_rng(0)
    for _ in range(5):
        cv = ControlVector.from_unit(rng.uniform(0.1, 0.9, 9))
        got = ideal_profile(torch.from_numpy(cv.to_unit())[None])[0].numpy()
        want = cues.ideal_profile_of_control(cv.as_dict())
        assert np.allclose(got[:8], want[:8], atol=1e-3) and math.isnan(want[8])


def test_grad_reverse_flips_the_gradient_sign() -> None:
    x = torch.randn(4, 3, requires_grad=True)
    y = grad_reverse(x, 0.7)
    assert torch.equal(y, x)
    (y * torch.arange(12.0).reshape(4, 3)).sum().backward()
    assert x.grad is not None
    assert torch.allclose(x.grad, -0.7 * torch.arange(12.0).reshape(4, 3))
    z = torch.randn(5, 16)
    model = Disentangler(42, 8, 9)
    out = model(torch.randn(5, 42))
    assert out["speaker"].shape == (5, 8) and out["adv_speaker"].shape == (5, 8) and out["emotion"].shape == (5, 9)
    assert z.shape == out["zs"].shape == out["ze"].shape


def test_cross_covariance_penalty_numbers() -> None:
    a = torch.tensor([[1.0], [-1.0], [1.0], [-1.0]])
    b = torch.tensor([[1.0], [1.0], [-1.0], [-1.0]])  # orthogonal to a: independent in the sample
    assert float(cross_covariance_penalty(a, b, normalise=False)) == 0.0
    assert float(cross_covariance_penalty(a, b)) == 0.0
    # dependent: b = 2a; cov = 2 var(a) = 2 * 4/3, penalty (8/3)^2; correlation 1 -> penalty 1
    assert float(cross_covariance_penalty(a, 2 * a, normalise=False)) == pytest.approx((8 / 3) ** 2)
    assert float(cross_covariance_penalty(a, 2 * a)) == pytest.approx(1.0, abs=1e-4)
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(4000, 4, generator=g), torch.randn(4000, 3, generator=g)
    assert float(cross_covariance_penalty(x, y)) < 0.01  # independent draws: 12 squared correlations ~ 1/N each
    assert float(cross_covariance_penalty(x, x[:, :3] + 0.1 * y)) > 2.5


def _lib(profiles: list[list[float]], voices: list[int]) -> PrototypeLibrary:
    n = len(profiles)
    prof = np.array([p + [0.0] for p in profiles], dtype=np.float32)
    zeros = np.zeros((n, 9), dtype=np.float32)
    ints = np.zeros(n, dtype=np.int16)
    return PrototypeLibrary(zeros + 0.5, prof, np.zeros((n, 18), np.float32), np.zeros((n, 24), np.float32),
                            np.zeros((n, 8), np.float32), np.array(voices, np.int16), ints, ints,
                            np.ones(n, np.float32), ints, voices=("en-us", "en-us+f3"), texts=("t",))


def test_index_prunes_far_and_redundant_anchors() -> None:
    base = [2.0, 1.0, 0.0, 0.0, 2.0, 0.0, 3.0, 1.0]
    near = [2.1, 1.0, 0.0, 0.0, 2.0, 0.0, 3.0, 1.0]   # 0.035 JND RMS from base: redundant with it
    other = [2.0, 1.0, 0.0, 0.0, 2.0, 0.0, 5.0, 3.0]  # 1 JND RMS from base: a distinct anchor
    far = [-6.0, -4.0, 0.0, 0.0, -8.0, 0.0, -9.0, -5.0]
    index = PrototypeIndex(_lib([base, near, other, far], [0, 0, 0, 0]))
    target = np.array(base + [math.nan], dtype=np.float32)
    anchors, stats = index.query(target, k=4, voice="en-us", max_distance=4.0, min_separation=0.5)
    assert [a.index for a in anchors] == [0, 2]
    assert stats.pruned_radius == 1 and stats.pruned_redundant == 1 and not stats.beyond_radius
    anchors, stats = index.query(np.array(far, dtype=np.float32).tolist() + [math.nan], k=2, max_distance=0.01)
    assert [a.index for a in anchors] == [3] and not stats.beyond_radius
    anchors, stats = index.query(np.full(9, 50.0, dtype=np.float32), k=2, max_distance=1.0)
    assert len(anchors) == 1 and stats.beyond_radius  # nothing within the radius: the nearest is kept, flagged


def test_index_prefers_the_same_voice() -> None:
    p = [1.0] * 8
    index = PrototypeIndex(_lib([p, p], [1, 0]), voice_penalty=0.5)
    anchors, _ = index.query(np.array(p + [math.nan], dtype=np.float32), k=1, voice="en-us", min_separation=0.0)
    assert anchors[0].index == 1 and anchors[0].distance == pytest.approx(0.0, abs=1e-6)


def test_cue_targets_errors_and_labels() -> None:
    anger = cues.target_profile(Intent({"anger": 1.0}, 1.0, ()))
    cv = intent_to_control(Intent({"anger": 1.0}, 1.0, ()))
    assert anger[cues.PROFILE_DIMS.index("f0_shift")] == pytest.approx(cv.f0_shift_st / cues.JND["f0_shift"])
    assert anger[cues.PROFILE_DIMS.index("tempo")] == pytest.approx(math.log(cv.tempo_scale) / cues.JND["tempo"])
    assert math.isnan(anger[cues.PROFILE_DIMS.index("hnr")])
    mask = cues.targeted(anger)
    assert mask[cues.PROFILE_DIMS.index("intensity")] and not mask[cues.PROFILE_DIMS.index("f0_final")]
    assert cues.control_error(anger, anger) == 0.0
    shifted = anger.copy()
    shifted[mask] += 1.0
    assert cues.control_error(shifted, anger) == pytest.approx(1.0)
    assert cues.intensity_ratio(anger * 0.5, anger) == pytest.approx(0.5)
    assert cues.label_profile(anger).emotion == "anger"
    assert cues.label_profile(cues.target_profile(Intent({"sadness": 1.0}, 1.0, ()))).emotion == "sadness"
    assert cues.label_profile(np.zeros(9)).emotion == "neutral"
    for emotion, table in cues.CUE_SOURCES.items():  # every cited direction agrees with the target's sign
        t = cues.target_profile(Intent({emotion: 1.0}, 1.0, ()))
        for dim, (sign, source) in table.items():
            assert source in ("JL03", "BS96", "S03", "table")
            assert np.sign(t[cues.PROFILE_DIMS.index(dim)]) == sign, (emotion, dim)


def test_critic_adds_missing_parts_and_aims_past_the_residual() -> None:
    plan = Intent({"sadness": 1.0}, 0.6, ())
    revised, reasons = add_missing(plan, "sad yet hopeful, 60%")
    assert revised is not None and set(revised.emotions) == {"sadness", "happiness"} and reasons
    target = cues.target_profile(plan)
    assert critique(plan, target, target).agree
    off = target * 0.5
    verdict = critique(plan, target, off)
    assert not verdict.agree and verdict.aim is not None and verdict.intent is None
    mask = cues.targeted(target)
    # aim = target + 0.5 * (target - measured) on the targeted features
    assert np.allclose(verdict.aim[mask], target[mask] + 0.5 * (target[mask] - off[mask]), atol=1e-5)
    assert any("strength" in r for r in verdict.reasons)


def test_correction_uses_the_measured_residual() -> None:
    from paperworks.backends.steertts.loop import FastLoopConfig, correct

    torch.manual_seed(0)
    model = Surrogate()
    with torch.no_grad():  # a surrogate that is wrong here: it predicts 2 JND too much intensity
        model.net[-1].bias[cues.PROFILE_DIMS.index("intensity")] = 2.0
    unit = ControlVector(f0_shift_st=3.0, intensity_db=4.0).to_unit()
    ctx = np.zeros(8, dtype=np.float32)
    target = cues.target_profile(Intent({"anger": 1.0}, 0.6, ()))
    cfg = FastLoopConfig(steps=60)
    # measured exactly on target at this control: the correction must stay put whatever the surrogate says
    new, info = correct(model, unit, ctx, target, target, cfg)
    assert np.abs(new - unit).max() < 0.01 and info["predicted_fit_start"] < 0.15
    # measured 1.5 dB short on intensity: the correction raises intensity_db (bias-corrected), little else
    short = target.copy()
    short[cues.PROFILE_DIMS.index("intensity")] -= 1.5
    new, _ = correct(model, unit, ctx, short, target, cfg)
    moved = ControlVector.from_unit(new)
    assert 4.8 < moved.intensity_db < 6.5 and abs(moved.f0_shift_st - 3.0) < 0.3
