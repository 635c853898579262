"""What idle KV cells cost the embedded engine: bare ``llama_decode`` steps with and without other sequences'
cells in the shared (unified) cache.

llama.cpp's unified KV cache attends over every cell below the highest one in use; cells of other sequences
are masked, but the CPU flash-attention kernel still reads and tests the mask of each one, in every head of
every layer. This measures decode tokens/s of 1 and of 4 sequences together while 8 idle sequences hold 0,
2,000, 6,000 or 14,000 cells, in interleaved rounds (the median is kept), and writes
``benchmarks/results/kv_extent.json``. It is the measurement behind ``LlamaSettings.idle_horizon``:

    .venv/bin/python benchmarks/kv_extent.py [--model smollm2-135m-bf16] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "kv_extent.json"
IDLE_CELLS = (0, 2000, 6000, 14000)
ROUNDS = 4
STEPS = 48


def measure(model_name: str) -> dict[str, Any]:
    from paperworks.core.paths import set_offline_env

    set_offline_env()
    from paperworks.models.local.llama_model import LlamaLocalModel
    from paperworks.models.local.smollm import local_model_spec

    model = LlamaLocalModel(model_name, local_model_spec(model_name).gguf_path())
    core = model.core
    threads = max(core.thread_choices or (core.n_threads,))
    core.set_threads(threads)
    prompt = model.prompt_ids([{"role": "user", "content": "Tell me a long story about a dragon."}])

    def fill(seq: int, n: int) -> None:
        core.seq_rm(seq)
        tokens = (prompt * (n // len(prompt) + 1))[:n]
        for i in range(0, n, 63):
            chunk = tokens[i : i + 63]
            core.decode(chunk, list(range(i, i + len(chunk))), [seq] * len(chunk), [False] * (len(chunk) - 1) + [True])

    def rate(n: int) -> float:
        for seq in range(n):
            fill(seq, len(prompt))
        t = time.perf_counter()
        for step in range(STEPS):
            core.decode([prompt[-1]] * n, [len(prompt) + step] * n, list(range(n)), [True] * n)
        return n * STEPS / (time.perf_counter() - t)

    rate(1), rate(4)  # warm-up
    figures: dict[int, tuple[list[float], list[float]]] = {c: ([], []) for c in IDLE_CELLS}
    for _ in range(ROUNDS):
        for cells, (one, four) in figures.items():
            for seq in range(8, 16):
                core.seq_rm(seq)
            if cells:
                for seq in range(8, 16):
                    fill(seq, cells // 8)
            one.append(rate(1))
            four.append(rate(4))
    model.close()
    out: dict[str, Any] = {"model": f"local/{model_name}", "threads": threads, "rounds": ROUNDS, "steps": STEPS}
    base1, base4 = statistics.median(figures[0][0]), statistics.median(figures[0][1])
    for cells, (one, four) in figures.items():
        out[f"idle_{cells}"] = {
            "tokens_per_s_at_1": round(statistics.median(one), 1),
            "tokens_per_s_at_4": round(statistics.median(four), 1),
            "at_1_over_no_idle_cells": round(statistics.median(one) / base1, 3),
            "at_4_over_no_idle_cells": round(statistics.median(four) / base4, 3),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="smollm2-135m-bf16", help="a llama.cpp-served embedded model")
    ap.add_argument("--out", type=Path, default=RESULTS, help="results JSON (default: %(default)s)")
    args = ap.parse_args()
    from paperworks.models.local.smollm import LOCAL_MODELS

    if args.model not in LOCAL_MODELS or LOCAL_MODELS[args.model].engine != "llama.cpp":
        ap.error(f"--model {args.model!r}: not a llama.cpp-served embedded model")
    res = measure(args.model)
    res["cpu_count"] = os.cpu_count()
    res["load_average_1min_at_start"] = round(os.getloadavg()[0], 2)
    res["command"] = " ".join([".venv/bin/python", "benchmarks/kv_extent.py", *sys.argv[1:]])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
