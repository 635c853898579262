"""What serving a PEFT LoRA adapter costs the embedded llama.cpp engine: converting it, swapping it in, and
decoding with it.

A synthetic PEFT adapter (rank ``--rank``, all seven projections of the 30 layers, random weights; only
its shapes matter here) is written in PEFT's format, then:
- ``export_s``: ``export_lora_gguf`` into a fresh file, cold (the base GGUF's metadata read too) and warm
  (median of 3);
- ``swap_s``: ``LlamaLocalModel.set_adapter`` on an idle engine, median of 5 (alternating two adapters;
  the call frees the previous adapter and clears the prefix cache);
- decode tokens/s of 1 and 4 sequences together with and without the adapter, bare ``llama_decode``
  steps in interleaved rounds (medians), as ratios to no adapter measured in the same run.

    .venv/bin/python benchmarks/lora_swap.py [--model smollm2-135m-q4_1] [--rank 16] [--threads N] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "lora_swap.json"
MODULES = {"q_proj": (576, 576), "k_proj": (192, 576), "v_proj": (192, 576), "o_proj": (576, 576),
           "gate_proj": (1536, 576), "up_proj": (1536, 576), "down_proj": (576, 1536)}
"""SmolLM2-135M's (out, in) per projection."""
ROUNDS = 4
STEPS = 48
SWAPS = 5


def write_adapter(folder: Path, rank: int, seed: int) -> None:
    """A PEFT-format LoRA adapter of every projection of the 30 layers, with random weights."""
    import numpy as np
    from safetensors.numpy import save_file

    rng = np.random.default_rng(seed)
    tensors = {}
    for layer in range(30):
        for module, (out, inp) in MODULES.items():
            block = "mlp" if module in ("gate_proj", "up_proj", "down_proj") else "self_attn"
            key = f"base_model.model.model.layers.{layer}.{block}.{module}"
            tensors[f"{key}.lora_A.weight"] = (rng.standard_normal((rank, inp)) / inp**0.5).astype(np.float32)
            tensors[f"{key}.lora_B.weight"] = (rng.standard_normal((out, rank)) * 0.01).astype(np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / "adapter_model.safetensors"))
    config = {"peft_type": "LORA", "r": rank, "lora_alpha": 2 * rank, "target_modules": sorted(MODULES),
              "bias": "none", "use_dora": False, "use_rslora": False}
    (folder / "adapter_config.json").write_text(json.dumps(config))


def measure(model_name: str, rank: int, root: Path, threads: int = 0) -> dict[str, Any]:
    from paperworks.core.paths import set_offline_env

    set_offline_env()
    from paperworks.models.local.llama_core import LlamaSettings
    from paperworks.models.local.llama_model import LlamaLocalModel
    from paperworks.models.local.lora_gguf import export_lora_gguf
    from paperworks.models.local.smollm import local_model_spec

    base = local_model_spec(model_name).gguf_path()
    write_adapter(root / "a", rank, 0)
    write_adapter(root / "b", rank, 1)
    exports = []
    for i in range(4):
        began = time.perf_counter()
        export_lora_gguf(root / "a", root / f"a{i}.gguf", base_gguf=base)
        exports.append(time.perf_counter() - began)
    lora_a = export_lora_gguf(root / "a", base_gguf=base)
    lora_b = export_lora_gguf(root / "b", base_gguf=base)

    model = LlamaLocalModel(model_name, base, LlamaSettings(n_ctx=4096, n_seq=8))
    model.generate([{"role": "user", "content": "Hi"}], max_tokens=4)  # warm up the engine thread
    swaps = [model.set_adapter(lora_a if i % 2 == 0 else lora_b) for i in range(SWAPS)]
    core = model.core
    threads = threads or core.n_threads  # half the cores: on a shared 2-core machine two threads stall at barriers
    prompt = model.prompt_ids([{"role": "user", "content": "Tell me a long story about a dragon."}])

    def rate(n: int) -> float:  # on the engine thread: no request runs meanwhile
        for seq in range(n):
            core.seq_rm(seq)
            core.decode(prompt, list(range(len(prompt))), [seq] * len(prompt), [False] * (len(prompt) - 1) + [True])
        began = time.perf_counter()
        for step in range(STEPS):
            core.decode([prompt[-1]] * n, [len(prompt) + step] * n, list(range(n)), [True] * n)
        return n * STEPS / (time.perf_counter() - began)

    def rounds() -> dict[str, list[float]]:
        core.set_threads(threads)
        figures: dict[str, list[float]] = {"plain_1": [], "plain_4": [], "lora_1": [], "lora_4": []}
        rate(1), rate(4)  # warm-up
        for _ in range(ROUNDS):
            for kind, adapter in (("plain", None), ("lora", lora_a)):
                core.set_adapter(adapter)
                figures[f"{kind}_1"].append(rate(1))
                figures[f"{kind}_4"].append(rate(4))
        return figures

    figures = model.engine.call_when_idle(rounds)
    model.close()
    med = {k: statistics.median(v) for k, v in figures.items()}
    return {
        "model": f"local/{model_name}",
        "served_weights": local_model_spec(model_name).served_weights(),
        "rank": rank,
        "adapter_tensors": 2 * 30 * len(MODULES),
        "adapter_gguf_bytes": lora_a.stat().st_size,
        "export_s_cold": round(exports[0], 3),
        "export_s_warm_median": round(statistics.median(exports[1:]), 3),
        "swap_s_median": round(statistics.median(swaps), 4),
        "swap_s_max": round(max(swaps), 4),
        "threads": threads,
        "rounds": ROUNDS,
        "steps": STEPS,
        "tokens_per_s_at_1_no_adapter": round(med["plain_1"], 1),
        "tokens_per_s_at_4_no_adapter": round(med["plain_4"], 1),
        "tokens_per_s_at_1_adapter": round(med["lora_1"], 1),
        "tokens_per_s_at_4_adapter": round(med["lora_4"], 1),
        "at_1_adapter_over_no_adapter": round(med["lora_1"] / med["plain_1"], 3),
        "at_4_adapter_over_no_adapter": round(med["lora_4"] / med["plain_4"], 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="smollm2-135m", help="a llama.cpp-served embedded model")
    ap.add_argument("--rank", type=int, default=16, help="LoRA rank of the synthetic adapter")
    ap.add_argument("--threads", type=int, default=0, help="decode threads (default: half the cores)")
    ap.add_argument("--out", type=Path, default=RESULTS, help="results JSON (default: %(default)s)")
    args = ap.parse_args()
    from paperworks.models.local.smollm import LOCAL_MODELS

    if args.model not in LOCAL_MODELS or LOCAL_MODELS[args.model].engine != "llama.cpp":
        ap.error(f"--model {args.model!r}: not a llama.cpp-served embedded model")
    load = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="lora-swap-") as tmp:
        res = measure(args.model, args.rank, Path(tmp), args.threads)
    from importlib.metadata import version

    res["cpu_count"] = os.cpu_count()
    res["load_average_1min_at_start"] = load
    res["versions"] = {"llama_cpp_python": version("llama_cpp_python"), "gguf": version("gguf"),
                       "python": sys.version.split()[0]}
    res["command"] = " ".join([".venv/bin/python", "benchmarks/lora_swap.py", *sys.argv[1:]])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
