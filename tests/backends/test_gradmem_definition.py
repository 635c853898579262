"""GradMem's write rule against numbers worked out by hand from the authors' definition (memory.py docstring).

A toy "causal LM" with a 2-token vocabulary and 2-dim embeddings whose logits at a position are that position's
input vector (identity embedding, identity backbone, identity head). With one memory vector ``M`` and the context
``[c0, ...]``, the first context token is predicted from ``M`` alone (logits = ``M``) and every later token from
the previous token's embedding, which does not depend on ``M``. So the write loss of a sample with ``n`` real
tokens is ``(1/n) (-log softmax(M)[c0]) + const`` and its memory gradient is ``(softmax(M) - e_c0) / n``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

from paperworks.backends.gradmem.capacity import mean_se, parse_grid  # noqa: E402
from paperworks.backends.gradmem.maml import MetaTrainConfig, outer_loss  # noqa: E402
from paperworks.backends.gradmem.memory import GradMem, GradMemConfig  # noqa: E402


class _Backbone(nn.Module):
    def forward(self, inputs_embeds: Any, attention_mask: Any = None) -> Any:
        return SimpleNamespace(last_hidden_state=inputs_embeds)


class ToyLM(nn.Module):
    """Logits at each position = the input vector there (vocabulary 2, width 2)."""

    base_model_prefix = "model"

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(2, 2)
        self.model = _Backbone()
        self.lm_head = nn.Linear(2, 2, bias=False)
        with torch.no_grad():
            self.embed.weight.copy_(torch.eye(2, dtype=torch.float64))
            self.lm_head.weight.copy_(torch.eye(2, dtype=torch.float64))
        self.double()

    def get_input_embeddings(self) -> nn.Embedding:
        return self.embed

    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    def forward(self, inputs_embeds: Any, attention_mask: Any = None) -> Any:
        return SimpleNamespace(logits=self.lm_head(self.model(inputs_embeds).last_hidden_state))


def _gm(**cfg: Any) -> GradMem:
    return GradMem(ToyLM(), GradMemConfig(n_mem=1, **cfg), init=torch.zeros(1, 2, dtype=torch.float64))


def _p0(x: float) -> float:
    """softmax((x, -x))[0]"""
    return 1.0 / (1.0 + math.exp(-2 * x))


def test_two_sgd_steps_match_the_hand_computed_updates() -> None:
    # M0 = (0, 0), context [0]: g1 = (0.5 - 1, 0.5) -> M1 = (0.02, -0.02);
    # g2 = (p0 - 1, 1 - p0) with p0 = softmax((0.02, -0.02))[0] = 0.50999867 -> M2 = M1 - 0.04 g2
    res = _gm(steps=2, inner_lr=0.04).write(torch.tensor([[0]]), track_final=True)
    p0 = _p0(0.02)
    assert p0 == pytest.approx(0.509998667, abs=1e-9)
    m2 = 0.02 + 0.04 * (1 - p0)
    assert res.memory[0, 0].tolist() == pytest.approx([m2, -m2], abs=1e-12)
    assert m2 == pytest.approx(0.0396000533, abs=1e-9)
    assert res.losses[0] == pytest.approx(math.log(2), abs=1e-12)  # -log 0.5 before the first step
    assert res.losses[-1] == pytest.approx(-math.log(_p0(m2)), abs=1e-12)
    assert res.grad_norms[0] == pytest.approx(math.sqrt(0.5), abs=1e-12)


def test_loss_is_a_per_sample_token_mean_and_padding_is_not_counted() -> None:
    # sample 0: context [0, 1], 2 real tokens -> g = (softmax(M) - e0) / 2 = (-0.25, 0.25) -> M1 = (0.01, -0.01);
    # sample 1: context [0, pad] with the pad masked -> one real token -> M1 = (0.02, -0.02), as if alone in
    # the batch (the step of a sample does not depend on the batch); loss of sample 0 before the step:
    # (log 2 + log(1 + e)) / 2 (the second token is predicted by e0 = logits (1, 0), target 1)
    ctx = torch.tensor([[0, 1], [0, 0]])
    mask = torch.tensor([[1, 1], [1, 0]])
    res = _gm(steps=1, inner_lr=0.04).write(ctx, mask)
    assert res.memory[0, 0].tolist() == pytest.approx([0.01, -0.01], abs=1e-12)
    assert res.memory[1, 0].tolist() == pytest.approx([0.02, -0.02], abs=1e-12)
    loss0 = (math.log(2) + math.log(1 + math.e)) / 2
    assert loss0 == pytest.approx(1.0032044, abs=1e-7)
    assert res.losses[0] == pytest.approx((loss0 + math.log(2)) / 2, abs=1e-12)  # batch mean of per-sample means
    alone = _gm(steps=1, inner_lr=0.04).write(torch.tensor([[0, 1]]))
    assert torch.equal(alone.memory[0], res.memory[0])


def test_per_sample_clipping_rescales_a_long_gradient_to_the_clip_norm() -> None:
    # |g| = |(-0.5, 0.5)| = 0.7071 > 0.5 -> g * 0.5 / 0.7071 = (-0.353553, 0.353553) -> M1 = (0.0141421, -0.0141421)
    res = _gm(steps=1, inner_lr=0.04, clip_norm=0.5).write(torch.tensor([[0]]))
    assert res.memory[0, 0].tolist() == pytest.approx([0.04 * 0.5 / math.sqrt(2), -0.04 * 0.5 / math.sqrt(2)],
                                                      abs=1e-12)
    short = _gm(steps=1, inner_lr=0.04, clip_norm=1.0).write(torch.tensor([[0]]))  # 0.7071 < 1: unchanged
    assert short.memory[0, 0].tolist() == pytest.approx([0.02, -0.02], abs=1e-12)


def test_write_head_replaces_the_lm_head_in_the_write_loss() -> None:
    gm = _gm(steps=1, inner_lr=0.04, write_head=True)
    assert gm.write_head is not None
    assert torch.equal(gm.write_head.weight, torch.eye(2, dtype=torch.float64))  # a copy of the output embedding
    with torch.no_grad():
        gm.write_head.weight.copy_(torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=torch.float64))
    # logits = W M; at M = 0: dL/dM = W^T (softmax(0) - e0) = W^T (-0.5, 0.5) = (-1.0, 0.5) -> M1 = (0.04, -0.02)
    res = gm.write(torch.tensor([[0]]))
    assert res.memory[0, 0].tolist() == pytest.approx([0.04, -0.02], abs=1e-12)
    assert torch.equal(gm.model.lm_head.weight, torch.eye(2, dtype=torch.float64))  # the LM head is left alone


def test_second_order_meta_gradient_matches_the_hand_jacobian() -> None:
    # M1 = M0 - lr (softmax(M0) - e0): dM1/dM0 = I - lr (diag(p) - p p^T) = [[0.99, 0.01], [0.01, 0.99]] at
    # M0 = 0, lr 0.04. Outer L = M1[0] -> dL/dM0 = (0.99, 0.01); first order treats g as a constant: (1, 0).
    gm = _gm(steps=1, inner_lr=0.04)
    gm.write(torch.tensor([[0]]), create_graph=True).memory[0, 0, 0].backward()
    assert gm.mem0.grad is not None
    assert gm.mem0.grad[0].tolist() == pytest.approx([0.99, 0.01], abs=1e-12)
    gm.mem0.grad = None
    gm.write(torch.tensor([[0]]), first_order_graph=True).memory[0, 0, 0].backward()
    assert gm.mem0.grad is not None
    assert gm.mem0.grad[0].tolist() == pytest.approx([1.0, 0.0], abs=1e-12)


def test_write_head_learns_only_through_the_second_order_path() -> None:
    # M1 = M0 - lr W^T (softmax(W M0) - e0); at M0 = 0 the softmax does not depend on W, so
    # dM1[0]/dW = -lr * (p - e0) e0^T = -0.04 * [[-0.5, 0], [0.5, 0]] = [[0.02, 0], [-0.02, 0]]
    gm = _gm(steps=1, inner_lr=0.04, write_head=True)
    gm.write(torch.tensor([[0]]), create_graph=True).memory[0, 0, 0].backward()
    assert gm.write_head is not None and gm.write_head.weight.grad is not None
    assert gm.write_head.weight.grad.tolist() == [pytest.approx([0.02, 0.0], abs=1e-12),
                                                  pytest.approx([-0.02, 0.0], abs=1e-12)]
    gm2 = _gm(steps=1, inner_lr=0.04, write_head=True)
    gm2.write(torch.tensor([[0]]), first_order_graph=True).memory[0, 0, 0].backward()
    assert gm2.write_head is not None and gm2.write_head.weight.grad is None


def test_outer_loss_is_target_loss_plus_half_the_last_write_loss() -> None:
    # read [M1; query=1; target=0]: the target is predicted from e1 -> logits (0, 1) -> CE = log(1 + e);
    # the last write loss is that of M0 = 0: log 2. Outer = log(1 + e) + 0.5 log 2 = 1.6598353
    gm = _gm(steps=1, inner_lr=0.04)
    cfg = MetaTrainConfig(recon_weight=0.5, second_order=True)
    loss, exact, _ = outer_loss(gm, torch.tensor([[0]]), torch.tensor([[1]]), torch.tensor([[0]]),
                                torch.tensor([0]), cfg)
    value = float(loss.detach())
    assert value == pytest.approx(math.log(1 + math.e) + 0.5 * math.log(2), abs=1e-12)
    assert value == pytest.approx(1.6598353, abs=1e-7)
    assert exact == 0.0  # argmax of (0, 1) is token 1, the target is 0


def test_mean_and_standard_error_by_hand() -> None:
    mean, se = mean_se([0.2, 0.4, 0.6])  # sample sd 0.2 -> se 0.2 / sqrt(3)
    assert mean == pytest.approx(0.4) and se == pytest.approx(0.2 / math.sqrt(3))
    assert mean_se([0.7]) == (0.7, 0.0)


def test_grid_spec_unions_rectangles_and_rejects_bad_specs() -> None:
    from paperworks.core.errors import UserError

    assert parse_grid("m=4,8;steps=100,300+m=8;steps=1000") == {4: (100, 300), 8: (100, 300, 1000)}
    assert parse_grid("off") == {}
    for bad in ("m=4", "m=a;steps=1", "m=0;steps=10", "k=4;steps=1"):
        with pytest.raises(UserError, match="PAPERWORKS_GRADMEM_GRID"):
            parse_grid(bad)
