"""A PEFT LoRA adapter of the embedded Llama model as a llama.cpp LoRA adapter GGUF, and the adapter part of
``local/<name>@<DIR>`` model strings.

The format is the one llama.cpp's loader checks (``src/llama-adapter.cpp``): ``general.type = adapter``,
``adapter.type = lora``, ``adapter.lora.alpha`` (llama.cpp scales by ``alpha / rank``), the base model's
architecture, and per adapted matrix ``<gguf tensor name>.lora_a`` (numpy ``(rank, in)``) and ``.lora_b``
(numpy ``(out, rank)``) — PEFT's own layouts; gguf-py writes numpy shapes reversed, as ggml's ``ne``.

llama.cpp's converter stores the query and key projections of Llama models with their rows permuted
(pairs of rotary halves interleaved per head); transformers undoes that when it reads the GGUF. A LoRA
update of those projections adds ``B·A`` to the stored rows, so ``lora_b``'s rows get the same
permutation (``n_head`` heads for the query, ``n_head_kv`` for the key).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from paperworks.models.local.smollm import LocalModelError

GGUF_NAMES = {"q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v", "o_proj": "attn_output",
              "gate_proj": "ffn_gate", "up_proj": "ffn_up", "down_proj": "ffn_down"}
"""transformers Llama linear layer → llama.cpp tensor name (``blk.N.<name>.weight``)."""
ADAPTER_FILE = "adapter.gguf"


def split_adapter(name: str) -> tuple[str, Path | None]:
    """``smollm2-135m@runs/x/adapter`` → (``smollm2-135m``, that folder resolved); no ``@``: (name, None)."""
    base, sep, folder = name.partition("@")
    if not sep:
        return name, None
    if not folder.strip():
        raise LocalModelError(f"'{name}': nothing after '@' (expected local/<model>@<adapter folder>)")
    return base, Path(folder).expanduser().resolve()


def check_adapter_dir(folder: Path) -> None:
    """A one-line ``LocalModelError`` unless ``folder`` holds a PEFT LoRA adapter."""
    if not folder.is_dir():
        raise LocalModelError(f"adapter folder {folder} does not exist")
    for needed in ("adapter_config.json", "adapter_model.safetensors"):
        if not (folder / needed).is_file():
            raise LocalModelError(f"adapter folder {folder} has no {needed} (not a PEFT LoRA adapter)")


def _permute_rows(rows: Any, n_head: int) -> Any:
    """llama.cpp's rotary row order for a q/k projection's output rows (numpy ``(out, ...)``)."""
    out = rows.shape[0]
    return rows.reshape(n_head, 2, out // n_head // 2, *rows.shape[1:]).swapaxes(1, 2).reshape(rows.shape)


def _base_meta(gguf: Path) -> dict[str, Any]:
    from gguf import GGUFReader

    reader = GGUFReader(str(gguf))

    def field(key: str) -> Any:
        f = reader.fields.get(key)
        if f is None:
            return None
        value = f.parts[f.data[0]]
        return bytes(value).decode() if f.types and f.types[0].name == "STRING" else int(value[0])

    arch = field("general.architecture")
    return {"arch": arch, "n_head": field(f"{arch}.attention.head_count"),
            "n_head_kv": field(f"{arch}.attention.head_count_kv"), "n_layer": field(f"{arch}.block_count")}


def export_lora_gguf(adapter_dir: Path, base_gguf: Path, out: Path | None = None) -> Path:
    """Convert the PEFT LoRA adapter in ``adapter_dir`` for llama.cpp (default ``adapter_dir/adapter.gguf``);
    a copy newer than the adapter's weights is reused. Raises :class:`LocalModelError` in one line for an
    adapter it cannot convert."""
    import numpy as np
    from gguf import GGUFWriter
    from safetensors.numpy import load_file

    adapter_dir = Path(adapter_dir)
    check_adapter_dir(adapter_dir)
    out = Path(out) if out is not None else adapter_dir / ADAPTER_FILE
    weights = adapter_dir / "adapter_model.safetensors"
    if out.is_file() and out.stat().st_mtime_ns >= weights.stat().st_mtime_ns:
        return out
    config = json.loads((adapter_dir / "adapter_config.json").read_text(encoding="utf-8"))
    if config.get("use_dora"):
        raise LocalModelError(f"{adapter_dir}: DoRA adapters cannot be served by llama.cpp")
    if config.get("peft_type", "LORA") != "LORA":
        raise LocalModelError(f"{adapter_dir}: a {config.get('peft_type')} adapter, not LoRA")
    rank = int(config.get("r") or 0)
    if rank <= 0:
        raise LocalModelError(f"{adapter_dir}: adapter_config.json has no rank r")
    alpha = float(config.get("lora_alpha") or rank)
    scale = alpha / math.sqrt(rank) if config.get("use_rslora") else alpha / rank
    meta = _base_meta(base_gguf)
    tensors = load_file(str(weights))
    writer_tensors: dict[str, Any] = {}
    for key, value in tensors.items():
        parts = key.split(".")
        if len(parts) < 4 or parts[-1] != "weight" or parts[-2] not in ("lora_A", "lora_B"):
            raise LocalModelError(f"{adapter_dir}: unexpected adapter tensor {key}")
        module = parts[-3]
        if module not in GGUF_NAMES or "layers" not in parts:
            raise LocalModelError(f"{adapter_dir}: cannot serve a LoRA on '{module}' ({key}) with llama.cpp")
        layer = int(parts[parts.index("layers") + 1])
        if meta["n_layer"] is not None and layer >= meta["n_layer"]:
            raise LocalModelError(f"{adapter_dir}: layer {layer} is beyond the base model's {meta['n_layer']}")
        data = np.ascontiguousarray(value.astype(np.float32))
        if parts[-2] == "lora_B" and module in ("q_proj", "k_proj") and meta["arch"] == "llama":
            data = np.ascontiguousarray(_permute_rows(data, meta["n_head"] if module == "q_proj"
                                                      else meta["n_head_kv"] or meta["n_head"]))
        suffix = "lora_a" if parts[-2] == "lora_A" else "lora_b"
        writer_tensors[f"blk.{layer}.{GGUF_NAMES[module]}.weight.{suffix}"] = data
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    writer = GGUFWriter(str(tmp), meta["arch"])
    writer.add_type("adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(scale * rank))
    for name in sorted(writer_tensors):
        writer.add_tensor(name, writer_tensors[name])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(tmp, out)
    return out
