"""GradMem's write, read and meta-gradients, and the forward writer's memory size, on a tiny Llama."""

from __future__ import annotations

import copy
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.gradmem.data import CharTokenizer, make_kv_batch  # noqa: E402
from paperworks.backends.gradmem.forward import ForwardWriter, ForwardWriterConfig  # noqa: E402
from paperworks.backends.gradmem.maml import kv_tensors  # noqa: E402
from paperworks.backends.gradmem.memory import GradMem, GradMemConfig, reconstruction_loss  # noqa: E402
from paperworks.backends.gradmem.tiny import tiny_llama  # noqa: E402

TOK = CharTokenizer()


def _model(dtype: Any = None) -> Any:
    return tiny_llama(TOK.vocab_size, layers=2, heads=2, hidden=32, seed=0).to(dtype or torch.float32)


def _batch(n_pairs: int = 3, b: int = 4) -> tuple[Any, ...]:
    return kv_tensors(make_kv_batch(0, b, n_pairs), TOK, all_queries=False)


def _loss_of(gm: GradMem, memory: Any, ctx: Any) -> Any:
    with torch.no_grad():
        emb = gm.model.get_input_embeddings()(ctx)
        return reconstruction_loss(gm.model, memory, emb, ctx, torch.ones_like(ctx))


@pytest.mark.parametrize(("optimiser", "lr"), [("sgd", 5.0), ("momentum", 2.0), ("adam", 0.05)])
def test_write_lowers_the_reconstruction_loss(optimiser: str, lr: float) -> None:
    ctx, *_ = _batch()
    gm = GradMem(_model(), GradMemConfig(steps=5, inner_lr=lr, optimiser=optimiser))
    res = gm.write(ctx, track_final=True)
    assert len(res.losses) == 6 and res.memory.shape == (4, 8, 32) and res.memory.grad_fn is None
    before = _loss_of(gm, gm.mem0.unsqueeze(0).expand(4, -1, -1), ctx)
    after = _loss_of(gm, res.memory, ctx)
    assert res.losses[0] == pytest.approx(float(before.mean()), abs=1e-5)
    assert res.losses[-1] == pytest.approx(float(after.mean()), abs=1e-5)
    assert bool((after < before - 0.02).all()), (before, after)  # every sample's own loss drops
    assert all(p.grad is None for p in gm.model.parameters())  # the write leaves the weights alone


def test_write_masks_right_padding() -> None:
    gm = GradMem(_model(), GradMemConfig(steps=2, inner_lr=3.0))
    short, _, _, _ = _batch(2, 1)
    long, _, _, _ = _batch(4, 1)
    padded = torch.cat([torch.cat([short, torch.zeros(1, long.shape[1] - short.shape[1], dtype=torch.long)], 1),
                        long])
    mask = (torch.arange(long.shape[1]) < torch.tensor([[short.shape[1]], [long.shape[1]]])).long()
    both = gm.write(padded, mask).memory
    torch.testing.assert_close(both[0], gm.write(short).memory[0], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(both[1], gm.write(long).memory[0], atol=1e-5, rtol=1e-4)


def _outer(gm: GradMem, ctx: Any, qry: Any, tgt: Any, create_graph: bool = False,
           first_order_graph: bool = False) -> Any:
    mem = gm.write(ctx, create_graph=create_graph, first_order_graph=first_order_graph).memory
    return gm.score(mem, qry, tgt).loss.mean()


def test_maml_gradients_flow_through_the_inner_steps() -> None:
    ctx, qry, tgt, _ = _batch()
    gm = GradMem(_model(torch.float64), GradMemConfig(steps=2, inner_lr=3.0),
                 init=torch.randn(8, 32, dtype=torch.float64) * 0.3)
    grads = {}
    for name, kw in {"second": {"create_graph": True}, "first": {"first_order_graph": True}}.items():
        gm.zero_grad(set_to_none=True)
        _outer(gm, ctx, qry, tgt, **kw).backward()
        assert gm.mem0.grad is not None and float(gm.mem0.grad.abs().sum()) > 0
        grads[name] = gm.mem0.grad.clone()
        model_grad = gm.model.model.layers[0].self_attn.q_proj.weight.grad
        assert model_grad is not None and float(model_grad.abs().sum()) > 0
    assert not torch.allclose(grads["second"], grads["first"], rtol=1e-3, atol=1e-9)
    # The second-order gradient is the true derivative: it matches a central finite difference in M0.
    # Along the direction where the two differ most, only the second-order one is right.
    direction = (grads["second"] - grads["first"]) / (grads["second"] - grads["first"]).norm()
    eps = 1e-3  # eager attention takes its softmax in float32
    with torch.no_grad():
        base = gm.mem0.detach().clone()
        vals = []
        for sign in (1, -1):
            gm.mem0.copy_(base + sign * eps * direction)
            vals.append(float(_outer(gm, ctx, qry, tgt, create_graph=True)))
        gm.mem0.copy_(base)
    numeric = (vals[0] - vals[1]) / (2 * eps)
    gap = float((grads["second"] - grads["first"]).norm())  # = second·d − first·d
    assert abs(float((grads["second"] * direction).sum()) - numeric) < 0.05 * gap
    assert abs(float((grads["first"] * direction).sum()) - numeric) > 0.5 * gap


def test_plain_write_is_detached() -> None:
    ctx, qry, tgt, _ = _batch()
    gm = GradMem(_model())
    mem = gm.write(ctx).memory
    assert mem.grad_fn is None and not mem.requires_grad


def test_forward_writer_has_the_same_memory_size() -> None:
    base = _model()
    gm = GradMem(copy.deepcopy(base), GradMemConfig(n_mem=8))
    fw = ForwardWriter(copy.deepcopy(base), ForwardWriterConfig(n_mem=8))
    ctx, *_ = _batch()
    m_g, m_f = gm.write(ctx).memory, fw.write(ctx).memory
    assert m_g.shape == m_f.shape == (4, 8, 32)
    assert gm.mem0.shape == fw.mem0.shape == (8, 32)
    assert gm.memory_parameters() == fw.memory_parameters() == 8 * 32
    n_model = sum(p.numel() for p in base.parameters())
    assert sum(p.numel() for p in gm.parameters()) == sum(p.numel() for p in fw.parameters()) == n_model + 256
    with pytest.raises(ValueError, match=r"\(8, 32\)"):
        ForwardWriter(base, init=torch.zeros(4, 32))


def test_forward_writer_places_slots_after_each_context() -> None:
    fw = ForwardWriter(_model(), ForwardWriterConfig(passes=2))
    short, _, _, _ = _batch(2, 1)
    long, _, _, _ = _batch(4, 1)
    padded = torch.cat([torch.cat([short, torch.zeros(1, long.shape[1] - short.shape[1], dtype=torch.long)], 1),
                        long])
    mask = (torch.arange(long.shape[1]) < torch.tensor([[short.shape[1]], [long.shape[1]]])).long()
    both = fw.write(padded, mask).memory
    torch.testing.assert_close(both[0], fw.write(short).memory[0], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(both[1], fw.write(long).memory[0], atol=1e-5, rtol=1e-4)
    assert not torch.allclose(fw.write(long, passes=1).memory, fw.write(long).memory)


def test_greedy_generation_matches_teacher_forced_argmax() -> None:
    model = _model()
    with torch.no_grad():  # sharper weights, so that each next token depends on the whole prefix
        for p in model.parameters():
            if p.ndim == 2:
                p.mul_(10)
    ctx, qry, _, _ = _batch()
    gm = GradMem(model, GradMemConfig(steps=1))
    mem = gm.write(ctx).memory
    gen = torch.tensor(gm.generate(mem, qry, max_new_tokens=6))
    with torch.no_grad():
        score = gm.score(mem, qry, gen)
    assert bool(score.exact.all()) and torch.equal(score.predicted, gen)
    assert len({tuple(r) for r in gen.tolist()} | {tuple(gen[:, 0].tolist())}) > 2  # not one repeated token
    with torch.no_grad():
        other = gm.score(None, qry, gen)  # without the memory the prediction is another one
    assert other.loss.shape == (4,)


@pytest.mark.parametrize("with_prefix", [False, True])
def test_reconstruction_loss_is_the_lm_loss_of_the_context(with_prefix: bool) -> None:
    model = _model()
    ctx, *_ = _batch()
    mem_ids = ctx[:, :8]  # a memory made of real token embeddings: [P; M; ctx] is then an ordinary sequence
    prefix = torch.tensor([5, 6, 7]) if with_prefix else None
    with torch.no_grad():
        emb = model.get_input_embeddings()
        got = reconstruction_loss(model, emb(mem_ids), emb(ctx), ctx, torch.ones_like(ctx), prefix)
        ids = torch.cat(([prefix.expand(4, -1)] if prefix is not None else []) + [mem_ids, ctx], 1)
        start = ids.shape[1] - ctx.shape[1] - 1
        logits = model(input_ids=ids).logits[:, start:-1]
        want = torch.nn.functional.cross_entropy(logits.transpose(1, 2), ctx, reduction="none").mean(1)
        # reading with the same prefix scores the same tokens as the plain sequence
        score = GradMem(model).score(emb(mem_ids), ctx[:, :1], ctx[:, 1:], prefix_ids=prefix)
        full = model(input_ids=ids).logits[:, start + 1:-1].argmax(-1)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    assert torch.equal(score.predicted, full)


def test_clip_norm_bounds_each_step() -> None:
    ctx, *_ = _batch()
    gm = GradMem(_model(), GradMemConfig(steps=1, inner_lr=2.0, clip_norm=1e-3))
    delta = (gm.write(ctx).memory - gm.mem0).flatten(1).norm(dim=1)
    assert bool((delta <= 2.0 * 1e-3 * 1.0001).all()) and bool((delta > 0).all())


def test_forward_writer_reads_the_slot_states_after_the_context() -> None:
    fw = ForwardWriter(_model())
    ctx, *_ = _batch()
    with torch.no_grad():
        m0 = fw.mem0.unsqueeze(0).expand(ctx.shape[0], -1, -1)
        x = torch.cat([m0, fw.model.get_input_embeddings()(ctx), m0], 1)
        want = fw.model.model(inputs_embeds=x).last_hidden_state[:, -8:]
    torch.testing.assert_close(fw.write(ctx).memory, want, atol=1e-5, rtol=1e-5)


def test_meta_training_only_m0_leaves_the_model_unchanged() -> None:
    from paperworks.backends.gradmem.data import KVTaskConfig
    from paperworks.backends.gradmem.maml import MetaTrainConfig, meta_train

    gm = GradMem(_model(), GradMemConfig(steps=1, inner_lr=1.0))
    before = {n: p.detach().clone() for n, p in gm.model.named_parameters()}
    m0 = gm.mem0.detach().clone()
    hist = meta_train(gm, TOK, KVTaskConfig(key_len=1, value_len=1),
                      MetaTrainConfig(steps=3, batch=4, pairs=(1, 2), train_model=False))
    assert [h["step"] for h in hist] == [1, 2, 3] and [h["pairs"] for h in hist][0] == 1  # curriculum starts at 1
    assert all(torch.equal(p, before[n]) for n, p in gm.model.named_parameters())
    assert not torch.equal(gm.mem0.detach(), m0)
