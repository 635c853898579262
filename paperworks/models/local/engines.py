"""Which engine serves a ``local/<name>`` model string, loaded once per process.

``smollm2-135m`` is served by llama.cpp (:class:`~.llama_model.LlamaLocalModel`: batching, prefix
reuse, cancellation); ``smollm2-135m-torch`` by transformers (:class:`~.generation.LocalModel`, whose
``nn.Module`` the backends use). Without llama-cpp-python the llama.cpp names fall back to the torch
engine, with one warning line saying so.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Union

from paperworks.models.local.smollm import LocalModelError, get_local_model, local_model_spec

if TYPE_CHECKING:
    from paperworks.models.local.generation import LocalModel
    from paperworks.models.local.llama_model import LlamaLocalModel

__all__ = ["Engine", "close_engines", "get_engine"]

log = logging.getLogger(__name__)

Engine = Union["LlamaLocalModel", "LocalModel"]

_ENGINES: dict[str, Engine] = {}
_LOCK = threading.Lock()
_WARNED: set[str] = set()


def get_engine(name: str) -> Engine:
    """The process-wide serving engine of local model ``name`` (thread-safe; loads on first use).

    Raises :class:`~.smollm.LocalModelError` for unknown names, missing weights or load failures.
    """
    spec = local_model_spec(name)
    if spec.engine != "llama.cpp":
        return get_local_model(name)
    with _LOCK:
        if name in _ENGINES:
            return _ENGINES[name]
        from paperworks.models.local.llama_core import llama_cpp_available

        missing = llama_cpp_available()
        if missing is not None:
            if name not in _WARNED:
                _WARNED.add(name)
                log.warning(
                    "local/%s: llama-cpp-python is not usable (%s); serving it with the slower torch engine "
                    "(run `make setup` to build llama-cpp-python)",
                    name,
                    missing,
                )
            engine: Engine = get_local_model(name)
        else:
            from paperworks.models.local.llama_model import LlamaLocalModel
            from paperworks.models.local.lora_gguf import export_lora_gguf, split_adapter

            _, adapter = split_adapter(name)
            lora = export_lora_gguf(adapter, spec.source_gguf()) if adapter is not None else None
            try:
                engine = LlamaLocalModel(name, spec.gguf_path())
                if lora is not None:
                    engine.set_adapter(lora)
            except LocalModelError:
                raise
            except Exception as exc:
                raise LocalModelError(f"cannot load {spec.gguf_path()} with llama.cpp: {exc}") from exc
        _ENGINES[name] = engine
        return engine


def close_engines() -> None:
    """Stop and free every llama.cpp engine loaded so far (a later :func:`get_engine` loads afresh)."""
    with _LOCK:
        engines = list(_ENGINES.values())
        _ENGINES.clear()
    for engine in engines:
        close = getattr(engine, "close", None)
        if close is not None:
            close()
