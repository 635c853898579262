"""Memory and time of one supervised warm-start step (``AgentPolicy.sft_step``) on long targets, with the
update's memory savers off, with layer checkpointing, and with layer checkpointing plus the chunked
vocabulary projection (``loss_chunk_rows``), all three in the same run.

The batch is the oracle SFT examples of generated SPADA assemblies (``gen:spada``, our own problems, never
SPADA-Bench items): each problem gives three examples (spec, program, tests) of up to about 1,700 target
tokens, the shape that made ``examples/train_spada.yaml``'s SFT phase peak at 8.6 GB. ``--record`` writes
them to ``benchmarks/data/update_batches/spada_sft.jsonl`` (the exact token ids, as the trainer builds them);
the measurement reads that file. Each setting runs in a fresh process: SmolLM2-135M with the LoRA of the
training configs (rank 16, all seven projections, bf16 autocast), one warm-up step, then ``--repeats``
timed steps; memory is the peak RSS during the timed steps minus the RSS just before them.

    .venv/bin/python benchmarks/sft_memory.py --record        # write the batch (4 problems, seed 0)
    .venv/bin/python benchmarks/sft_memory.py [--repeats 1]   # measure -> benchmarks/results/sft_memory.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BATCH = HERE / "data" / "update_batches" / "spada_sft.jsonl"
RESULTS = HERE / "results" / "sft_memory.json"
SETTINGS = {"plain": (False, 0), "checkpointing": (True, 0), "checkpointing+chunked": (True, 256)}


def record(problems: int, seed: int) -> None:
    """The oracle SFT examples of ``problems`` generated SPADA assemblies, as token ids, into ``BATCH``."""
    from paperworks.models.local.engines import get_engine
    from paperworks.train.problems import ProblemSource
    from paperworks.train.sft import oracle_examples

    source = ProblemSource("gen:spada", "spada_bench")
    rows = source.sft_rows(seed, problems)
    with tempfile.TemporaryDirectory() as tmp:
        suite = source.write(rows, Path(tmp) / "suite")
        by_id = {str(r["id"]): r for r in rows}
        items = [(s.input, by_id[s.id]) for s in suite.samples]
        examples = oracle_examples(items, source.oracle, "spada", dict(suite.spec.config or {}),
                                   get_engine("smollm2-135m"))
    BATCH.write_text("".join(json.dumps({"prompt_ids": p, "completion_ids": c}) + "\n" for p, c in examples),
                     encoding="utf-8")
    print(f"{BATCH}: {len(examples)} examples, target tokens {sorted(len(c) for _, c in examples)}")


def _one(setting: str, repeats: int, micro: int) -> dict[str, Any]:
    """Run inside the child process: the measurements of one setting."""
    import torch

    from paperworks.backends.otb.agent_rl import AgentPolicy, LoRASettings
    from paperworks.models.local.smollm import load_local_model
    from paperworks.train.memory import _peak_mb, _reset_peak, rss_mb, trim

    torch.set_num_threads(os.cpu_count() or 1)
    checkpointing, chunk = SETTINGS[setting]
    rows = [json.loads(line) for line in BATCH.read_text(encoding="utf-8").splitlines()]
    examples = [(r["prompt_ids"], r["completion_ids"]) for r in rows]
    local = load_local_model("smollm2-135m")
    policy = AgentPolicy(local.model, LoRASettings(rank=16, alpha=32.0), lr=1e-6, seed=0)
    policy.loss_chunk_rows = chunk
    policy.sft_step(examples, lr=1e-6, micro_batch_tokens=micro, checkpointing=checkpointing)  # warm-up
    trim()
    base = rss_mb() or 0.0
    _reset_peak()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        stats = policy.sft_step(examples, lr=1e-6, micro_batch_tokens=micro, checkpointing=checkpointing)
        times.append(time.perf_counter() - started)
    peak = _peak_mb()
    return {"setting": setting, "checkpointing": checkpointing, "loss_chunk_rows": chunk, "examples": len(rows),
            "tokens": sum(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in rows),
            "target_tokens": stats["sft_tokens"], "longest_target": max(len(r["completion_ids"]) for r in rows),
            "rss_before_mb": round(base, 1), "peak_rss_mb": round(peak, 1), "step_extra_mb": round(peak - base, 1),
            "step_s": [round(t, 2) for t in times], "step_s_median": round(statistics.median(times), 2),
            "loss": stats["sft_loss"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="Write the batch file instead of measuring.")
    ap.add_argument("--problems", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--micro-batch-tokens", type=int, default=2048)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--child", choices=list(SETTINGS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.record:
        record(args.problems, args.seed)
        return
    if args.child:
        print(json.dumps(_one(args.child, args.repeats, args.micro_batch_tokens)))
        return
    runs = []
    for setting in SETTINGS:
        out = subprocess.run([sys.executable, __file__, "--child", setting, "--repeats", str(args.repeats),
                              "--micro-batch-tokens", str(args.micro_batch_tokens)],
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]), flush=True)
    plain = runs[0]
    ratios = {r["setting"]: {"memory_ratio": round(r["step_extra_mb"] / max(plain["step_extra_mb"], 1e-9), 3),
                             "peak_ratio": round(r["peak_rss_mb"] / plain["peak_rss_mb"], 3),
                             "time_ratio": round(r["step_s_median"] / plain["step_s_median"], 3),
                             "same_loss": abs(r["loss"] - plain["loss"]) <= 1e-4 * max(1.0, abs(plain["loss"]))}
              for r in runs[1:]}
    result = {"benchmark": "sft_memory",
              "command": f"python benchmarks/sft_memory.py --repeats {args.repeats} "
                         f"--micro-batch-tokens {args.micro_batch_tokens}",
              "batch": str(BATCH.relative_to(HERE.parent)), "cpu_count": os.cpu_count(),
              "micro_batch_tokens": args.micro_batch_tokens, "runs": runs, "ratios_to_plain": ratios}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(ratios, indent=2))


if __name__ == "__main__":
    main()
