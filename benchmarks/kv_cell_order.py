"""Why long greedy replies differ with several requests in flight (``eval_determinism_spada6.json``): does a
sequence's next-token logits depend on where its KV cells lie in llama.cpp's unified cache?

One 700-token prompt, one decoded token, the embedded model on the batch-invariant build, compared bit for bit
with the same prompt prefilled alone into an empty cache (cells 0..699 in position order):

- ``hole_before``: another sequence took the first cells and was freed before the prompt came (in order);
- ``interleaved``: the prompt prefilled in chunks alternating with another sequence's (in order, with gaps);
- ``out_of_order``: another sequence took the first cells, the prompt's first 300 positions went after them,
  the other sequence was freed, and the prompt's later positions filled the freed cells, so they lie *before*
  its earlier ones. This is what continuous batching does when a request finishes while another is mid-reply;
- ``copied_prefix``: the prompt taken over from another sequence that holds it and more (``LlamaCore.seq_cp``).

Each case runs twice: with a KV stream per sequence (paperworks' default since this was found) and with
llama.cpp's unified cache (``PAPERWORKS_LOCAL_KV_UNIFIED=1``, the default before).

    python benchmarks/kv_cell_order.py           # writes benchmarks/results/kv_cell_order.json (seconds)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "kv_cell_order.json"
TEXT = ("The river keeps its own calendar: it rises in spring, it narrows in August, and in the long autumn it "
        "carries leaves past the mill where the miller counts them as other people count coins. ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2-135m-bf16")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from paperworks.core.paths import set_offline_env

    set_offline_env()
    from paperworks.models.local.llama_core import LlamaCore, LlamaSettings
    from paperworks.models.local.smollm import local_model_spec
    from paperworks.models.local.weights import _system_info

    def run(unified: bool) -> tuple[int, np.ndarray, dict[str, np.ndarray]]:
        core = LlamaCore(local_model_spec(args.model).gguf_path(),
                         LlamaSettings(n_ctx=4096, n_seq=4, n_threads=2, n_threads_batch=2,
                                      kv_unified=unified))
        try:
            prompt = core.tokenize(TEXT * 24)[:700]
            filler = core.tokenize(TEXT * 6)[:100]

            def fill(seq: int, toks: list[int], start: int = 0) -> None:
                for i in range(0, len(toks), 63):
                    chunk = toks[i:i + 63]
                    core.decode(chunk, list(range(start + i, start + i + len(chunk))), [seq] * len(chunk),
                                [False] * len(chunk))

            def clear() -> None:
                for s in range(4):
                    core.seq_rm(s)

            def next_logits() -> np.ndarray:
                core.decode([prompt[-1]], [len(prompt)], [0], [True])
                return np.array(core.logits(0), copy=True)

            clear()
            fill(0, prompt)
            alone = next_logits()
            cases: dict[str, np.ndarray] = {}
            clear()
            fill(1, filler)
            core.seq_rm(1)
            fill(0, prompt)
            cases["hole_before"] = next_logits()
            clear()
            for i in range(0, len(prompt), 63):
                fill(0, prompt[i:i + 63], start=i)
                fill(1, filler[:20], start=(i // 63) * 20)
            cases["interleaved"] = next_logits()
            clear()
            fill(1, filler)
            fill(0, prompt[:300])
            core.seq_rm(1)
            fill(0, prompt[300:], start=300)
            cases["out_of_order"] = next_logits()
            clear()
            fill(2, prompt + filler[:50])
            core.seq_cp(2, 0, len(prompt))  # a cached prefix handed over (a stream copy, cut back)
            cases["copied_prefix"] = next_logits()
        finally:
            core.close()
        return len(prompt), alone, cases

    modes = {"streams": run(False), "unified": run(True)}
    results = {
        "benchmark": "kv_cell_order",
        "command": f"python benchmarks/kv_cell_order.py {' '.join(sys.argv[1:])}".strip(),
        "model": args.model, "batch_invariant_build": "BATCH_INVARIANT = 1" in _system_info(),
        "prompt_tokens": modes["streams"][0],
        "kv_cells_per_sequence": {"streams": 1024, "unified": 4096},
        "modes": {mode: {name: {"bit_identical": bool(np.array_equal(alone, got)),
                                "max_abs_logit_diff": float(np.abs(alone - got).max()),
                                "same_argmax": int(alone.argmax()) == int(got.argmax())}
                         for name, got in cases.items()}
                  for mode, (_, alone, cases) in modes.items()},
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(results["modes"], indent=1))


if __name__ == "__main__":
    main()
