"""Memory and time of one policy-gradient update (``AgentPolicy.rl_step``) with and without activation
checkpointing, on recorded batches of real training steps (``benchmarks/data/update_batches``).

Each (batch, setting) runs in a fresh process: SmolLM2-135M is loaded with the LoRA adapter of
``examples/train_arith.yaml`` (rank 16, all seven projections, bf16 autocast), then one warm-up step and
``--repeats`` timed steps run on the batch (rewards alternate 1, 0 within pairs, so every call is trained).
Memory is the process's peak resident set during the timed steps minus its size just before them
(``VmHWM`` reset through ``/proc/self/clear_refs``), i.e. what the update itself needs on top of the loaded
model. Results are ratios of checkpointing to no checkpointing measured in the same run.

    .venv/bin/python benchmarks/update_memory.py [--repeats 2] [--micro-batch-tokens 2048] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "update_batches"
RESULTS = HERE / "results" / "update_memory.json"


def _one(batch: str, checkpointing: bool, repeats: int, micro: int) -> dict[str, Any]:
    """Run inside the child process: the measurements of one (batch, setting)."""
    import torch

    from paperworks.backends.otb.agent_rl import AgentPolicy, Call, LoRASettings, Trajectory, UpdateSettings
    from paperworks.models.local.smollm import load_local_model
    from paperworks.train.memory import _peak_mb, _reset_peak, rss_mb, trim

    torch.set_num_threads(os.cpu_count() or 1)
    rows = [json.loads(line) for line in (DATA / f"{batch}.jsonl").read_text(encoding="utf-8").splitlines()]
    local = load_local_model("smollm2-135m")
    policy = AgentPolicy(local.model, LoRASettings(rank=16, alpha=32.0), lr=1e-6, seed=0)
    trajs = [Trajectory(group=i // 2, reward=float(i % 2 == 0),
                        calls=[Call(r["prompt_ids"], r["completion_ids"], [-1.0] * len(r["completion_ids"]))])
             for i, r in enumerate(rows)]
    settings = UpdateSettings(estimator="grpo", lr=1e-6, micro_batch_tokens=micro, checkpointing=checkpointing)
    policy.rl_step(trajs, settings)  # warm-up (allocator, oneDNN primitives)
    trim()
    base = rss_mb() or 0.0
    _reset_peak()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        stats = policy.rl_step(trajs, settings)
        times.append(time.perf_counter() - started)
    peak = _peak_mb()
    return {"batch": batch, "checkpointing": checkpointing, "calls": len(rows),
            "tokens": sum(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in rows),
            "tokens_trained": stats["tokens_trained"], "rss_before_mb": round(base, 1),
            "peak_rss_mb": round(peak, 1), "update_extra_mb": round(peak - base, 1),
            "step_s": [round(t, 2) for t in times], "step_s_median": round(statistics.median(times), 2),
            "loss": stats["loss"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--micro-batch-tokens", type=int, default=2048)
    ap.add_argument("--batches", default="arith,ogmar")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--child", nargs=2, metavar=("BATCH", "CHECKPOINTING"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_one(args.child[0], args.child[1] == "1", args.repeats, args.micro_batch_tokens)))
        return
    runs = []
    for batch in args.batches.split(","):
        for flag in ("0", "1"):
            out = subprocess.run([sys.executable, __file__, "--child", batch, flag, "--repeats", str(args.repeats),
                                  "--micro-batch-tokens", str(args.micro_batch_tokens)],
                                 capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(json.dumps(runs[-1]), flush=True)
    ratios = {}
    for batch in args.batches.split(","):
        plain, ckpt = (next(r for r in runs if r["batch"] == batch and r["checkpointing"] is c) for c in (False, True))
        ratios[batch] = {"memory_ratio": round(ckpt["update_extra_mb"] / max(plain["update_extra_mb"], 1e-9), 3),
                         "peak_ratio": round(ckpt["peak_rss_mb"] / plain["peak_rss_mb"], 3),
                         "time_ratio": round(ckpt["step_s_median"] / plain["step_s_median"], 3),
                         "same_loss": abs(ckpt["loss"] - plain["loss"]) <= 1e-4 * max(1.0, abs(plain["loss"]))}
    result = {"benchmark": "update_memory",
              "command": f"python benchmarks/update_memory.py --repeats {args.repeats} "
                         f"--micro-batch-tokens {args.micro_batch_tokens}",
              "cpu_count": os.cpu_count(), "micro_batch_tokens": args.micro_batch_tokens, "runs": runs,
              "ratios_checkpointing_to_plain": ratios}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(ratios, indent=2))


if __name__ == "__main__":
    main()
