"""A PEFT LoRA adapter of the embedded Llama model as a llama.cpp LoRA adapter GGUF.

The format is the one llama.cpp's loader checks (``src/llama-adapter.cpp``): ``general.type = adapter``,
``general.architecture`` equal to the base model's, ``adapter.type = lora``, ``adapter.lora.alpha``, and
per adapted matrix ``<base tensor name>.lora_a`` and ``.lora_b``. With a base tensor of ggml shape
``ne = (in, out)``, llama.cpp wants ``lora_a`` with ``ne = (in, r)`` and ``lora_b`` with ``ne = (r, out)``:
gguf-py writes numpy shapes reversed as ``ne``, so these are PEFT's own ``lora_A (r, in)`` and
``lora_B (out, r)`` arrays, unchanged. llama.cpp adds ``(alpha / r) * B (A x)`` with ``r`` read from
``lora_b`` per matrix, as PEFT does with ``lora_alpha / r``; rsLoRA's ``lora_alpha / sqrt(r)`` is folded
into ``lora_b``.

llama.cpp's converter stores the query and key projections of Llama models with their output rows
permuted (the two rotary halves of each head interleaved); transformers undoes that when it reads the
GGUF, so the torch twin has the original order. A LoRA update adds ``B A`` to those stored rows, so
``lora_b``'s rows get the same permutation (``n_head`` heads for the query, ``n_head_kv`` for the key).
"""

from __future__ import annotations

import functools
import json
import math
import os
from pathlib import Path
from typing import Any

from paperworks.models.local.smollm import LOCAL_MODELS, LocalModelError, adapter_stamp, check_adapter_dir

__all__ = ["ADAPTER_FILE", "GGUF_NAMES", "export_lora_gguf"]

GGUF_NAMES = {"q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v", "o_proj": "attn_output",
              "gate_proj": "ffn_gate", "up_proj": "ffn_up", "down_proj": "ffn_down"}
"""transformers Llama linear layer -> llama.cpp tensor name (``blk.N.<name>.weight``)."""
ADAPTER_FILE = "adapter.gguf"
"""The converted adapter's default file name, beside the PEFT files."""
_UNSUPPORTED = ("use_dora", "use_qalora", "alora_invocation_tokens", "lora_bias", "fan_in_fan_out",
                "modules_to_save", "trainable_token_indices", "layer_replication", "target_parameters",
                "alpha_pattern", "megatron_config", "velora_config", "monteclora_config", "arrow_config",
                "kasa_config", "use_bdlora")
"""adapter_config.json settings llama.cpp's plain LoRA cannot serve (refused when set)."""


def _permute_rows(rows: Any, n_head: int) -> Any:
    """A q/k projection's output rows (numpy ``(out, ...)``) in llama.cpp's rotary layout: within each head,
    row ``2i`` is the original row ``i`` of the first half and row ``2i+1`` row ``i`` of the second."""
    out = rows.shape[0]
    return rows.reshape(n_head, 2, out // n_head // 2, *rows.shape[1:]).swapaxes(1, 2).reshape(rows.shape)


@functools.lru_cache(maxsize=4)
def _base_meta(gguf: str, mtime_ns: int) -> dict[str, Any]:
    """Architecture, head counts and the 2-D tensor shapes (``name -> (out, in)``) of a base GGUF."""
    from gguf import GGUFReader

    reader = GGUFReader(gguf)

    def field(key: str) -> Any:
        f = reader.fields.get(key)
        if f is None:
            return None
        value = f.parts[f.data[0]]
        return bytes(value).decode() if f.types and f.types[0].name == "STRING" else int(value[0])

    arch = field("general.architecture")
    shapes = {t.name: (int(t.shape[1]), int(t.shape[0])) for t in reader.tensors if len(t.shape) == 2}
    return {"arch": arch, "n_head": field(f"{arch}.attention.head_count"),
            "n_head_kv": field(f"{arch}.attention.head_count_kv"), "shapes": shapes}


def _is_adapter_file(path: Path) -> bool:
    """Whether ``path`` is a GGUF whose ``general.type`` is ``adapter`` (what this module writes)."""
    from gguf import GGUFReader

    try:
        field = GGUFReader(str(path)).fields.get("general.type")
        return field is not None and bytes(field.parts[field.data[0]]).decode() == "adapter"
    except Exception:  # noqa: BLE001 - not a readable GGUF
        return False


def _config(adapter_dir: Path) -> dict[str, Any]:
    """The adapter's config, after refusing (in one line) what cannot be converted."""
    try:
        config = json.loads((adapter_dir / "adapter_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LocalModelError(f"{adapter_dir / 'adapter_config.json'}: unreadable ({exc})") from None
    if not isinstance(config, dict):
        raise LocalModelError(f"{adapter_dir / 'adapter_config.json'}: not a JSON object")
    if str(config.get("peft_type", "LORA")).upper() != "LORA":
        raise LocalModelError(f"{adapter_dir}: a {config.get('peft_type')} adapter; llama.cpp serves LoRA only")
    for key in _UNSUPPORTED:
        if config.get(key):
            what = "DoRA" if key == "use_dora" else f"'{key}'"
            raise LocalModelError(f"{adapter_dir}: adapters with {what} cannot be served by llama.cpp")
    if config.get("bias", "none") != "none":
        raise LocalModelError(f"{adapter_dir}: adapters with bias={config['bias']!r} cannot be served by llama.cpp")
    alpha = config.get("lora_alpha", 8)
    if not isinstance(alpha, int | float) or isinstance(alpha, bool) or alpha <= 0:  # llama.cpp reads 0 as "no scaling"
        raise LocalModelError(f"{adapter_dir / 'adapter_config.json'}: lora_alpha {alpha!r} is not a positive number")
    return config


def _parse_key(adapter_dir: Path, key: str) -> tuple[int, str, str]:
    """``base_model.model.model.layers.3.self_attn.q_proj.lora_A.weight`` -> ``(3, "q_proj", "lora_a")``."""
    parts = key.split(".")
    if len(parts) < 4 or parts[-1] != "weight" or parts[-2] not in ("lora_A", "lora_B"):
        raise LocalModelError(f"{adapter_dir}: unexpected adapter tensor {key} (not a LoRA A/B weight)")
    module = parts[-3]
    if module not in GGUF_NAMES or "layers" not in parts[:-3] or not parts[parts.index("layers") + 1].isdigit():
        raise LocalModelError(f"{adapter_dir}: cannot serve a LoRA on '{module}' ({key}) with llama.cpp; "
                              f"known modules: {', '.join(GGUF_NAMES)}")
    return int(parts[parts.index("layers") + 1]), module, parts[-2].lower()


def export_lora_gguf(adapter_dir: Path, out: Path | None = None, *, base_gguf: Path | None = None) -> Path:
    """Convert the PEFT LoRA adapter in ``adapter_dir`` (``adapter_config.json`` +
    ``adapter_model.safetensors``) into a llama.cpp LoRA adapter GGUF at ``out`` (default
    ``adapter_dir/adapter.gguf``) and return its path. An ``out`` newer than both adapter files is reused.

    ``base_gguf`` is the model it adapts (default: the embedded model's shipped GGUF; every embedded name is
    a copy of it with the same shapes). Raises :class:`LocalModelError` in one line for an adapter it
    cannot convert: DoRA and other variants, modules llama.cpp's Llama graph has no LoRA hook for, or
    matrices of another shape than the base model's.
    """
    import numpy as np
    from gguf import GGUFWriter
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    adapter_dir = Path(adapter_dir)
    check_adapter_dir(adapter_dir)
    out = Path(out) if out is not None else adapter_dir / ADAPTER_FILE
    if out.is_file() and not _is_adapter_file(out):
        raise LocalModelError(f"export_lora_gguf: {out} exists and is not a LoRA adapter GGUF; not overwriting it "
                              "(the base model is the keyword argument base_gguf=)")
    if out.is_file() and out.stat().st_mtime_ns > max(adapter_stamp(adapter_dir)):
        return out
    config = _config(adapter_dir)
    base = Path(base_gguf) if base_gguf is not None else LOCAL_MODELS["smollm2-135m"].source_gguf()
    meta = _base_meta(str(base), base.stat().st_mtime_ns)
    try:
        tensors = load_file(str(adapter_dir / "adapter_model.safetensors"))
    except (OSError, SafetensorError) as exc:
        raise LocalModelError(f"{adapter_dir / 'adapter_model.safetensors'}: unreadable ({exc})") from None
    alpha = float(config.get("lora_alpha", 8))
    pairs: dict[str, dict[str, Any]] = {}
    for key, value in tensors.items():
        layer, module, part = _parse_key(adapter_dir, key)
        pairs.setdefault(f"blk.{layer}.{GGUF_NAMES[module]}.weight", {"module": module})[part] = value
    if not pairs:
        raise LocalModelError(f"{adapter_dir}: the adapter holds no LoRA weights")
    arrays: dict[str, Any] = {}
    for name, pair in sorted(pairs.items()):
        a, b = pair.get("lora_a"), pair.get("lora_b")
        if a is None or b is None or a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[1]:
            raise LocalModelError(f"{adapter_dir}: {name} has no matching lora_A (r, in) / lora_B (out, r) pair")
        shape = meta["shapes"].get(name)
        if shape is None:
            raise LocalModelError(f"{adapter_dir}: {name} is not in the base model {base.name}")
        if (b.shape[0], a.shape[1]) != shape:
            raise LocalModelError(f"{adapter_dir}: {name} is {b.shape[0]}x{a.shape[1]} in the adapter, "
                                  f"{shape[0]}x{shape[1]} in the base model {base.name} (another model's adapter?)")
        rank = a.shape[0]
        b = b.astype(np.float32)
        if config.get("use_rslora"):  # PEFT: alpha / sqrt(r); llama.cpp: alpha / r
            b = b * np.float32(math.sqrt(rank))
        if meta["arch"] == "llama" and pair["module"] in ("q_proj", "k_proj"):
            heads = meta["n_head"] if pair["module"] == "q_proj" else meta["n_head_kv"] or meta["n_head"]
            b = _permute_rows(b, heads)
        arrays[f"{name}.lora_a"] = np.ascontiguousarray(a.astype(np.float32))
        arrays[f"{name}.lora_b"] = np.ascontiguousarray(b)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        writer = GGUFWriter(str(tmp), meta["arch"])
        writer.add_type("adapter")
        writer.add_string("adapter.type", "lora")
        writer.add_float32("adapter.lora.alpha", alpha)
        for name, array in arrays.items():
            writer.add_tensor(name, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out
