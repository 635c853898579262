"""Audit: GradMem's write — an SGD step equals ``M0 - lr * grad`` of the reconstruction loss computed here by
hand (a plain softmax cross-entropy over the model's logits), its meta-gradient matches central differences
for every optimiser, and bad settings or inputs raise one-line errors instead of NaN or deep tracebacks.

torch.autograd.gradcheck is not usable here: transformers' LlamaRMSNorm computes in float32 even in a float64
model, so finite differences carry ~1e-4 noise at gradcheck's eps; the differences below use eps = 1e-3
(2e-4 for adam)."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends._validate import BackendInputError  # noqa: E402
from paperworks.backends.gradmem.data import CharTokenizer  # noqa: E402
from paperworks.backends.gradmem.memory import GradMem, GradMemConfig  # noqa: E402
from paperworks.backends.gradmem.tiny import tiny_llama  # noqa: E402

TOK = CharTokenizer()


@pytest.fixture(scope="module")
def model() -> Any:
    return tiny_llama(TOK.vocab_size, layers=1, heads=2, hidden=16, seed=0).double()


def _ref_loss(model: Any, mem: Any, ctx: Any, mask: Any) -> Any:
    """Per-sample mean NLL of each real context token given [memory; context], from the logits by hand."""
    emb = model.get_input_embeddings()(ctx)
    x = torch.cat([mem, emb], 1)
    attn = torch.cat([torch.ones(ctx.shape[0], mem.shape[1], dtype=mask.dtype), mask], 1)
    logits = model(inputs_embeds=x, attention_mask=attn).logits
    out = []
    for b in range(ctx.shape[0]):
        terms = [-torch.log_softmax(logits[b, mem.shape[1] - 1 + t], -1)[ctx[b, t]]
                 for t in range(ctx.shape[1]) if mask[b, t]]
        out.append(torch.stack(terms).mean() if terms else torch.zeros((), dtype=logits.dtype))
    return torch.stack(out)


def test_sgd_write_is_one_gradient_step_of_the_reference_loss(model: Any) -> None:
    g = torch.Generator().manual_seed(0)
    ctx = torch.randint(0, TOK.vocab_size, (3, 6), generator=g)
    mask = torch.ones_like(ctx)
    mask[1, 4:] = 0  # right padding
    gm = GradMem(model, GradMemConfig(n_mem=2, steps=1, inner_lr=0.3))
    m0 = gm.mem0.detach().unsqueeze(0).expand(3, -1, -1).clone().requires_grad_(True)
    loss = _ref_loss(model, m0, ctx, mask)
    (grad,) = torch.autograd.grad(loss.sum(), m0)
    res = gm.write(ctx, mask, track_final=True)
    assert torch.allclose(res.memory, m0.detach() - 0.3 * grad, atol=1e-10)
    assert res.losses[0] == pytest.approx(float(loss.detach().mean()), rel=1e-10)
    assert res.losses[1] == pytest.approx(float(_ref_loss(model, res.memory, ctx, mask).detach().mean()), rel=1e-10)


@pytest.mark.parametrize("optimiser", ["sgd", "momentum", "adam"])
def test_meta_gradient_matches_central_differences(model: Any, optimiser: str) -> None:
    ctx = torch.randint(0, TOK.vocab_size, (2, 5), generator=torch.Generator().manual_seed(1))
    gm = GradMem(model, GradMemConfig(n_mem=2, steps=2, optimiser=optimiser, inner_lr=0.1))

    def f(m0: Any) -> Any:
        mem = gm.write(ctx, memory=m0.unsqueeze(0).expand(2, -1, -1), create_graph=True).memory
        return (mem ** 2).sum()

    m0 = gm.mem0.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(m0), m0)
    eps = 2e-4 if optimiser == "adam" else 1e-3  # adam's g/sqrt(g^2) step is strongly curved
    for idx in ((0, 0), (1, 7)):
        e = torch.zeros_like(m0)
        e[idx] = eps
        numeric = (f(m0 + e) - f(m0 - e)) / (2 * eps)
        assert float(analytic[idx]) == pytest.approx(float(numeric.detach()), rel=2e-3, abs=1e-4), (optimiser, idx)


def test_bad_settings_and_inputs_raise_one_line_errors(model: Any) -> None:
    ctx = torch.randint(0, TOK.vocab_size, (2, 5))
    gm = GradMem(model, GradMemConfig(n_mem=2))
    cases = [
        (lambda: GradMem(model, GradMemConfig(n_mem=0)), "n_mem must be"),  # was a cross-entropy shape error
        (lambda: GradMem(model, GradMemConfig(steps=-1)), "steps must be"),  # was silently 0 steps
        (lambda: GradMem(model, GradMemConfig(inner_lr=float("nan"))), "inner_lr must be"),  # was a NaN memory
        (lambda: GradMem(model, GradMemConfig(clip_norm=0.0)), "clip_norm must be"),  # zeroed every step
        (lambda: GradMem(model, GradMemConfig(n_mem=1), init=torch.full((1, 16), float("nan"))), "NaN"),
        (lambda: gm.write(ctx, torch.ones(2, 3, dtype=torch.long)), "ctx_mask has shape"),
        (lambda: gm.write(torch.full((2, 5), 999)), "outside the vocabulary"),
        (lambda: gm.write(ctx[0]), "non-empty \\(batch, length\\)"),
        (lambda: gm.write(ctx[:0]), "non-empty"),
        (lambda: gm.write(ctx.float()), "integer token ids"),
        (lambda: gm.write(ctx, memory=torch.zeros(3, 2, 16, dtype=torch.float64)), "memory has shape"),
        (lambda: gm.write(ctx, steps=-2), "steps must be"),
        (lambda: gm.write(ctx, lr=float("inf")), "lr must be"),
    ]
    for call, match in cases:
        with pytest.raises(BackendInputError, match=match) as info:
            call()
        assert isinstance(info.value, ValueError) and "\n" not in str(info.value)
