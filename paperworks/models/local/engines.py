"""Which engine serves a ``local/<name>`` model string, loaded once per process.

``smollm2-135m`` is served by llama.cpp (:class:`~.llama_model.LlamaLocalModel`: batching, prefix
reuse, cancellation); ``smollm2-135m-torch`` by transformers (:class:`~.generation.LocalModel`, whose
``nn.Module`` the backends use). Without llama-cpp-python the llama.cpp names fall back to the torch
engine, with one warning line saying so. ``<name>@<DIR>`` adds the PEFT LoRA adapter saved in ``DIR``
(:mod:`.lora_gguf`), swapped again when it changes.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Union

from paperworks.models.local.smollm import (
    LocalModelError,
    LocalModelSpec,
    adapter_stamp,
    get_local_model,
    local_model_spec,
    split_adapter,
)

if TYPE_CHECKING:
    from paperworks.models.local.generation import LocalModel
    from paperworks.models.local.llama_model import LlamaLocalModel

__all__ = ["Engine", "close_engine", "close_engines", "get_engine"]

log = logging.getLogger(__name__)

Engine = Union["LlamaLocalModel", "LocalModel"]

_ENGINES: dict[str, LlamaLocalModel] = {}
"""Loaded llama.cpp engines by base name, or ``<base>@<resolved adapter folder>``."""
_LOCK = threading.Lock()
_REFRESH_LOCK = threading.Lock()
_WARNED: set[str] = set()
_FAILED: dict[Path, tuple[int, int]] = {}
"""Adapter folders whose changed files could not be served, with the files' stamp then (warned once)."""


def get_engine(name: str) -> Engine:
    """The process-wide serving engine of local model ``name`` (thread-safe; loads on first use).

    ``<name>@<DIR>`` serves that model with the PEFT LoRA adapter saved in ``DIR``: one engine per base name
    and adapter folder, converted to ``DIR/adapter.gguf`` on first use; when the adapter's files change
    (a trainer saved an update), the next call converts it again and swaps it in between the engine's
    steps. Raises :class:`~.smollm.LocalModelError` for unknown names, missing weights or adapters, and
    load failures.
    """
    spec = local_model_spec(name)
    base, adapter = split_adapter(name)
    if spec.engine != "llama.cpp":
        return get_local_model(name)
    key = base if adapter is None else f"{base}@{adapter}"
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            from paperworks.models.local.llama_core import llama_cpp_available

            missing = llama_cpp_available()
            if missing is not None:
                if base not in _WARNED:
                    _WARNED.add(base)
                    log.warning(
                        "local/%s: llama-cpp-python is not usable (%s); serving it with the slower torch engine "
                        "(run `make setup` to build llama-cpp-python)",
                        base,
                        missing,
                    )
                return get_local_model(name)  # cached there (and reloaded when an adapter changes)
            engine = _load(key, spec, adapter)
            _ENGINES[key] = engine
            return engine
    if adapter is not None:
        _refresh(engine, spec, adapter)
    return engine


def _load(key: str, spec: LocalModelSpec, adapter: Path | None) -> LlamaLocalModel:
    from paperworks.models.local.llama_model import LlamaLocalModel

    gguf = spec.gguf_path()
    stamp = lora = None
    if adapter is not None:
        from paperworks.models.local.lora_gguf import export_lora_gguf

        stamp = adapter_stamp(adapter)
        lora = export_lora_gguf(adapter, base_gguf=gguf)
    try:
        engine = LlamaLocalModel(key, gguf, adapter=lora)
    except Exception as exc:
        raise LocalModelError(f"cannot load {gguf}{f' with the adapter {lora}' if lora else ''} with llama.cpp: "
                              f"{exc}") from exc
    engine.adapter_stamp = stamp
    return engine


def _refresh(engine: LlamaLocalModel, spec: LocalModelSpec, adapter: Path) -> None:
    """Swap in the adapter saved in ``adapter`` again if its files changed since ``engine`` loaded it. A
    conversion or load failure (say a save still being written) keeps the previous adapter, with a warning
    once per version of the files."""
    stamp = adapter_stamp(adapter)
    if engine.adapter_stamp == stamp:
        return
    from paperworks.models.local.lora_gguf import export_lora_gguf

    with _REFRESH_LOCK:
        stamp = adapter_stamp(adapter)
        if engine.adapter_stamp == stamp or _FAILED.get(adapter) == stamp:
            return
        try:
            took = engine.set_adapter(export_lora_gguf(adapter, base_gguf=spec.gguf_path()))
        except Exception as exc:  # noqa: BLE001 - keep serving the previous adapter
            _FAILED[adapter] = stamp
            log.warning("%s: the changed adapter cannot be served (%s); still serving the previous one",
                        adapter, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return
        engine.adapter_stamp = stamp
        log.info("%s: swapped in the updated adapter in %.3f s", adapter, took)


def close_engine(name: str) -> bool:
    """Stop and free the llama.cpp engine of local model ``name`` (``<base>`` or ``<base>@<adapter dir>``) if it
    is loaded; returns whether one was. A later :func:`get_engine` of that name loads it afresh."""
    base, adapter = split_adapter(name)
    key = base if adapter is None else f"{base}@{adapter}"
    with _LOCK:
        engine = _ENGINES.pop(key, None)
    if engine is None:
        return False
    engine.close()
    return True


def close_engines() -> None:
    """Stop and free every llama.cpp engine loaded so far (a later :func:`get_engine` loads afresh)."""
    with _LOCK:
        engines = list(_ENGINES.values())
        _ENGINES.clear()
    for engine in engines:
        engine.close()
