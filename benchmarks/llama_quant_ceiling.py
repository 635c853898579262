"""How much can batching gain on this machine, per quantisation of the embedded model, and at what cost?

For the shipped Q4_1 GGUF and copies requantised from it here (Q4_0, Q4_K, Q8_0; written to a temporary
folder, never kept), all in this one run:

- the batching ceiling: tokens/s of bare ``llama_decode`` steps of 1, 4 and 8 tokens (one per sequence,
  no sampling, no engine), on 1 and on 2 threads, the best kept; the ratio at 4 over 1 is the most any
  batching engine can reach with these kernels on these cores;
- quality: mean next-token negative log-likelihood on a fixed text (the README and DESIGN.md, 1,500
  tokens) and top-1 agreement with Q4_1.

Writes ``benchmarks/results/llama_quant_ceiling.json``.

    .venv/bin/python benchmarks/llama_quant_ceiling.py
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "benchmarks" / "results" / "llama_quant_ceiling.json"
# llama.cpp's LLAMA_FTYPE_* values; the float types are dequantised from the shipped Q4_1 (no better weights exist here)
FTYPES = {"q4_0": 2, "q8_0": 7, "q4_k": 15, "f16": 1, "bf16": 32, "f32": 0}
DEFAULT_VARIANTS = ("q4_1", "q4_0", "q8_0", "q4_k")
STEPS, ROUNDS, TEXT_TOKENS = 32, 3, 1500


def ceiling(core: Any) -> dict[str, float]:
    prompt = core.tokenize("<|im_start|>user\nTell me a long story about a dragon.<|im_end|>\n<|im_start|>assistant\n")
    best: dict[tuple[int, int], float] = {}
    for _ in range(ROUNDS):
        for n in (1, 4, 8):
            for threads in (1, 2):
                core.set_threads(threads)
                for seq in range(n):
                    core.seq_rm(seq)
                    core.decode(prompt, list(range(len(prompt))), [seq] * len(prompt),
                                [False] * (len(prompt) - 1) + [True])
                t = time.perf_counter()
                for step in range(STEPS):
                    core.decode([prompt[-1]] * n, [len(prompt) + step] * n, list(range(n)), [True] * n)
                rate = n * STEPS / (time.perf_counter() - t)
                best[(n, threads)] = max(best.get((n, threads), 0.0), rate)
    out = {f"tokens_per_s_at_{n}_on_{t}_threads": round(v, 1) for (n, t), v in sorted(best.items())}
    one = max(best[(1, 1)], best[(1, 2)])
    for n in (4, 8):
        out[f"ceiling_speedup_at_{n}"] = round(max(best[(n, 1)], best[(n, 2)]) / one, 2)
    return out


def quality(core: Any, text: str) -> tuple[float, list[int]]:
    toks = core.tokenize(text)[:TEXT_TOKENS]
    nll, top1 = [], []
    for i in range(0, len(toks) - 1, 50):
        chunk = toks[i : i + 50]
        core.decode(chunk, list(range(i, i + len(chunk))), [0] * len(chunk), [True] * len(chunk))
        for j in range(len(chunk)):
            if i + j + 1 < len(toks):
                lg = core.logits(j).astype(np.float64)
                lg -= lg.max()
                nll.append(-(lg[toks[i + j + 1]] - np.log(np.exp(lg).sum())))
                top1.append(int(lg.argmax()))
    core.seq_rm(0)
    return float(np.mean(nll)), top1


def main(argv: list[str] | None = None) -> dict[str, Any]:
    import argparse

    import llama_cpp

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                    help=f"comma-separated, from q4_1 (shipped), {', '.join(FTYPES)}")
    ap.add_argument("--out", type=Path, default=RESULTS, help="results JSON (default: %(default)s)")
    args = ap.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    bad = [v for v in variants if v != "q4_1" and v not in FTYPES]
    if bad or not variants:
        ap.error(f"--variants: unknown {', '.join(bad) or '(none given)'}; choose from q4_1, {', '.join(FTYPES)}")

    from paperworks.core.paths import set_offline_env
    from paperworks.models.local.llama_core import LlamaCore, LlamaSettings
    from paperworks.models.local.smollm import local_model_spec

    set_offline_env()
    src = local_model_spec("smollm2-135m").gguf_path()
    text = (ROOT / "README.md").read_text()[:6000] + (ROOT.parent / "shared" / "DESIGN.md").read_text()[:6000] \
        if (ROOT.parent / "shared" / "DESIGN.md").exists() else (ROOT / "README.md").read_text()[:12000]
    started = time.perf_counter()
    res: dict[str, Any] = {"gguf": src.name, "cpu_count": os.cpu_count(),
                           "load_average_1min_at_start": round(os.getloadavg()[0], 2),
                           "llama_cpp_system_info": llama_cpp.llama_print_system_info().decode().strip(),
                           "variants": {}}
    with tempfile.TemporaryDirectory() as tmp:
        paths: dict[str, Path] = {"q4_1": src} if "q4_1" in variants else {}
        for name, ftype in FTYPES.items():
            if name not in variants:
                continue
            params = llama_cpp.llama_model_quantize_default_params()
            params.ftype, params.allow_requantize, params.nthread = ftype, True, 1
            dst = Path(tmp) / f"{name}.gguf"
            if llama_cpp.llama_model_quantize(str(src).encode(), str(dst).encode(), ctypes.byref(params)) != 0:
                raise RuntimeError(f"requantising to {name} failed")
            paths[name] = dst
        base_top1: list[int] = []
        for name, path in paths.items():
            core = LlamaCore(Path(path), LlamaSettings(n_ctx=4096, n_seq=8))
            row: dict[str, Any] = {"file_mb": round(Path(path).stat().st_size / 2**20, 1)}
            mean_nll, top1 = quality(core, text)
            base_top1 = base_top1 or top1
            row["mean_nll"], row["perplexity"] = round(mean_nll, 4), round(float(np.exp(mean_nll)), 2)
            agree = float(np.mean(np.array(top1) == np.array(base_top1)))
            row[f"top1_agreement_with_{next(iter(paths))}"] = round(agree, 3)
            row.update(ceiling(core))
            core.close()
            res["variants"][name] = row
            print(name, row, flush=True)
    res["elapsed_s"] = round(time.perf_counter() - started, 1)
    res["command"] = " ".join([".venv/bin/python", "benchmarks/llama_quant_ceiling.py", *(argv or sys.argv[1:])])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    return res


if __name__ == "__main__":
    main()
