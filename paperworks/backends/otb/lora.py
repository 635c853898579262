"""LoRA adapters through PEFT (``peft.LoraConfig`` + ``peft.inject_adapter_in_model``), in place.

``W x + (alpha / r)·B A x`` on the named linear layers, with PEFT's default initialisation (``A``
Kaiming-uniform, ``B`` zero), so an adapted model starts identical to its base; no dropout, no bias. The
model object stays the same (no ``PeftModel`` wrapper), so the trainer, the rollout code and
``torch.func`` in :mod:`~paperworks.backends.otb.variance` see an ordinary ``nn.Module``.

:func:`lora_disabled` switches every adapter off (PEFT's ``BaseTunerLayer.enable_adapters(False)``),
which gives the reference policy for a KL penalty without a second copy of the weights. ``peft`` is
imported only when one of these functions runs (it is part of the ``ecosystem`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from torch import nn

ADAPTER = "default"
"""Name of the single adapter :func:`apply_lora` injects."""


def __getattr__(name: str) -> Any:
    """``LoRALinear``: PEFT's LoRA layer base class (``peft.tuners.lora.LoraLayer``), imported lazily; every
    adapted layer is an instance of it."""
    if name == "LoRALinear":
        from peft.tuners.lora import LoraLayer

        return LoraLayer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tuner_layers(model: nn.Module) -> list[Any]:
    """Every PEFT adapter layer (``peft.tuners.tuners_utils.BaseTunerLayer``, an ``nn.Module``) inside
    ``model``; empty when none was injected."""
    from peft.tuners.tuners_utils import BaseTunerLayer

    return [m for m in model.modules() if isinstance(m, BaseTunerLayer)]


def apply_lora(model: nn.Module, rank: int = 8, alpha: float = 16.0,
               targets: Sequence[str] = ("q_proj", "v_proj")) -> list[nn.Parameter]:
    """Inject LoRA adapters (rank ``rank``, scaling ``alpha / rank``) into every ``nn.Linear`` whose attribute
    name is in ``targets``, in place, and freeze all other parameters. Returns the trainable parameters: each
    adapted layer's ``lora_A`` then ``lora_B`` weight, in module order. Raises ``ValueError`` when ``rank`` is
    not positive, when nothing matched, or when ``model`` already has adapters."""
    try:
        from peft import LoraConfig, inject_adapter_in_model
    except ImportError as exc:
        from paperworks.core.errors import UserError

        raise UserError("LoRA (lora_rank > 0) needs peft (the ecosystem extra): pip install -e '.[ecosystem]'") from exc

    if rank <= 0:
        raise ValueError(f"apply_lora: rank must be positive, got {rank}")
    if tuner_layers(model):
        raise ValueError(f"apply_lora: {type(model).__name__} already has LoRA adapters")
    names = list(targets)
    matched = any(isinstance(child, nn.Linear) and child_name in names
                  for module in model.modules() for child_name, child in module.named_children())
    if not matched:
        raise ValueError(f"apply_lora: no nn.Linear named one of {names} in {type(model).__name__}")
    for p in model.parameters():
        p.requires_grad_(False)
    # PEFT annotates lora_alpha as int but only divides by it; a float alpha keeps this module's contract.
    config = LoraConfig(r=rank, lora_alpha=alpha, target_modules=names,  # type: ignore[arg-type]
                        lora_dropout=0.0, bias="none", init_lora_weights=True)
    inject_adapter_in_model(config, model, adapter_name=ADAPTER)
    params: list[nn.Parameter] = []
    for layer in tuner_layers(model):
        a, b = getattr(layer, "lora_A"), getattr(layer, "lora_B")  # noqa: B009 (ModuleDicts from PEFT)
        params.extend((a[ADAPTER].weight, b[ADAPTER].weight))
    for p in params:
        p.requires_grad_(True)
    return params


@contextmanager
def lora_disabled(model: nn.Module) -> Iterator[None]:
    """Run ``model`` as its base model inside the block: every PEFT adapter layer is switched off with
    ``enable_adapters(False)``, and on exit each layer's previous on/off state and each adapter parameter's
    ``requires_grad`` flag are restored exactly (PEFT's toggle would otherwise reset them). A model without
    adapters runs unchanged."""
    layers = tuner_layers(model)
    was_disabled = [bool(layer.disable_adapters) for layer in layers]
    grads = [(p, p.requires_grad) for layer in layers for p in layer.parameters()]
    for layer in layers:
        layer.enable_adapters(False)
    try:
        yield
    finally:
        for layer, off in zip(layers, was_disabled, strict=True):
            layer.enable_adapters(not off)
        for p, flag in grads:
            p.requires_grad_(flag)
