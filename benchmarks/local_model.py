"""Benchmark of the embedded model (SmolLM2-135M-Instruct): load times, decode speed, prefill, memory.

Each measurement that involves loading runs in a fresh subprocess, with a fresh temporary cache:
``cold`` converts the GGUF (first use on a machine), ``warm`` reads the converted cache and then
measures decoding. If llama-cpp-python is importable, the same GGUF is decoded with it as the baseline.
Writes ``benchmarks/results/local_model.json`` (a flat object) and prints it.

    .venv/bin/python benchmarks/local_model.py
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "local_model.json"
NEW_TOKENS = 128
RUNS = 3
PROMPT = [{"role": "user", "content": "Tell me a long story about a dragon who learns to bake bread."}]
LONG_PROMPT = (
    "Summarise the following notes in two sentences. " + "The committee met on Tuesday to review the budget. " * 20
)


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def _decode_rate(model: Any, tokenizer: Any, ids: Any, **kwargs: Any) -> tuple[float, list[int]]:
    """Tokens/s between the first and last generated token (prefill excluded), and the new ids."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    stamps: list[float] = []

    class Clock(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kw: Any) -> Any:
            stamps.append(time.perf_counter())
            return torch.zeros(input_ids.shape[0], dtype=torch.bool)

    with torch.inference_mode():
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=NEW_TOKENS,
            min_new_tokens=NEW_TOKENS,
            do_sample=False,
            pad_token_id=tokenizer.eos_token_id,
            stopping_criteria=StoppingCriteriaList([Clock()]),
            **kwargs,
        )
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), out[0, ids.shape[1] :].tolist()


def child_cold() -> dict[str, Any]:
    """Load from the GGUF: conversion and cache writing (PAPERWORKS_HOME is an empty folder)."""
    from paperworks.models.local.smollm import load_local_model

    t = time.perf_counter()
    model = load_local_model("smollm2-135m")
    return {"load_s": time.perf_counter() - t, "source": model.source, "peak_rss_mb": _peak_rss_mb()}


def child_warm() -> dict[str, Any]:
    """Load from the converted cache (imports included), then measure decoding, prefill, bf16 and the generate() API."""
    t = time.perf_counter()
    import torch
    import transformers  # noqa: F401 - imports timed apart from reading the weights

    from paperworks.models.local.smollm import load_local_model

    t_import = time.perf_counter()
    local = load_local_model("smollm2-135m")
    done = time.perf_counter()
    out: dict[str, Any] = {"load_s": done - t, "imports_s": t_import - t, "weights_s": done - t_import}
    out["source"] = local.source
    model, tok = local.model, local.tokenizer
    ids = torch.tensor([local.prompt_ids(PROMPT)])
    _decode_rate(model, tok, ids)  # warm-up
    rates: list[float] = []
    greedy: list[int] = []
    for _ in range(RUNS):
        rate, greedy = _decode_rate(model, tok, ids)
        rates.append(rate)
    out["decode_tokens_per_s"] = statistics.median(rates)
    out["peak_rss_mb"] = _peak_rss_mb()

    long_ids = torch.tensor([local.prompt_ids([{"role": "user", "content": LONG_PROMPT}])])
    times = []
    with torch.inference_mode():
        for _ in range(RUNS + 1):
            t = time.perf_counter()
            model(input_ids=long_ids, logits_to_keep=1)
            times.append(time.perf_counter() - t)
    out["prefill_tokens"] = int(long_ids.shape[1])
    out["prefill_s"] = statistics.median(times[1:])

    t = time.perf_counter()
    result = local.generate(PROMPT, max_tokens=NEW_TOKENS, stop=["\n\n\n\n"])
    out["api_tokens_per_s"] = result.completion_tokens / (time.perf_counter() - t)

    bf16 = model.to(torch.bfloat16)
    _decode_rate(bf16, tok, ids)
    rate, greedy_bf16 = _decode_rate(bf16, tok, ids)
    out["bf16_decode_tokens_per_s"] = rate
    out["bf16_greedy_identical"] = greedy_bf16 == greedy
    return out


def child_llamacpp() -> dict[str, Any]:
    """The same GGUF decoded by llama.cpp (llama-cpp-python), measured the same way."""
    import llama_cpp

    from paperworks.models.local.smollm import local_model_spec

    gguf = local_model_spec("smollm2-135m").gguf_path()
    t = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(gguf), n_ctx=1024, n_threads=os.cpu_count(), verbose=False)
    out: dict[str, Any] = {"load_s": time.perf_counter() - t, "version": llama_cpp.__version__}
    from paperworks.models.local.smollm import load_local_model

    prompt_ids = load_local_model("smollm2-135m").prompt_ids(PROMPT)
    rates = []
    for _ in range(RUNS + 1):
        llm.reset()
        stamps = []
        for _token in llm.generate(prompt_ids, top_k=1, top_p=1.0, temp=0.0, reset=True):
            stamps.append(time.perf_counter())
            if len(stamps) >= NEW_TOKENS:
                break
        rates.append((len(stamps) - 1) / (stamps[-1] - stamps[0]))
    out["decode_tokens_per_s"] = statistics.median(rates[1:])
    llm.close()
    return out


def _child(mode: str, home: str) -> dict[str, Any]:
    env = dict(os.environ, PAPERWORKS_HOME=home)
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode], env=env, capture_output=True, text=True, timeout=900
    )
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child {mode!r} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> dict[str, Any]:
    """Run every measurement and write the results file."""
    import importlib.util

    import torch
    import transformers

    res: dict[str, Any] = {
        "model": "local/smollm2-135m",
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "dtype": "float32",
        "new_tokens": NEW_TOKENS,
    }
    with tempfile.TemporaryDirectory(prefix="pw-bench-") as home:
        cold = _child("cold", home)
        warm = _child("warm", home)
        res["cold_load_s"] = round(cold["load_s"], 2)
        res["cold_peak_rss_mb"] = round(cold["peak_rss_mb"])
        res["warm_load_s"] = round(warm["load_s"], 3)
        res["warm_imports_s"] = round(warm["imports_s"], 3)
        res["warm_weights_s"] = round(warm["weights_s"], 3)
        res["warm_load_goal_s"] = 5.0
        res["warm_load_ok"] = warm["load_s"] < 5.0 and warm["source"] == "cache"
        res["decode_tokens_per_s"] = round(warm["decode_tokens_per_s"], 1)
        res["api_tokens_per_s"] = round(warm["api_tokens_per_s"], 1)
        res["prefill_tokens"] = warm["prefill_tokens"]
        res["prefill_s"] = round(warm["prefill_s"], 3)
        res["peak_rss_mb"] = round(warm["peak_rss_mb"])
        res["bf16_decode_tokens_per_s"] = round(warm["bf16_decode_tokens_per_s"], 1)
        res["bf16_speedup"] = round(warm["bf16_decode_tokens_per_s"] / warm["decode_tokens_per_s"], 2)
        res["bf16_greedy_identical"] = warm["bf16_greedy_identical"]
        if importlib.util.find_spec("llama_cpp") is None:
            res["llama_cpp"] = "not installed"
        else:
            try:
                llama = _child("llamacpp", home)
            except RuntimeError as exc:
                res["llama_cpp"] = f"failed: {str(exc).splitlines()[-1][:200]}"
            else:
                res["llama_cpp"] = llama["version"]
                res["llamacpp_load_s"] = round(llama["load_s"], 3)
                res["llamacpp_decode_tokens_per_s"] = round(llama["decode_tokens_per_s"], 1)
                ratio = llama["decode_tokens_per_s"] / warm["decode_tokens_per_s"]
                res["decode_ratio_vs_llamacpp"] = round(ratio, 2)
                res["decode_ratio_goal"] = 3.0
                res["decode_ratio_ok"] = ratio <= 3.0
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))
    return res


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        from paperworks.core.paths import set_offline_env

        set_offline_env()
        children = {"cold": child_cold, "warm": child_warm, "llamacpp": child_llamacpp}
        print(json.dumps(children[sys.argv[2]]()))
    else:
        main()
