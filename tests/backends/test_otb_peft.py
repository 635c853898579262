"""OTB's LoRA on PEFT: start identical to the base, the LoRA update by hand, adapters off = the base,
trainable parameters = PEFT's lora_A/lora_B, and the trainer's KL reference."""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")
peft = pytest.importorskip("peft")

from paperworks.backends.otb.lora import apply_lora, lora_disabled  # noqa: E402
from paperworks.backends.otb.policy import CharTokenizer, tiny_policy  # noqa: E402

TOK = CharTokenizer()
IDS = torch.tensor([TOK.encode("b3:bbb"), TOK.encode("12+7=19")[:6]])


def logits(model: torch.nn.Module) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=IDS).logits


def lora_names(model: torch.nn.Module) -> set[str]:
    return {n for n, _ in model.named_parameters() if ".lora_A." in n or ".lora_B." in n}


def test_peft_lora_starts_at_base_trains_and_switches_off() -> None:
    torch.set_num_threads(1)
    base = tiny_policy(TOK.vocab_size, hidden=32, layers=2, seed=0)
    model = copy.deepcopy(base)
    ref = logits(base)
    params = apply_lora(model, rank=4, alpha=8.0, targets=("q_proj", "v_proj"))

    # Exactly PEFT's adapter weights are trainable, nothing else; 2 layers x 2 targets x (A, B).
    named = dict(model.named_parameters())
    assert {id(p) for p in params} == {id(named[n]) for n in lora_names(model)}
    assert {n for n, p in named.items() if p.requires_grad} == lora_names(model)
    assert len(params) == 8 and len(lora_names(model)) == 8
    layers = [m for m in model.modules() if isinstance(m, peft.tuners.lora.LoraLayer)]
    assert len(layers) == 4 and all(m.scaling["default"] == 2.0 for m in layers)  # alpha / rank
    assert torch.equal(logits(model), ref)  # B = 0: the adapted model is the base, bit for bit

    opt = torch.optim.SGD(params, lr=0.5)
    out = model(input_ids=IDS).logits
    torch.nn.functional.cross_entropy(out[:, :-1].reshape(-1, out.shape[-1]), IDS[:, 1:].reshape(-1)).backward()
    opt.step()
    adapted = logits(model)
    assert (adapted - ref).abs().max() > 1e-4

    # The update is W x + (alpha / r) B A x, by hand on one adapted layer.
    q = model.model.layers[0].self_attn.q_proj
    x = torch.randn(3, 32)
    a, b = q.lora_A["default"].weight, q.lora_B["default"].weight
    assert b.abs().sum() > 0
    with torch.no_grad():
        torch.testing.assert_close(q(x), x @ q.base_layer.weight.t() + 2.0 * (x @ a.t() @ b.t()))

    params[0].requires_grad_(False)  # a frozen adapter weight stays frozen (PEFT's re-enable would thaw it)
    flags = [p.requires_grad for p in params]
    with lora_disabled(model):
        assert torch.equal(logits(model), ref)
    assert [p.requires_grad for p in params] == flags
    params[0].requires_grad_(True)
    assert torch.equal(logits(model), adapted)  # back on after the block
    for n, p in base.named_parameters():  # base weights untouched
        key = n.replace("q_proj.weight", "q_proj.base_layer.weight")
        key = key.replace("v_proj.weight", "v_proj.base_layer.weight")
        assert torch.equal(named[key], p), n


def test_trainer_kl_reference_is_the_base_policy() -> None:
    from paperworks.backends.otb.tasks import RepeatTask
    from paperworks.backends.otb.trainer import PolicyGradientTrainer, RLConfig

    torch.set_num_threads(1)
    base = tiny_policy(TOK.vocab_size, hidden=32, layers=1, seed=1)
    task = RepeatTask(max_len=3)
    trainer = PolicyGradientTrainer(copy.deepcopy(base), TOK, task,
                                    RLConfig(lora_rank=2, kl_coef=0.1, lr=5e-2, max_new_tokens=4, prompts_per_step=2))
    with torch.no_grad():  # make the adapters non-trivial so "off" is distinguishable
        for p in trainer.params:
            p.add_(0.05)
    trainer.step(task.prompts(trainer.rng, 2))
    ref_model, ctx = trainer._reference()
    assert ref_model is trainer.model
    assert not torch.allclose(logits(trainer.model), logits(base))
    with ctx:
        assert torch.equal(logits(ref_model), logits(base))


def test_apply_lora_rejects_bad_input() -> None:
    model = tiny_policy(TOK.vocab_size, hidden=16, layers=1)
    with pytest.raises(ValueError, match="no nn.Linear named"):
        apply_lora(model, targets=("nope",))
    with pytest.raises(ValueError, match="rank must be positive"):
        apply_lora(model, rank=0)
    apply_lora(model, rank=2)
    with pytest.raises(ValueError, match="already has LoRA"):
        apply_lora(model, rank=2)


def test_without_peft_lora_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from paperworks.core.errors import UserError

    monkeypatch.setitem(sys.modules, "peft", None)  # `import peft` now raises ImportError
    with pytest.raises(UserError, match="needs peft"):
        apply_lora(tiny_policy(TOK.vocab_size, hidden=16, layers=1), rank=4)
